// libFuzzer target: image decoding, as the pipeline does it: open the header, then decode
// every page (and read a PDF page's text layer). Bad input must end in a thrown ImagingError; a trap, ASan report, hang or OOM is
// a finding. The pixel limit is modest so that legitimately large headers are refused.
import GlossImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let file: ImageFile
    do {
        file = try ImageFile(bytes: bytes, path: "fuzz", pixelLimit: 4_000_000)
    } catch let error as ImagingError {
        _ = error.description
        return 0
    } catch {
        fatalError("ImageFile threw an untyped error: \(error)")
    }
    for index in 0..<file.pageCount {
        do {
            let page = try file.decodePage(index)
            _ = page.raster.width &+ page.raster.height
            _ = try file.textLayer(ofPage: index)?.lines.count
        } catch let error as ImagingError {
            _ = error.description
        } catch {
            fatalError("decodePage threw an untyped error: \(error)")
        }
    }
    return 0
}
