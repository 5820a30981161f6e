// libFuzzer target: the cascade XML loader.
// Bad input must end in a thrown CascadeError; a trap, ASan report, hang or OOM is a finding.
import GlossFaceDetection

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCascade(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    do {
        let cascade = try Cascade(xml: bytes, source: "fuzz.xml")
        // Touch the result so the whole value is materialised.
        _ = cascade.stageCount + cascade.weakClassifierCount + cascade.maxNodesPerTree
    } catch {
        _ = error.description  // typed: CascadeError; formatting it must not trap either
    }
    return 0
}
