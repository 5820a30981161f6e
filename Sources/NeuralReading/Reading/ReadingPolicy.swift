/// The neural reader's decisions, each with where it comes from: RapidOCR 3.10's defaults
/// (`rapidocr/config.yaml`), whose text Gloss's reading is to equal.
public struct ReadingPolicy: Sendable, Equatable {
    /// Lines whose mean character probability is lower are dropped (RapidOCR's `text_score`).
    public var minimumLineConfidence = 0.5
    /// A line is turned over when the classifier gives 180 degrees more than this (`cls_thresh`).
    public var turnOverProbability: Float = 0.9

    public init() {}
}
