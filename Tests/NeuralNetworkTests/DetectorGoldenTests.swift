import CPPOCRModels
import Foundation
import GlossNeuralNetwork
import Testing

/// The PP-OCRv6 detector's program, run by `Network`, against onnxruntime's probability map on
/// a crop of `fixtures/text/sans.png` (`Golden/README.md` says how it was recorded).
struct DetectorGoldenTests {
    static func detector() throws -> Network {
        var count = 0
        let start = try #require(gloss_ppocr_detector(&count))
        let model = try ModelFile(bytes: UnsafeRawBufferPointer(start: start, count: count), path: "ppocr-det.bin")
        return try Network(model: model, path: "ppocr-det.bin", products: .fp32)
    }

    /// The crop as the detector's input (B, G, R, each `(v / 255 - 0.5) / 0.5`) and the golden map.
    static func golden() throws -> (input: FeatureMap, map: [Float]) {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        let bytes = [UInt8](try Data(contentsOf: url.appendingPathComponent("Golden/ppocr-det-sans.bin")))
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let height = word(0), width = word(4), pixels = height * width
        try #require(bytes.count == 8 + pixels * 3)
        let grey = bytes[8..<(8 + pixels)].map { (Float($0) / 255 - 0.5) / 0.5 }
        let map = (0..<pixels).map { i in
            Float(Int(bytes[8 + pixels + 2 * i]) | Int(bytes[8 + pixels + 2 * i + 1]) << 8) / 65535
        }
        return (FeatureMap(channels: 3, height: height, width: width, values: grey + grey + grey), map)
    }

    @Test func theMapMatchesOnnxRuntime() throws {
        var network = try Self.detector()
        let (input, golden) = try Self.golden()
        let map = try network.run(input)
        #expect(map.channels == 1 && map.height == input.height && map.width == input.width)
        let worst = zip(map.values, golden).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-3, "largest difference from onnxruntime \(worst)")
        // A second run reuses the maps and gives the same values.
        let again = try network.run(input)
        #expect(Array(again.values) == Array(map.values))
    }

    @Test func aRunStopsWhenCancelled() throws {
        var network = try Self.detector()
        let (input, _) = try Self.golden()
        var asked = 0
        #expect(throws: NetworkError.cancelled) {
            _ = try network.run(input) { asked += 1; return asked > 10 }
        }
        #expect(asked == 11)
        #expect(throws: NetworkError.self) { _ = try network.run(FeatureMap(channels: 3, height: 40, width: 64)) }
    }
}
