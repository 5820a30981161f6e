import GlossContract

/// The thresholds of Tesseract's own second readings (`--prepare`), each with the measurement
/// behind it: when a page whose way up is in doubt is read another way, and when a scaled page
/// is read as it came too. The decisions are `SecondReadings`' pure functions of these and of
/// the readings made; `FusionPolicy.preparation` holds the value the plan reads with.
public struct PreparationPolicy: Sendable, Equatable {
    /// The mean word confidence from which a reading is trusted without a second. On the real
    /// pages of `bench/ocr-quality` turned four ways and skewed, and read the way the detector
    /// was unsure of, readings the wrong way up reached 64, and readings the right way up that
    /// a second reading would not have changed started at 86; of the pages told 300 ppi in
    /// place of their file's 96, the one that read better told 96 read at 79.6.
    public var confidentReading = 85.0

    /// The mean word confidence under which a reading of a page whose way up the detectors
    /// were sure of is taken for garbage, and the page read turned over. Of the 63 real pages
    /// of `bench/ocr-quality` read upright, one read under 60 (a chart, at 38, whose text
    /// Tesseract barely reads any way up); a table of figures that both detectors took for
    /// upright on its head read at 46.
    public var garbledReading = 60.0

    /// Fewer words than this say nothing of which way up a page stands: a photograph's specks.
    public var wordsToTell = 5

    public init() {}

    /// Whether a reading is one Tesseract is unsure of, and worth a second reading to compare.
    public func isUnsure(_ text: RecognizedText) -> Bool { (text.meanConfidence ?? 0) < confidentReading }

    /// Whether a reading looks like text read the wrong way up: words enough to tell, of low
    /// confidence.
    public func isGarbled(_ text: RecognizedText) -> Bool {
        text.words.count >= wordsToTell && (text.meanConfidence ?? 0) < garbledReading
    }
}
