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
    /// Where the reader has a second, exact recogniser beside a quick one (bf16 on AMX or
    /// 16-bit integers on AVX2, fp32 to check: `NeuralReader(recheck:)`), a line the quick one
    /// read with a decisive gap under
    /// this (`DecodedLine.smallestDecisiveGap`: at some step a runner-up class this close to
    /// the winner would change the text) is read again by the exact one, whose reading is kept.
    /// Measured line by line on RapidOCR's picture of 44 bench pages (`bench/neural/cascade.py`,
    /// `bench/neural/README.md`, "The cascade"): of the lines bf16 reads otherwise than fp32,
    /// the widest decisive gap was 0.021 on the tune half (11 lines of 754); 0.05, the first
    /// threshold tried that reads all 11 again, reads 7.8% of the tune lines again and, on the
    /// measure half, 10.3% and all 12 of its lines (the widest 0.034). The smallest gap of any
    /// step (`smallestGap`) needs 12.6% of the tune lines for the same, the smallest character
    /// probability 15%. In integers (every line of the 73 bench pages, "16-bit products on
    /// AVX2"): 8 of 3,048 tune lines and 5 of 2,826 measure lines read otherwise than fp32, the
    /// widest gap 0.031; 0.05 reads 2.1% and 1.8% of the lines again and catches all 13.
    public var recheckGap: Float = 0.05

    public init() {}

    /// Whether a line the quick recogniser read so is read again by the exact one.
    public func readsAgain(_ line: DecodedLine) -> Bool {
        line.smallestDecisiveGap < recheckGap
    }

    /// RapidOCR 3.10's reading throughout, its batching of lines included (the default too,
    /// said outright): for comparing Gloss's text with RapidOCR's line by line.
    public static var rapidOCR: ReadingPolicy {
        var policy = ReadingPolicy()
        policy.lineWidths = .rapidOCRChunks
        return policy
    }
}
