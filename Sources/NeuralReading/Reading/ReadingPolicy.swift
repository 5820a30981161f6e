/// The neural reader's decisions, each with where it comes from: RapidOCR 3.10's defaults
/// (`rapidocr/config.yaml`), whose text Gloss's reading is to equal.
public struct ReadingPolicy: Sendable, Equatable {
    /// Lines whose mean character probability is lower are dropped (RapidOCR's `text_score`).
    public var minimumLineConfidence = 0.5
    /// A line is turned over when the classifier gives 180 degrees more than this (`cls_thresh`).
    public var turnOverProbability: Float = 0.9
    /// The recogniser's input width per line: RapidOCR's batching by default, which reads best;
    /// `.own(minimum:)` computes no other line's padding and so takes less time, but reads
    /// short lines worse (forms and receipts lose words even at a minimum of 320 px): the
    /// measurements are in `bench/neural/README.md` ("Line widths").
    public var lineWidths = LineWidths.rapidOCRChunks

    public init() {}

    /// RapidOCR 3.10's reading throughout, its batching of lines included (the default too,
    /// said outright): for comparing Gloss's text with RapidOCR's line by line.
    public static var rapidOCR: ReadingPolicy {
        var policy = ReadingPolicy()
        policy.lineWidths = .rapidOCRChunks
        return policy
    }
}
