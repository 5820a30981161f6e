// libFuzzer target: the Exif/TIFF Orientation reader.
// It returns an optional and throws nothing: any trap, ASan report or hang is a finding.
// The whole input is read as a JPEG and as a TIFF; for the TIFF page number the last byte
// picks 0...15 (small and non-negative, as ImageFile asks: page is a caller's index, not input).
import GlossImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExif(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    _ = ExifReader.orientation(inJPEG: bytes)
    _ = ExifReader.orientation(inJPEG: bytes[...])  // an ArraySlice as well as an Array
    let page = Int(bytes.last ?? 0) & 15
    _ = ExifReader.orientation(inTIFF: bytes, page: page)
    if bytes.count > 1 {
        _ = ExifReader.orientation(inTIFF: bytes.dropFirst(), page: 0)  // non-zero startIndex
    }
    return 0
}
