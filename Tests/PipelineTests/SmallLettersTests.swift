import GlossContract
import GlossImaging
@testable import GlossPipeline
import GlossPreparation
import GlossTestSupport
import GlossTextRecognition
import Testing

/// A page of small letters is read once, enlarged, and told the resolution the letters imply.
struct SmallLettersTests {
    @Test("a page of small letters is read enlarged, once", arguments: [0.45, 0.5])
    func smallLettersAreReadEnlarged(factor: Double) throws {
        let upright = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let page = upright.resampled(width: Int(Double(upright.width) * factor), height: Int(Double(upright.height) * factor))
        let letters = try #require(LetterSize(of: page))
        let scale = TextScale(letters: letters, statedResolution: nil, size: page.size)
        try #require(scale.factor > 1, "x-height \(letters.xHeight) is small enough to enlarge")

        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: [.scale])
        let engine = try analyzer.makeEngine()
        let findings = try analyzer.analyze(AnalyzerImage(raster: page, resolution: nil), with: engine, cancellation: CancellationFlag())
        let preparation = try #require(findings.preparation)

        // The reading, made here as the analyzer makes it.
        let size = scale.scaled(page.size)
        let enlarged = try engine.recognize(page.enlarged(width: size.width, height: size.height), resolution: scale.resolution)
        #expect(findings.text.words.map(\.text) == enlarged.words.map(\.text))
        #expect(preparation.scale == (scale.factor * 1000).rounded() / 1000)
        #expect(preparation.timings.stages.map(\.name) == ["scale"], "read once: no second reading as it came")
        #expect(findings.text.words.count >= 40, "\(findings.text.words.count) words")
    }
}

/// A page whose file states a placeholder resolution is told 300 ppi, and read so once, however
/// unsure Tesseract is of the reading.
struct ToldResolutionTests {
    /// The sans page with three pixels in a hundred turned black (a fixed sequence): its letters
    /// keep their size, and Tesseract reads them less surely (under 85 against 96).
    static func peppered() throws -> Raster {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster.grayscale()
        var pixels = page.pixels
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if (state >> 33) % 100 < 3 { pixels[index] = 0 }
        }
        return Raster(width: page.width, height: page.height, layout: .gray, pixels: pixels)
    }

    @Test("an unsure page stating 96 ppi is read once, told 300")
    func aPlaceholderResolutionIsReplacedOnce() throws {
        let page = try Self.peppered()
        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: [.scale])
        let engine = try analyzer.makeEngine()
        let told300 = try engine.recognize(page, resolution: 300)
        let told96 = try engine.recognize(page, resolution: 96)
        try #require(told300.words.map(\.text) != told96.words.map(\.text), "the resolution told changes the reading")

        let findings = try analyzer.analyze(AnalyzerImage(raster: page, resolution: 96), with: engine, cancellation: CancellationFlag())
        #expect(findings.text.words.map(\.text) == told300.words.map(\.text))
        #expect(findings.preparation?.scale == 1)
        #expect(findings.preparation?.timings.stages.map(\.name) == ["scale"])
        #expect(findings.text.words.count >= 20)
    }
}
