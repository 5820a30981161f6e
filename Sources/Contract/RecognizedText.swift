import GlossGeometry

/// The text of one page as Tesseract structures it: blocks, paragraphs, lines, words.
///
/// Every box is in the normalised currency (0...1, origin bottom left), so the result does not
/// depend on the size of the image it was recognised from.
public struct RecognizedText: Sendable, Equatable {
    public var blocks: [TextBlock]

    public init(blocks: [TextBlock] = []) { self.blocks = blocks }

    public var paragraphs: [TextParagraph] { blocks.flatMap(\.paragraphs) }
    public var lines: [TextLine] { paragraphs.flatMap(\.lines) }
    public var words: [RecognizedWord] { lines.flatMap(\.words) }

    /// Tesseract's mean word confidence, 0...100; nil without words.
    public var meanConfidence: Double? { Self.mean(of: words.map(\.confidence)) }

    /// Whether Tesseract is more sure of this reading of a page than of `other`, another
    /// reading of the same page (turned, scaled or told another resolution): how Gloss picks
    /// between two readings when a preparation step is in doubt. A reading with no words loses.
    public func isMoreConfident(than other: RecognizedText) -> Bool {
        guard !words.isEmpty else { return false }
        return other.words.isEmpty || evidence > other.evidence
    }

    /// The mean word confidence as if `Self.priorWords` words of confidence 50 had been read
    /// too: a reading of a word or two is little evidence, and a map read on its side as the
    /// one word `2` at 90 must not win over the dozens of words read with the map stood up. On
    /// a page's worth of words it is the mean within a point or two.
    private var evidence: Double {
        let confidences = words.map(\.confidence)
        return (confidences.reduce(0, +) + 50 * Self.priorWords) / (Double(confidences.count) + Self.priorWords)
    }

    private static let priorWords = 5.0

    /// The mean of word confidences (or their calibrated probabilities), nil for none: one
    /// formula for a recognition, a report and the reading plan.
    public static func mean(of confidences: [Double]) -> Double? {
        confidences.isEmpty ? nil : confidences.reduce(0, +) / Double(confidences.count)
    }

    /// The page text: lines separated by a newline, paragraphs by an empty line.
    public var text: String {
        paragraphs.map { $0.lines.map(\.text).joined(separator: "\n") }.joined(separator: "\n\n")
    }
}

public struct TextBlock: Sendable, Equatable {
    public var box: NormalizedRect
    public var paragraphs: [TextParagraph]

    public init(box: NormalizedRect, paragraphs: [TextParagraph]) {
        self.box = box
        self.paragraphs = paragraphs
    }
}

public struct TextParagraph: Sendable, Equatable {
    public var box: NormalizedRect
    public var lines: [TextLine]

    public init(box: NormalizedRect, lines: [TextLine]) {
        self.box = box
        self.lines = lines
    }
}

public struct TextLine: Sendable, Equatable {
    public var box: NormalizedRect
    /// The line the letters sit on, from its left end to its right end; nil when Tesseract gave none.
    public var baseline: Baseline?
    public var words: [RecognizedWord]
    /// Which reader's words these are, when a page is read by more than one (`--text
    /// accurate`); nil when one reader read the whole page.
    public var reader: LineReader?

    public init(box: NormalizedRect, baseline: Baseline?, words: [RecognizedWord], reader: LineReader? = nil) {
        self.box = box
        self.baseline = baseline
        self.words = words
        self.reader = reader
    }

    public var text: String { words.map(\.text).joined(separator: " ") }
}

/// The readers whose lines a page may hold, by the names the page JSON records.
public enum LineReader: String, Codable, Sendable, CaseIterable {
    /// Tesseract, through its C API.
    case tesseract
    /// PP-OCRv6 in Gloss's own network code.
    case neural
}

public struct Baseline: Sendable, Equatable {
    public var start: NormalizedPoint
    public var end: NormalizedPoint

    public init(start: NormalizedPoint, end: NormalizedPoint) {
        self.start = start
        self.end = end
    }
}

public struct RecognizedWord: Sendable, Equatable {
    public var text: String
    public var box: NormalizedRect
    /// Tesseract's confidence, 0...100.
    public var confidence: Double

    public init(text: String, box: NormalizedRect, confidence: Double) {
        self.text = text
        self.box = box
        self.confidence = confidence
    }
}
