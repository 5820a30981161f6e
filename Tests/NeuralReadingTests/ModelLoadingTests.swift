import GlossModels
import GlossNeuralNetwork
import GlossNeuralReading
import Testing

/// The PP-OCRv6 models as Gloss loads them: a damaged or mismatched one is one error naming it.
@Suite struct ModelLoadingTests {
    /// Builds the networks from the built-in bytes, `detector` replaced when given.
    static func load(detector: [UInt8]? = nil, characters: [UInt8]? = nil) throws(NeuralModelError) -> PPOCRNetworks {
        let chosenDetector = detector ?? Array(Models.ppocrDetector)
        let chosenCharacters = characters ?? Array(Models.ppocrCharacters)
        let result = chosenDetector.withUnsafeBytes { detectorBytes in
            chosenCharacters.withUnsafeBytes { characterBytes in
                Result { () throws(NeuralModelError) in
                    try PPOCRNetworks(detector: detectorBytes, recogniser: Models.ppocrRecogniser,
                                      classifier: Models.ppocrClassifier, characters: characterBytes)
                }
            }
        }
        return try result.get()
    }

    @Test func theBuiltInBytesAreThere() {
        #expect(Models.ppocrDetector.count == 9_833_364 && Models.ppocrRecogniser.count == 21_079_720)
        #expect(Models.ppocrClassifier.count == 519_832 && Models.ppocrCharacters.count == 74_947)
        #expect(Array(Models.ppocrDetector.prefix(8)) == Array("GLOSSNN1".utf8))
    }

    @Test func aCorruptDetectorIsNamedWithItsCause() throws {
        try #require(Models.supportsNeuralNetwork)
        var bytes = Array(Models.ppocrDetector)
        bytes[0] = UInt8(ascii: "X")
        let error = try #require(throws: NeuralModelError.self) { try Self.load(detector: bytes) }
        #expect(error.model == .detector)
        #expect(error.description.contains("models/ppocr/ppocr-det.bin") && error.description.contains("GLOSSNN1"), "\(error)")
        // Cut short: the size the table promises is not there.
        let short = try #require(throws: NeuralModelError.self) { try Self.load(detector: Array(Models.ppocrDetector.dropLast(16))) }
        #expect(short.model == .detector && short.reason.contains("bytes where the table promises"), "\(short)")
    }

    @Test func aDictionaryThatDoesNotMatchTheRecogniserIsRefused() throws {
        try #require(Models.supportsNeuralNetwork)
        // One character fewer: 18,707 + 2 is not the recogniser's 18,710 classes.
        var lines = String(decoding: Array(Models.ppocrCharacters), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: 0)
        let error = try #require(throws: NeuralModelError.self) { try Self.load(characters: Array(lines.joined(separator: "\n").utf8)) }
        #expect(error.model == .recogniser && error.reason.contains("18710") && error.reason.contains("18709"), "\(error)")
        let garbled = try #require(throws: NeuralModelError.self) { try Self.load(characters: [0xFF, 0x0A]) }
        #expect(garbled.model == .characters)
    }

    @Test func theBuiltInModelsLoad() throws {
        let networks = try PPOCRNetworks.bundled()
        #expect(networks.characters.count == 18_708 && networks.characters[0] == "!")
    }
}
