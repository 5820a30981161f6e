/// The thresholds of `ReadingOrder`, each in line heights (the median height of the page's
/// lines, measured across the line, not along the page's axes), so that one value serves a
/// receipt photographed close and a filing scanned at 300 ppi. The measurements behind them are
/// in `docs/reading.md` ("Reading order").
public struct LayoutPolicy: Sendable, Equatable {
    /// A vertical strip at least this wide that no line crosses, running the whole height of a
    /// region, is a gutter between columns. Tune half, CER: 0.189 at 0.25, 0.211 at 1.0, 0.219
    /// at 1.5; narrower gutters split receipts' items from their prices (0.118 at 0.25 against
    /// 0.037), and 0.25 is worse on the measured half (0.258 against 0.241).
    public var columnGap = 1.0
    /// A gutter divides a region into columns only when each side holds at least this many
    /// lines; a smaller region is cut between its rows first, so a short table is read row by
    /// row and a column of text stays whole. Tune half, CER: 0.258 at 3, 0.219 at 6, 0.211 at
    /// 15, 0.210 at 20, 0.226 at 60.
    public var minimumColumnLines = 15
    /// The part of a line's height, top and bottom each, that may overlap the next line's and
    /// still leave a row gap between them: the detector's boxes are grown (DB's unclipping), so
    /// lines set close touch. Tune half: CER within 0.001 from 0 to 0.15.
    public var rowOverlap = 0.05
    /// In a region whose rows overlap from top to bottom, a line whose middle is more than this
    /// below the one before (taken by their middles) starts a row. Receipts, CER: tune half
    /// 0.235 without such rows (read as cells, column by column), 0.037 at 0.5; measured half
    /// 0.192 and 0.051 (all pages 0.269 and 0.241).
    public var rowPitch = 0.5
    /// Two lines of a block are in different paragraphs when the space between them exceeds
    /// the page's usual space between lines by this much.
    public var paragraphGap = 0.5
    /// A line that starts at least this much to the right of its block's left edge, after a
    /// line that does not, begins a paragraph (a first-line indent).
    public var indent = 1.2
    /// Lines at least this long vote with their baseline's angle on the page's tilt; shorter
    /// ones (a number, a word) have too short a baseline to say.
    public var tiltVoterLength = 4.0

    public init() {}
}
