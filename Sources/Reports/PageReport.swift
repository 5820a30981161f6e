import GlossGeometry
import GlossTextRecognition

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
    }

    public struct Line: Codable, Sendable, Equatable {
        public var text: String
        public var box: PixelRect
        public var baseline: PixelBaseline?
    }

    /// Where the letters of a line sit, from its left end to its right end.
    public struct PixelBaseline: Codable, Sendable, Equatable {
        public var from: PixelPoint
        public var to: PixelPoint
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
    public var faces: [FaceReport]
    /// Wall time of each stage in milliseconds, in the order the stages ran.
    public var timings: StageTimings

    public var size: PixelSize { PixelSize(width: width, height: height) }

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
        self.words = text.words.map {
            Word(text: $0.text, confidence: ($0.confidence * 100).rounded() / 100, box: PixelRect($0.box, in: size))
        }
        self.lines = text.lines.map { line in
            Line(
                text: line.text, box: PixelRect(line.box, in: size),
                baseline: line.baseline.map {
                    PixelBaseline(from: PixelPoint($0.start, in: size).rounded, to: PixelPoint($0.end, in: size).rounded)
                })
        }
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
        self.faces = []
        self.timings = timings
    }

    private enum CodingKeys: String, CodingKey {
        case source, pageIndex, width, height, status, error, text, words, lines, faces, timings
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
        try container.encode(faces, forKey: .faces)
        try container.encode(timings, forKey: .timings)
    }
}

/// Milliseconds per stage, kept in the order the stages ran (a dictionary would shuffle them).
public struct StageTimings: Codable, Sendable, Equatable {
    public private(set) var stages: [(name: String, milliseconds: Double)] = []

    public init() {}

    public mutating func record(_ name: String, _ duration: Duration) {
        let milliseconds = Double(duration.components.seconds) * 1000
            + Double(duration.components.attoseconds) / 1e15
        stages.append((name, (milliseconds * 10).rounded() / 10))
    }

    public subscript(name: String) -> Double? { stages.first { $0.name == name }?.milliseconds }

    public static func == (a: StageTimings, b: StageTimings) -> Bool {
        a.stages.elementsEqual(b.stages) { $0.name == $1.name && $0.milliseconds == $1.milliseconds }
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
