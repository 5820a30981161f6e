import GlossContract
import GlossImaging
@testable import GlossPipeline
import GlossPreparation
import GlossTestSupport
import GlossTextRecognition
import Testing

/// A page of small letters is read twice, enlarged and as it came, and the reading Tesseract
/// is the more confident of is kept.
struct SmallLettersTests {
    @Test("the more confident of the enlarged and the unscaled readings is kept", arguments: [0.45, 0.5])
    func theMoreConfidentReadingIsKept(factor: Double) throws {
        let upright = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let page = upright.resampled(width: Int(Double(upright.width) * factor), height: Int(Double(upright.height) * factor))
        let letters = try #require(LetterSize(of: page))
        let scale = TextScale(letters: letters, statedResolution: nil, size: page.size)
        try #require(scale.factor > 1, "x-height \(letters.xHeight) is small enough to enlarge")

        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: [.scale])
        let engine = try analyzer.makeEngine()
        let findings = try analyzer.analyze(AnalyzerImage(raster: page, resolution: nil), with: engine, cancellation: CancellationFlag())
        let preparation = try #require(findings.preparation)
        let kept = findings.text.words

        // The two readings, made here as the analyzer makes them.
        let size = scale.scaled(page.size)
        let enlarged = try engine.recognize(page.enlarged(width: size.width, height: size.height), resolution: scale.resolution)
        let unscaled = try engine.recognize(page, resolution: nil)
        let enlargedWins = (enlarged.meanConfidence ?? 0) >= (unscaled.meanConfidence ?? 0)
        #expect(kept.map(\.text) == (enlargedWins ? enlarged : unscaled).words.map(\.text))
        if enlargedWins {
            #expect(preparation.scale == (scale.factor * 1000).rounded() / 1000 && preparation.enlargementSetAside == nil)
        } else {
            #expect(preparation.scale == 1 && preparation.enlargementSetAside == (scale.factor * 1000).rounded() / 1000)
        }
        #expect(preparation.timings["compare"] != nil)
        #expect(kept.count >= 40, "\(kept.count) words")
    }
}

/// A page whose file states a placeholder resolution is told 300 ppi; when Tesseract is unsure
/// of that reading, the page is read at its file's resolution too, and the more confident kept.
struct ToldResolutionTests {
    static let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: [.scale])

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

    @Test("a confident reading told 300 in place of a stated 96 is not read again")
    func aConfidentReadingIsKept() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let engine = try Self.analyzer.makeEngine()
        let findings = try Self.analyzer.analyze(AnalyzerImage(raster: page, resolution: 96), with: engine, cancellation: CancellationFlag())
        try #require((findings.text.meanConfidence ?? 0) >= TextAnalyzer(options: RecognitionOptions()).policy.confidentReading)
        #expect(findings.preparation?.scale == 1)
        #expect(findings.preparation?.resolutionSetAside == nil)
        #expect(findings.preparation?.timings["compare"] == nil)
        let told300 = try engine.recognize(page, resolution: 300)
        #expect(findings.text.words.map(\.text) == told300.words.map(\.text))
    }

    @Test("an unsure reading told 300 is compared with one at the stated 96, and the more confident kept")
    func anUnsureReadingIsCompared() throws {
        let page = try Self.peppered()
        let engine = try Self.analyzer.makeEngine()
        let told300 = try engine.recognize(page, resolution: 300)
        let told96 = try engine.recognize(page, resolution: 96)
        try #require((told300.meanConfidence ?? 100) < TextAnalyzer(options: RecognitionOptions()).policy.confidentReading, "the blurred page reads unsure")

        let findings = try Self.analyzer.analyze(AnalyzerImage(raster: page, resolution: 96), with: engine, cancellation: CancellationFlag())
        let record = try #require(findings.preparation)
        let statedWins = told96.isMoreConfident(than: told300)
        #expect(findings.text.words.map(\.text) == (statedWins ? told96 : told300).words.map(\.text))
        #expect(record.resolutionSetAside == (statedWins ? 300 : nil))
        #expect(record.scale == 1 && record.enlargementSetAside == nil)
        #expect(record.timings["compare"] != nil)
        #expect(findings.text.words.count >= 20)
    }

    @Test("a file that states no resolution has none other to try")
    func noStatedResolutionIsNotCompared() throws {
        let page = try Self.peppered()
        let engine = try Self.analyzer.makeEngine()
        let findings = try Self.analyzer.analyze(AnalyzerImage(raster: page, resolution: nil), with: engine, cancellation: CancellationFlag())
        try #require((findings.text.meanConfidence ?? 100) < TextAnalyzer(options: RecognitionOptions()).policy.confidentReading, "unsure, and still read once")
        #expect(findings.preparation?.timings["compare"] == nil)
        #expect(findings.preparation?.resolutionSetAside == nil)
    }
}
