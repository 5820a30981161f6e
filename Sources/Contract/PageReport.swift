import GlossGeometry

/// What became of a page.
public enum PageStatus: String, Codable, Sendable {
    case ok, failed, timedOut, cancelled
}

/// The page JSON contract: one page's text, boxes and faces in page pixels with a top-left
/// origin (the convention of hOCR and ALTO). Later versions add fields, never remove or rename.
///
/// This is the edge where the normalised currency of the recognisers becomes pixels, once.
public struct PageReport: Codable, Sendable, Equatable {
    public struct Word: Codable, Sendable, Equatable {
        public var text: String
        public var confidence: Double
        public var box: PixelRect
        /// Index into `lines` of the line holding the word.
        public var line: Int
        /// Who corrected the word and when ([corrections](corrections.md)); nil for a word as
        /// its reader read it. In JSON: `corrected: true`, `correctedBy`, `correctedAt`, present
        /// only on corrected words.
        public var correction: Attribution?

        public init(text: String, confidence: Double, box: PixelRect, line: Int, correction: Attribution? = nil) {
            self.text = text
            self.confidence = confidence
            self.box = box
            self.line = line
            self.correction = correction
        }

        private enum CodingKeys: String, CodingKey {
            case text, confidence, box, line, corrected, correctedBy, correctedAt
        }

        /// Reads pages written before words named their line: those all belong to line 0.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            confidence = try container.decode(Double.self, forKey: .confidence)
            box = try container.decode(PixelRect.self, forKey: .box)
            line = try container.decodeIfPresent(Int.self, forKey: .line) ?? 0
            if try container.decodeIfPresent(Bool.self, forKey: .corrected) == true {
                correction = Attribution(by: try container.decodeIfPresent(String.self, forKey: .correctedBy) ?? "",
                                         at: try container.decodeIfPresent(String.self, forKey: .correctedAt) ?? "")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(confidence, forKey: .confidence)
            try container.encode(box, forKey: .box)
            try container.encode(line, forKey: .line)
            if let correction {
                try container.encode(true, forKey: .corrected)
                try container.encode(correction.by, forKey: .correctedBy)
                try container.encode(correction.at, forKey: .correctedAt)
            }
        }
    }

    public struct Line: Codable, Sendable, Equatable {
        public var text: String
        public var box: PixelRect
        public var baseline: PixelBaseline?
        /// Index into `paragraphs` of the paragraph holding the line.
        public var paragraph: Int
        /// Which reader's words the line holds, on a page more than one reader read; absent
        /// otherwise and from older reports.
        public var reader: LineReader?

        public init(text: String, box: PixelRect, baseline: PixelBaseline?, paragraph: Int, reader: LineReader? = nil) {
            self.text = text
            self.box = box
            self.baseline = baseline
            self.paragraph = paragraph
            self.reader = reader
        }

        /// Reads pages written before lines named their paragraph: those all belong to paragraph 0.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            box = try container.decode(PixelRect.self, forKey: .box)
            baseline = try container.decodeIfPresent(PixelBaseline.self, forKey: .baseline)
            paragraph = try container.decodeIfPresent(Int.self, forKey: .paragraph) ?? 0
            reader = try container.decodeIfPresent(LineReader.self, forKey: .reader)
        }
    }

    /// A paragraph as Tesseract found it; hOCR's `ocr_par`, a TSV level-3 row.
    public struct Paragraph: Codable, Sendable, Equatable {
        public var box: PixelRect
        /// Index into `blocks` of the block holding the paragraph.
        public var block: Int

        public init(box: PixelRect, block: Int) {
            self.box = box
            self.block = block
        }
    }

    /// A block of text as Tesseract's layout analysis found it; hOCR's `ocr_carea`.
    public struct Block: Codable, Sendable, Equatable {
        public var box: PixelRect

        public init(box: PixelRect) { self.box = box }
    }

    /// Where the letters of a line sit, from its left end to its right end.
    public struct PixelBaseline: Codable, Sendable, Equatable {
        public var from: PixelPoint
        public var to: PixelPoint

        public init(from: PixelPoint, to: PixelPoint) {
            self.from = from
            self.to = to
        }

        /// Rise per pixel to the right (down is positive, as in page pixels); 0 for a vertical one.
        public var slope: Double {
            let run = to.x - from.x
            return run == 0 ? 0 : (to.y - from.y) / run
        }

        /// The baseline's height at `x`, extended past its ends along its slope.
        public func y(atX x: Double) -> Double { from.y + slope * (x - from.x) }
    }

    public var source: String
    public var pageIndex: Int
    /// The upright size in pixels: EXIF orientation applied.
    public var width: Int
    public var height: Int
    public var status: PageStatus
    public var error: String?
    public var text: String
    public var words: [Word]
    public var lines: [Line]
    /// The layout above lines, so hOCR, ALTO and TSV keep Tesseract's structure. Pages written
    /// before these fields existed read back with both empty; the renderers then treat the
    /// page as one block of one paragraph.
    public var paragraphs: [Paragraph]
    public var blocks: [Block]
    public var faces: [FaceReport]
    /// What other analyzers marked, by kind. Pages from older reports read back with none.
    public var regions: [RegionReport] = []
    /// Wall time of each stage in milliseconds, in the order the stages ran.
    public var timings: StageTimings
    /// When each stage started and ended, in milliseconds from the page's start: shows which
    /// stages overlapped (text and faces run at once). Empty for pages from older reports.
    public var timeline: [StageSpan] = []
    /// The text the page already held before Gloss read it (a PDF's text layer), as its PDF
    /// reader extracts it; nil for images and for PDF pages without text. With `--skip-text`
    /// it is also the page's `words` and `lines`.
    public var existingText: String?
    /// Why the searchable PDF of the page's document is not PDF/A-2b although that standard
    /// was asked (a PDF input with JavaScript, fonts not embedded, transparency…); nil for
    /// every other page.
    public var archiveRefusal: String?
    /// Signs that the page needs a reviewer's eye; nil when not measured (older reports, pages
    /// without text recognition).
    public var review: PageReview?
    /// What was done to the page before its text was read; nil when nothing was tried
    /// (`--prepare none`, older reports).
    public var preparation: PagePreparation?
    /// Who marked the page reviewed, and when; nil while nobody has ([corrections](corrections.md)).
    public var reviewed: Attribution?

    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// How a page is named in titles, the index and search results.
    public static func title(source: String, pageIndex: Int) -> String { "\(source) · page \(pageIndex + 1)" }

    public var title: String { Self.title(source: source, pageIndex: pageIndex) }

    /// The mean word confidence, nil for a page without words.
    public var meanConfidence: Double? { RecognizedText.mean(of: words.map(\.confidence)) }

    /// A page that was read: what its analyzers found, converted from normalised boxes to
    /// pixels of `size`. This is the one place where the currency becomes pixels.
    public init(source: String, pageIndex: Int, size: PixelSize, findings: PageFindings, timings: StageTimings) {
        self.init(source: source, pageIndex: pageIndex, size: size, text: findings.text,
                  faces: findings.faces.map { FaceReport($0, in: size) }, timings: timings)
        regions = findings.regions.map { RegionReport($0, in: size) }
        review = findings.review
        preparation = findings.preparation
    }

    /// A page that was read: its text converted from normalised boxes to pixels of `size`.
    public init(
        source: String, pageIndex: Int, size: PixelSize, text: RecognizedText,
        faces: [FaceReport] = [], timings: StageTimings
    ) {
        self.source = source
        self.pageIndex = pageIndex
        self.width = size.width
        self.height = size.height
        self.status = .ok
        self.error = nil
        self.text = text.text
        var blocks: [Block] = [], paragraphs: [Paragraph] = [], lines: [Line] = [], words: [Word] = []
        for block in text.blocks {
            blocks.append(Block(box: PixelRect(block.box, in: size)))
            for paragraph in block.paragraphs {
                paragraphs.append(Paragraph(box: PixelRect(paragraph.box, in: size), block: blocks.count - 1))
                for line in paragraph.lines {
                    let baseline = line.baseline.map {
                        PixelBaseline(from: PixelPoint($0.start, in: size).rounded, to: PixelPoint($0.end, in: size).rounded)
                    }
                    lines.append(Line(text: line.text, box: PixelRect(line.box, in: size), baseline: baseline,
                                      paragraph: paragraphs.count - 1, reader: line.reader))
                    for word in line.words {
                        words.append(Word(text: word.text, confidence: (word.confidence * 100).rounded() / 100,
                                          box: PixelRect(word.box, in: size), line: lines.count - 1))
                    }
                }
            }
        }
        self.blocks = blocks
        self.paragraphs = paragraphs
        self.lines = lines
        self.words = words
        self.faces = faces
        self.timings = timings
    }

    /// A page that could not be read, with the reason.
    public init(source: String, pageIndex: Int, status: PageStatus, error: String, timings: StageTimings = StageTimings()) {
        self.source = source
        self.pageIndex = pageIndex
        self.width = 0
        self.height = 0
        self.status = status
        self.error = error
        self.text = ""
        self.words = []
        self.lines = []
        self.paragraphs = []
        self.blocks = []
        self.faces = []
        self.timings = timings
    }

    private enum CodingKeys: String, CodingKey {
        case source, pageIndex, width, height, status, error, text, words, lines, paragraphs, blocks, faces, timings
        case timeline, regions, existingText, archiveRefusal, review, preparation, reviewed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        source = try container.decode(String.self, forKey: .source)
        pageIndex = try container.decode(Int.self, forKey: .pageIndex)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        status = try container.decode(PageStatus.self, forKey: .status)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        text = try container.decode(String.self, forKey: .text)
        words = try container.decode([Word].self, forKey: .words)
        lines = try container.decode([Line].self, forKey: .lines)
        paragraphs = try container.decodeIfPresent([Paragraph].self, forKey: .paragraphs) ?? []
        blocks = try container.decodeIfPresent([Block].self, forKey: .blocks) ?? []
        faces = try container.decode([FaceReport].self, forKey: .faces)
        timings = try container.decode(StageTimings.self, forKey: .timings)
        timeline = try container.decodeIfPresent([StageSpan].self, forKey: .timeline) ?? []
        regions = try container.decodeIfPresent([RegionReport].self, forKey: .regions) ?? []
        existingText = try container.decodeIfPresent(String.self, forKey: .existingText)
        archiveRefusal = try container.decodeIfPresent(String.self, forKey: .archiveRefusal)
        review = try container.decodeIfPresent(PageReview.self, forKey: .review)
        preparation = try container.decodeIfPresent(PagePreparation.self, forKey: .preparation)
        reviewed = try container.decodeIfPresent(Attribution.self, forKey: .reviewed)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(pageIndex, forKey: .pageIndex)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(status, forKey: .status)
        // The contract spells a missing error as null rather than leaving the key out.
        if let error { try container.encode(error, forKey: .error) } else { try container.encodeNil(forKey: .error) }
        try container.encode(text, forKey: .text)
        try container.encode(words, forKey: .words)
        try container.encode(lines, forKey: .lines)
        try container.encode(paragraphs, forKey: .paragraphs)
        try container.encode(blocks, forKey: .blocks)
        try container.encode(faces, forKey: .faces)
        try container.encode(regions, forKey: .regions)
        try container.encode(timings, forKey: .timings)
        try container.encode(timeline, forKey: .timeline)
        // Only for pages that hold text of their own: other pages' JSON is as before.
        try container.encodeIfPresent(existingText, forKey: .existingText)
        try container.encodeIfPresent(archiveRefusal, forKey: .archiveRefusal)
        try container.encodeIfPresent(review, forKey: .review)
        try container.encodeIfPresent(preparation, forKey: .preparation)
        try container.encodeIfPresent(reviewed, forKey: .reviewed)
    }
}

/// One stage's place in time, in milliseconds from the start of its page.
public struct StageSpan: Codable, Sendable, Equatable {
    public var stage: String
    public var start: Double
    public var end: Double

    public init(stage: String, start: Double, end: Double) {
        self.stage = stage
        self.start = start
        self.end = end
    }
}

/// Milliseconds per stage, kept in the order the stages ran (a dictionary would shuffle them).
public struct StageTimings: Codable, Sendable, Equatable {
    public private(set) var stages: [(name: String, milliseconds: Double)] = []

    public init() {}

    public mutating func record(_ name: String, _ duration: Duration) {
        stages.append((name, duration.milliseconds))
    }

    public mutating func record(_ name: String, milliseconds: Double) {
        stages.append((name, milliseconds))
    }

    public subscript(name: String) -> Double? { stages.first { $0.name == name }?.milliseconds }

    /// Equal when every stage took the same time; the order is not part of it (JSON objects,
    /// which the timings are stored as, have none).
    public static func == (a: StageTimings, b: StageTimings) -> Bool {
        a.stages.count == b.stages.count && a.stages.allSatisfy { stage in b[stage.name] == stage.milliseconds }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        stages = try container.allKeys.map { ($0.stringValue, try container.decode(Double.self, forKey: $0)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for stage in stages { try container.encode(stage.milliseconds, forKey: Key(stringValue: stage.name)) }
    }
}

extension PixelPoint {
    /// Rounded to a tenth of a pixel: finer is noise, and keeps the JSON short.
    var rounded: PixelPoint { PixelPoint(x: (x * 10).rounded() / 10, y: (y * 10).rounded() / 10) }
}

extension JSONOutput {
    /// A page JSON file's report: it must decode, and lie near its page (`liesNearItsPage`),
    /// since every format is written from it.
    public static func decodePage(_ bytes: [UInt8]) throws -> PageReport {
        let report = try decode(PageReport.self, from: bytes)
        guard report.liesNearItsPage else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "its boxes lie far outside the page (damaged or edited)"))
        }
        return report
    }
}

extension PageReport {
    /// Whether every box and baseline of the page lies within a page's width and height of the
    /// page, and the page's own size is one a picture can have. A report Gloss made always
    /// does; one edited by hand or damaged may not, and its numbers (past Int64 when added)
    /// would trap in the formats written from it: such a page is read again, or refused.
    public var liesNearItsPage: Bool {
        guard width >= 0, height >= 0, width <= 1 << 24, height <= 1 << 24 else { return false }
        func near(_ box: PixelRect) -> Bool {
            box.width >= 0 && box.height >= 0 && box.width <= 3 * max(1, width) && box.height <= 3 * max(1, height)
                && abs(box.x) <= 2 * max(1, width) && abs(box.y) <= 2 * max(1, height)
        }
        func near(_ point: PixelPoint) -> Bool {
            point.x.isFinite && point.y.isFinite && abs(point.x) <= 2 * Double(max(1, width)) && abs(point.y) <= 2 * Double(max(1, height))
        }
        return words.allSatisfy { near($0.box) } && lines.allSatisfy { near($0.box) && ($0.baseline.map { near($0.from) && near($0.to) } ?? true) }
            && paragraphs.allSatisfy { near($0.box) } && blocks.allSatisfy { near($0.box) } && faces.allSatisfy { near($0.box) }
            && regions.allSatisfy { near($0.box) }
    }
}
