import GlossContract

/// Every threshold of the reading plan, each with the measurement behind it: the one value
/// the plan and the fusion read their numbers from. `version` enters the settings'
/// fingerprint, so a batch read under one policy is read again under another.
///
/// Named apart from `ReadingPolicy`, which is the neural reader's own (RapidOCR's defaults).
public struct FusionPolicy: Sendable, Equatable {
    /// Raised with every change of a threshold or a scale below.
    public var version = 1

    /// A detected line whose Tesseract words' mean calibrated probability is under this is read
    /// by the neural reader too, and the reading of higher probability kept. Placeholder until
    /// measured (with uncalibrated scales it is conf 80): `--text accurate` is not the default.
    public var unsureLine = 0.80

    /// A Tesseract word belongs to the detected line that holds the largest share of its box,
    /// when that share is at least this; else it lies outside every line. Half: a word is in
    /// the line that holds most of it. Placeholder until measured.
    public var wordInLine = 0.5

    /// Tesseract's raw word confidence onto the one scale (`Fusion/Calibration.swift`).
    public var tesseractScale = Calibration.uncalibratedTesseract
    /// The neural reader's raw word confidence onto the one scale.
    public var neuralScale = Calibration.uncalibratedNeural

    public init() {}

    /// The scale of `reader`'s confidences.
    public func scale(of reader: LineReader) -> ConfidenceScale {
        switch reader {
        case .tesseract: tesseractScale
        case .neural: neuralScale
        }
    }
}
