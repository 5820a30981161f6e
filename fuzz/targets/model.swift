// libFuzzer target: the GLOSSNN1 model reader, then YuNet built from whatever it accepts.
// Both only throw ModelError: any trap, ASan report or hang is a finding.
import GlossFaceDetection
import GlossNeuralNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let model = try? ModelFile(bytes: bytes, path: "fuzz") else { return 0 }
    _ = try? YuNetDetector(model: model, path: "fuzz")
    return 0
}
