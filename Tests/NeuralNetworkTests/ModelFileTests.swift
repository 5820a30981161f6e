import CPPOCRModels
import GlossNeuralNetwork
import Testing

/// Version 2 of the model format: storage kinds, the program, aligned values; and the PP-OCRv6
/// models assembled into the binary.
struct ModelFileTests {
    /// A version 2 file written the way `models/ppocr/convert.py` writes one.
    static func file(tensors: [(name: String, shape: [UInt32], storage: UInt32, bytes: [UInt8])], program: String,
                     version: UInt32 = 2) -> [UInt8] {
        func word(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var out = Array("GLOSSNN1".utf8) + word(version) + word(UInt32(tensors.count))
        for tensor in tensors {
            out += word(UInt32(tensor.name.utf8.count)) + Array(tensor.name.utf8) + word(UInt32(tensor.shape.count))
            out += tensor.shape.flatMap(word) + word(tensor.shape.reduce(1, *)) + word(tensor.storage)
        }
        out += word(UInt32(program.utf8.count)) + Array(program.utf8)
        for tensor in tensors {
            out += [UInt8](repeating: 0, count: (16 - out.count % 16) % 16)
            out += tensor.bytes
        }
        return out
    }

    static func float32(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) } }
    }

    static let sample = file(
        tensors: [
            // 1.5, -0.25, 65504 (the largest half) as float16: 0x3E00, 0xB400, 0x7BFF.
            ("half", [3], 1, [0x00, 0x3E, 0x00, 0xB4, 0xFF, 0x7B]),
            ("single", [1, 2], 0, float32([3.25, -7])),
        ],
        program: "t1 = conv input weight=half\noutput t1\n"
    )

    @Test func readsStorageKindsAndTheProgram() throws {
        let model = try ModelFile(bytes: Self.sample, path: "sample.bin")
        #expect(model.tensors.map(\.name) == ["half", "single"])
        #expect(model.tensors[0].values == [1.5, -0.25, 65504])
        #expect(model.tensors[1].shape == [1, 2] && model.tensors[1].values == [3.25, -7])
        #expect(model.program == "t1 = conv input weight=half\noutput t1\n")
        #expect(try model.tensor("single", path: "sample.bin").values == [3.25, -7])
        #expect(throws: ModelError(path: "sample.bin", reason: "no tensor other")) { try model.tensor("other", path: "sample.bin") }
    }

    @Test func refusesWhatVersionTwoCannotHold() {
        // Cut short by a byte; one byte too many; an unknown storage kind; an unknown version.
        #expect(throws: ModelError.self) { try ModelFile(bytes: Array(Self.sample.dropLast()), path: "short.bin") }
        #expect(throws: ModelError.self) { try ModelFile(bytes: Self.sample + [0], path: "long.bin") }
        let kind = Self.file(tensors: [("x", [1], 7, [0, 0, 0, 0])], program: "")
        #expect(throws: ModelError.self) { try ModelFile(bytes: kind, path: "kind.bin") }
        let version = Self.file(tensors: [("x", [1], 0, [0, 0, 0, 0])], program: "", version: 3)
        #expect(throws: ModelError.self) { try ModelFile(bytes: version, path: "version.bin") }
    }

    /// The detector in the binary is the file `convert.py` wrote: its table, its program.
    @Test func theAssembledDetectorReads() throws {
        var count = 0
        let start = try #require(gloss_ppocr_detector(&count))
        #expect(count == 9_833_364)
        #expect(Int(bitPattern: start) % 16 == 0)
        let model = try ModelFile(bytes: UnsafeRawBufferPointer(start: start, count: count), path: "ppocr-det.bin")
        #expect(model.tensors.count == 170)
        #expect(model.tensors.reduce(0) { $0 + $1.values.count } == 2_453_833)
        #expect(model.tensors.first?.name == "det.L1.weight" && model.tensors.first?.shape == [24, 3, 3, 3])
        let lines = model.program.split(separator: "\n")
        #expect(lines.count == 142 && lines.last == "output t141")
        for (key, expected) in [("rec", 21_079_720), ("cls", 519_832)] {
            let size = key == "rec" ? { var n = 0; _ = gloss_ppocr_recogniser(&n); return n }()
                : { var n = 0; _ = gloss_ppocr_classifier(&n); return n }()
            #expect(size == expected, "ppocr-\(key).bin")
        }
    }
}
