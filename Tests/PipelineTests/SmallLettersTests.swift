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
