import GlossContract
import GlossImaging
import GlossModels
import GlossNeuralReading

/// Which reader reads a page's text (`--engine`).
public enum TextEngine: String, Sendable, Codable, Hashable, CaseIterable {
    /// Tesseract, with Gloss's preparation of the page: the default.
    case tesseract
    /// PP-OCRv6's detector and recogniser in Gloss's own network code (`Sources/NeuralReading`).
    case neural
}

/// Text through the neural reader: one reader per lane, the page at up to 300 ppi in its own
/// colours (the networks read B, G, R), then the ink its words leave uncovered, for review.
/// The page is read the way the preparer stood it up; Tesseract's second readings of a page in
/// doubt (turned, scaled, re-read) are not made.
struct NeuralTextAnalyzer: Analyzer {
    var policy = ReadingPolicy()

    var name: String { "ocr" }
    var readsText: Bool { true }
    var holdsPageSizedMaps: Bool { true }
    /// The same copy as Tesseract's, so a batch makes one: the detector sizes its own input.
    var image: ImageRequest { ImageRequest(maximumResolution: 300) }

    /// Throws `NeuralModelError` for a model that does not load: `--engine neural` stops there.
    func makeEngine() throws -> NeuralReader { try NeuralReader.bundled(policy: policy) }

    func analyze(_ image: AnalyzerImage, with engine: NeuralReader, cancellation: CancellationFlag) throws -> PageFindings {
        let raster = image.raster
        let text = try engine.read(raster: raster, cancellation: cancellation)
        let small = InkCoverage.workingCopy(of: raster.layout == .gray ? raster : raster.grayscale())
        var findings = PageFindings(text: text, review: InkCoverage(page: small, words: text.words.map(\.box)).review)
        findings.timings.record("detect", engine.timings.detection)
        findings.timings.record("recognize", engine.timings.recognition)
        return findings
    }
}
