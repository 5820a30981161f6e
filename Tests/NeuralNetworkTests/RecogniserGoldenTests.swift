import CPPOCRModels
import Foundation
@testable import GlossNeuralNetwork
import Testing

/// The PP-OCRv6 recogniser's and line classifier's programs, run by `Network`, against
/// onnxruntime on lines cut from the text fixtures (`Golden/README.md` says how they were
/// recorded): the probabilities within 1e-3, the same best class at every time step, the same
/// text, and the classifier's orientation.
struct RecogniserGoldenTests {
    static func network(_ start: UnsafePointer<UInt8>?, count: Int, name: String) throws -> Network {
        let model = try ModelFile(bytes: UnsafeRawBufferPointer(start: try #require(start), count: count), path: name)
        return try Network(model: model, path: name, products: .fp32)
    }

    static func recogniser() throws -> Network {
        var count = 0
        let start = gloss_ppocr_recogniser(&count)
        return try network(start, count: count, name: "ppocr-rec.bin")
    }

    static func classifier() throws -> Network {
        var count = 0
        let start = gloss_ppocr_classifier(&count)
        return try network(start, count: count, name: "ppocr-cls.bin")
    }

    static let golden: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Reads a golden file's little-endian fields in order.
    struct Reader {
        let bytes: [UInt8]
        var at = 0
        init(_ name: String) throws { bytes = [UInt8](try Data(contentsOf: golden.appendingPathComponent(name))) }
        mutating func word() -> Int {
            defer { at += 4 }
            return (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        mutating func float() -> Float { Float(bitPattern: UInt32(word())) }
        mutating func half() -> Int {
            defer { at += 2 }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        mutating func take(_ count: Int) -> ArraySlice<UInt8> {
            defer { at += count }
            return bytes[at..<(at + count)]
        }
    }

    /// A line's grey bytes (48 rows of `resized`) as a network input `width` wide: B, G, R each
    /// `(v / 255 - 0.5) / 0.5`, padded on the right with 0, as RapidOCR prepares it.
    static func input(_ grey: ArraySlice<UInt8>, resized: Int, width: Int) -> FeatureMap {
        var map = FeatureMap(channels: 3, height: 48, width: width)
        for c in 0..<3 {
            for y in 0..<48 {
                for x in 0..<resized { map[c, y, x] = (Float(grey[grey.startIndex + y * resized + x]) / 255 - 0.5) / 0.5 }
            }
        }
        return map
    }

    struct Line {
        var input: FeatureMap
        var steps: Int
        var classes: Int
        /// Per step, the best `k` classes and their probabilities, best first.
        var top: [[(id: Int, probability: Float)]]
        /// Whole rows of probabilities at a few steps.
        var rows: [(step: Int, probabilities: [Float])]
        var text: String
    }

    static func line(_ name: String) throws -> Line {
        var reader = try Reader("ppocr-rec-\(name).bin")
        let height = reader.word(), resized = reader.word(), width = reader.word()
        let steps = reader.word(), classes = reader.word(), k = reader.word(), rows = reader.word()
        try #require(height == 48 && width % 8 == 0 && resized <= width)
        let input = input(reader.take(48 * resized), resized: resized, width: width)
        let ids = (0..<(steps * k)).map { _ in reader.word() }
        let probabilities = (0..<(steps * k)).map { _ in reader.float() }
        let top = (0..<steps).map { t in (0..<k).map { (ids[t * k + $0], probabilities[t * k + $0]) } }
        let full = (0..<rows).map { _ in (reader.word(), (0..<classes).map { _ in Float(reader.half()) / 65535 }) }
        let text = String(decoding: reader.take(reader.word()), as: UTF8.self)
        try #require(reader.at == reader.bytes.count)
        return Line(input: input, steps: steps, classes: classes, top: top, rows: full, text: text)
    }

    /// The recogniser's classes: 0 the CTC blank, then the dictionary's characters, then a space.
    static func characters() throws -> [String] {
        let url = golden.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("models/ppocr/ppocr-rec.characters")
        var lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        lines.removeLast()
        return [""] + lines + [" "]
    }

    /// Greedy CTC: the best class of each step, repeats merged, blanks dropped.
    static func decode(_ probabilities: FeatureMap, characters: [String]) -> String {
        var text = "", last = 0
        for t in 0..<probabilities.height {
            var best = 0
            for c in 1..<probabilities.width where probabilities[0, t, c] > probabilities[0, t, best] { best = c }
            if best != last && best != 0 { text += characters[best] }
            last = best
        }
        return text
    }

    /// The steps whose best class differs from onnxruntime's, and the largest difference of a
    /// probability among each step's best few.
    static func compare(_ output: FeatureMap, _ line: Line) -> (worst: Float, disagreements: Int) {
        var worst: Float = 0, disagreements = 0
        for t in 0..<line.steps {
            var best = 0
            for c in 1..<output.width where output[0, t, c] > output[0, t, best] { best = c }
            if best != line.top[t][0].id { disagreements += 1 }
            for (id, probability) in line.top[t] { worst = max(worst, abs(output[0, t, id] - probability)) }
        }
        return (worst, disagreements)
    }

    @Test(arguments: [("sans", "The quick brown fox jumps"), ("serif", "Our village library holds 2750 old books"),
                      ("mono", "with 145 pages and 3906 lines")])
    func theRecogniserMatchesOnnxRuntime(name: String, reads: String) throws {
        var network = try Self.recogniser()
        let line = try Self.line(name)
        let output = try network.run(line.input)
        #expect(output.channels == 1 && output.height == line.steps && output.width == line.classes)
        #expect(line.steps == line.input.width / 8 && line.classes == 18710)
        let (top, disagreements) = Self.compare(output, line)
        var worst = top
        for (step, row) in line.rows {
            for c in 0..<line.classes { worst = max(worst, abs(output[0, step, c] - row[c])) }
        }
        #expect(disagreements == 0, "\(disagreements) steps whose best class differs from onnxruntime's")
        #expect(worst < 1e-3, "largest difference from onnxruntime \(worst)")
        let text = Self.decode(output, characters: try Self.characters())
        #expect(text == line.text)
        #expect(text == reads)
    }

    @Test func aNarrowerLineAfterAWiderOneAllocatesNothing() throws {
        var network = try Self.recogniser()
        let wide = try Self.line("serif"), narrow = try Self.line("sans")
        _ = try network.run(wide.input)
        let capacities = network.slots.map(\.storage.count), scratch = network.scratch.count
        let output = try network.run(narrow.input)
        #expect(network.slots.map(\.storage.count) == capacities && network.scratch.count == scratch)
        #expect(Self.decode(output, characters: try Self.characters()) == narrow.text)
    }

    @Test func theRecogniserTakesOneRowOfTokens() throws {
        var network = try Self.recogniser()
        // 96 rows leave 2 rows of tokens for the attention; 16 rows are too few for the pool.
        #expect(throws: NetworkError.self) { _ = try network.run(FeatureMap(channels: 3, height: 96, width: 64)) }
        #expect(throws: NetworkError.self) { _ = try network.run(FeatureMap(channels: 3, height: 16, width: 64)) }
        let blank = try network.run(FeatureMap(channels: 3, height: 48, width: 64))
        #expect(blank.height == 8 && blank.width == 18710)
    }

    @Test func theClassifierMatchesOnnxRuntimeAndTellsTheTurnedLines() throws {
        var network = try Self.classifier()
        var reader = try Reader("ppocr-cls.bin")
        let count = reader.word()
        var turned = 0
        for _ in 0..<count {
            let resized = reader.word()
            let input = Self.input(reader.take(48 * resized), resized: resized, width: 192)
            let expected = [reader.float(), reader.float()], angle = reader.word()
            let output = try network.run(input)
            #expect(output.channels == 1 && output.height == 1 && output.width == 2)
            let worst = zip(output.values, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 1e-3, "largest difference from onnxruntime \(worst)")
            #expect((output[0, 0, 1] > output[0, 0, 0] ? 180 : 0) == angle)
            if angle == 180 { turned += 1 }
        }
        #expect(count == 3 && turned == 2)
    }
}
