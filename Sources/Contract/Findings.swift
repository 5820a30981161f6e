import GlossGeometry

/// Something an analyzer marked on a page that is neither text nor a face: a stamp, a figure,
/// a dark patch. The general form of a finding, so a new analyzer reaches the page JSON, the
/// overlay and the index without a change to any of them.
public struct Region: Hashable, Sendable {
    /// What the analyzer calls this kind of region (`stamp`, `figure`); the overlay and the
    /// index group by it.
    public var kind: String
    /// Normalised, origin bottom left, like every analyzer's boxes.
    public var box: NormalizedRect
    /// Text a person reads beside the box; nil when the kind says it all.
    public var label: String?
    /// 0...1 on the analyzer's own scale; nil when it has none.
    public var confidence: Double?

    public init(kind: String, box: NormalizedRect, label: String? = nil, confidence: Double? = nil) {
        self.kind = kind
        self.box = box
        self.label = label
        self.confidence = confidence
    }
}

/// What the analyzers found on one page, still in the normalised currency. Each analyzer fills
/// its part; the page's findings are merged, then converted to page pixels once, by
/// `PageReport(source:pageIndex:size:findings:timings:)`.
public struct PageFindings: Sendable, Equatable {
    public var text: RecognizedText
    public var faces: [Face]
    public var regions: [Region]
    /// What the text analyzer measured for review (ink without words); nil when not measured.
    public var review: PageReview?
    /// What was done to the page before it was read; nil when nothing was tried.
    public var preparation: PagePreparation?
    /// What the parts of an analyzer's work took (the neural reader's `detect` and
    /// `recognize`), added to the page's timings beside the analyzer's own stage.
    public var timings = StageTimings()

    public init(text: RecognizedText = RecognizedText(), faces: [Face] = [], regions: [Region] = [],
                review: PageReview? = nil, preparation: PagePreparation? = nil) {
        self.text = text
        self.faces = faces
        self.regions = regions
        self.review = review
        self.preparation = preparation
    }

    /// Adds another analyzer's findings: text blocks, faces and regions are appended in turn.
    public mutating func merge(_ other: PageFindings) {
        text.blocks += other.text.blocks
        faces += other.faces
        regions += other.regions
        review = review ?? other.review
        for stage in other.timings.stages { timings.record(stage.name, milliseconds: stage.milliseconds) }
        if let theirs = other.preparation { preparation = preparation.map { $0.merged(with: theirs) } ?? theirs }
    }
}
