import GlossContract
import GlossImaging
import GlossModels
import GlossNeuralReading
import GlossPreparation
import GlossReading
import GlossTextRecognition

/// Both readers of one lane: Tesseract, and the neural reader with its networks, or why the
/// neural reader could not be built (a processor without AVX2 and FMA): Tesseract then reads
/// alone, as `fast` does.
final class TextReaders {
    let tesseract: TextRecognizer
    let neural: Result<NeuralReader, NeuralModelError>

    init(tesseract: TextRecognizer, neural: Result<NeuralReader, NeuralModelError>) {
        self.tesseract = tesseract
        self.neural = neural
    }
}

/// Text read by the reading plan (`--text accurate`, `Sources/Reading`): Tesseract reads the
/// page as `TextAnalyzer` does, preparation and all; the neural detector finds the lines; the
/// neural reader reads those Tesseract left uncovered or was unsure of; the lines are fused
/// and put in reading order. Then the ink the fused words leave uncovered, for review.
struct PlannedTextAnalyzer: Analyzer {
    let options: RecognitionOptions
    /// The preparation steps asked for (`--prepare`), which Tesseract's reading takes.
    var steps: PreparationSteps = .none
    var mode = TextMode.accurate
    var policy = FusionPolicy()
    /// Builds the neural reader on the lane (the built-in models; a failing one in tests).
    var neuralReader: @Sendable () throws(NeuralModelError) -> NeuralReader = { () throws(NeuralModelError) in try NeuralReader.bundled() }

    var name: String { "ocr" }
    var readsText: Bool { true }
    var holdsPageSizedMaps: Bool { true }
    /// Tesseract's copy, which the detector sizes for itself.
    var image: ImageRequest { tesseract.image }

    private var tesseract: TextAnalyzer { TextAnalyzer(options: options, steps: steps, policy: policy.preparation, mode: mode) }

    /// Throws `TextRecognitionError` when Tesseract cannot be built. A neural reader that
    /// cannot be built is a missing part (`missingParts`): the pages are read by Tesseract alone.
    func makeEngine() throws -> TextReaders {
        TextReaders(tesseract: try tesseract.makeEngine(), neural: Result(catching: neuralReader))
    }

    func missingParts(of engine: TextReaders) -> [String: any Error] {
        guard case .failure(let error) = engine.neural else { return [:] }
        return ["neural reader": error]
    }

    func analyze(_ image: AnalyzerImage, with engine: TextReaders, cancellation: CancellationFlag) throws -> PageFindings {
        guard case .success(let neural) = engine.neural else {
            let alone = TextAnalyzer(options: options, steps: steps, policy: policy.preparation, mode: .fast)
            var findings = try alone.analyze(image, with: engine.tesseract, cancellation: cancellation)
            var record = findings.preparation ?? PagePreparation()
            record.rules = [PlanRule.tesseractPage.rawValue]
            findings.preparation = record
            return findings
        }
        let raster = image.raster
        let grey = raster.layout == .gray ? raster : raster.grayscale()
        var signals = PageSignals.measured(grey: grey, statedResolution: image.resolution)
        signals.wayUpInDoubt = image.doubtfulOrientation != nil
        signals.detectorsUnsure = image.doubtfulOrientation.map { !$0.appliedIsSure } ?? false
        // The ink is measured once, for `sure-page`'s evidence and the review both.
        let small = InkCoverage.workingCopy(of: grey)
        let ink = InkCoverage.ink(in: small)
        var page = TesseractPage(analyzer: tesseract, image: image.separate(), engine: engine.tesseract, small: small, ink: ink)
        var lines = NeuralLines(reader: neural, raster: raster)
        let reading = try PlanExecution.read(signals: signals, mode: mode, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        var findings = page.findings ?? PageFindings()
        findings.text = reading.text
        findings.review = InkCoverage(page: small, words: reading.text.words.map(\.box), ink: ink).review
        findings.review?.unreadLines = reading.unreadLines.map { ($0 * 1000).rounded() / 1000 }
        findings.review?.disagreement = reading.disagreement.map { ($0 * 1000).rounded() / 1000 }
        var record = findings.preparation ?? PagePreparation()
        record.rules = reading.rules.map(\.rawValue)
        findings.preparation = record
        if reading.detected {
            findings.timings.record("detect", neural.timings.detection)
            findings.timings.record("recognize", neural.timings.recognition)
        }
        return findings
    }
}

/// Tesseract's reading of the page as `TextAnalyzer` makes it, kept whole (preparation,
/// timings) for the findings; the plan sees its text. Each reading reads its own copy of the
/// page's image (the engine takes the pixels it reads), and a reading of a doubted page made
/// the way it was given stands for that way when the page is read its other ways too.
struct TesseractPage: PageTextReader {
    let analyzer: TextAnalyzer
    let image: AnalyzerImage
    let engine: TextRecognizer
    /// The page's grey working copy, on which the ink its words leave uncovered is measured,
    /// and that copy's ink (`InkCoverage.ink`).
    let small: Raster
    let ink: [UInt8]
    private(set) var findings: PageFindings?
    /// The reading of a doubted page the way it was given, made already.
    private var asGiven: PageFindings?

    init(analyzer: TextAnalyzer, image: AnalyzerImage, engine: TextRecognizer, small: Raster, ink: [UInt8]) {
        self.analyzer = analyzer
        self.image = image
        self.engine = engine
        self.small = small
        self.ink = ink
    }

    func uncoveredText(of text: RecognizedText) -> Double {
        InkCoverage(page: small, words: text.words.map(\.box), ink: ink).textShare
    }

    mutating func readPage(cancellation: CancellationFlag) throws -> RecognizedText {
        try readPage(wayUpSettled: false, cancellation: cancellation)
    }

    mutating func readPage(wayUpSettled: Bool, cancellation: CancellationFlag) throws -> RecognizedText {
        var copy = image.separate()
        let read: PageFindings
        if wayUpSettled, copy.doubtfulOrientation != nil {
            copy.doubtfulOrientation = nil
            read = try analyzer.analyze(copy, with: engine, cancellation: cancellation)
            asGiven = read
        } else {
            read = try analyzer.analyze(copy, with: engine, asGiven: asGiven, cancellation: cancellation)
        }
        findings = read
        return read.text
    }
}
