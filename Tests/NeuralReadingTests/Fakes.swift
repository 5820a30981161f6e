import GlossGeometry
import GlossImaging
import GlossNeuralNetwork
@testable import GlossNeuralReading

/// Hand-made recogniser output over a three-letter dictionary: classes blank, a, b, c, space.
enum FakeRows {
    static let characters = ["a", "b", "c"]
    static let decoder = CTCDecoder(characters: characters)
    static let blank = 0, space = 4

    /// One row per step: `winner` gets `probability`, the rest share what is left.
    static func rows(_ steps: [(winner: Int, probability: Float)]) -> ArraySlice<Float> {
        let classes = decoder.classCount
        var values: [Float] = []
        for step in steps {
            let rest = (1 - step.probability) / Float(classes - 1)
            values += (0..<classes).map { $0 == step.winner ? step.probability : rest }
        }
        return values[...]
    }

    /// The classes of `text` (letters and spaces), one step each, blanks between them.
    static func spelled(_ text: String, probability: Float = 0.9) -> [(winner: Int, probability: Float)] {
        text.flatMap { letter -> [(winner: Int, probability: Float)] in
            let winner = letter == " " ? space : characters.firstIndex(of: String(letter))! + 1
            return [(winner, probability), (blank, 0.99)]
        }
    }
}

/// A network that answers every run with the same map, counting its runs.
struct FixedNetwork: NetworkRunning {
    var output: FeatureMap
    var runs = 0
    /// Cancels after this many runs; nil never.
    var cancelAfter: Int?

    init(output: FeatureMap, cancelAfter: Int? = nil) {
        self.output = output
        self.cancelAfter = cancelAfter
    }

    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap {
        runs += 1
        if let cancelAfter, runs > cancelAfter { throw .cancelled }
        return output
    }
}

/// A recogniser that reads, for an input of width W, the text given for that width.
struct ScriptedRecogniser: NetworkRunning {
    var texts: [Int: (text: String, probability: Float)]

    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap {
        let script = texts[input.width] ?? ("", 0.9)
        var steps = FakeRows.spelled(script.text, probability: script.probability)
        let count = input.width / 8
        steps += Array(repeating: (FakeRows.blank, Float(0.99)), count: max(0, count - steps.count))
        return FeatureMap(channels: 1, height: count, width: FakeRows.decoder.classCount, values: Array(FakeRows.rows(Array(steps.prefix(count)))))
    }
}

/// Line finding that returns the quads given, without running the detector.
struct GivenLines: LineFinding {
    var quads: [DetectedBox]

    mutating func lines(in page: Raster, wordHeight: Double?, detector: inout any NetworkRunning,
                        isCancelled: () -> Bool) throws -> [DetectedBox] {
        _ = try detector.run(FeatureMap(channels: 3, height: 32, width: 32), isCancelled: isCancelled)
        return quads
    }
}

/// An axis-aligned line from (`left`, `top`), `width` x `height` page pixels.
func levelQuad(left: Double, top: Double, width: Double, height: Double) -> DetectedBox {
    DetectedBox(corners: [PixelPoint(x: left, y: top), PixelPoint(x: left + width, y: top),
                       PixelPoint(x: left + width, y: top + height), PixelPoint(x: left, y: top + height)], score: 0.9)
}
