import GlossContract
import GlossGeometry
import GlossReading

/// A page reader that gives a reading made in advance, and counts its calls.
struct FakePage: PageTextReader {
    var text: RecognizedText
    private(set) var reads = 0

    init(_ lines: [TextLine]) {
        text = RecognizedText(blocks: [TextBlock(box: .enclosing(lines.map(\.box)),
                                                 paragraphs: [TextParagraph(box: .enclosing(lines.map(\.box)), lines: lines)])])
    }

    /// The plan's word on the page's way up at each read.
    private(set) var settled: [Bool] = []
    /// The share of the page's ink in text-like rows no word covers, as the page reader says.
    var uncovered = 0.0

    func uncoveredText(of text: RecognizedText) -> Double { uncovered }

    mutating func readPage(cancellation: CancellationFlag) throws -> RecognizedText {
        reads += 1
        return text
    }

    mutating func readPage(wayUpSettled: Bool, cancellation: CancellationFlag) throws -> RecognizedText {
        settled.append(wayUpSettled)
        return try readPage(cancellation: cancellation)
    }
}

/// A detector and line reader that find the lines given and read each as given, and record
/// which lines they were asked to read.
struct FakeLines: LineDetecting, LineTextReading {
    var lines: [LineSignals]
    /// The reading of each line by index; a line absent reads as nothing.
    var readings: [Int: TextLine]
    private(set) var detections = 0
    private(set) var asked: [Int] = []
    /// The word height each detection was given.
    private(set) var wordHeights: [Double?] = []

    init(lines: [LineSignals], readings: [Int: TextLine]) {
        self.lines = lines
        self.readings = readings
    }

    mutating func detectLines(wordHeight: Double?, cancellation: CancellationFlag) throws -> [LineSignals] {
        detections += 1
        wordHeights.append(wordHeight)
        return lines
    }

    mutating func readLines(_ indices: [Int], cancellation: CancellationFlag) throws -> [TextLine?] {
        asked += indices
        return indices.map { readings[$0] }
    }
}

/// Boxes and words on a page of rows a tenth of the page tall, numbered from the top.
enum Page {
    static func row(_ row: Int, from left: Double = 0.1, to right: Double = 0.9) -> NormalizedRect {
        NormalizedRect(x: left, y: 0.9 - 0.1 * Double(row), width: right - left, height: 0.05)
    }

    /// A word in `row`, between `left` and `right`.
    static func word(_ text: String, row: Int, from left: Double, to right: Double, confidence: Double) -> RecognizedWord {
        RecognizedWord(text: text, box: Self.row(row, from: left, to: right), confidence: confidence)
    }

    static func line(_ words: [RecognizedWord]) -> TextLine {
        TextLine(box: .enclosing(words.map(\.box)), baseline: nil, words: words)
    }

    static let signals = PageSignals(size: PixelSize(width: 1000, height: 1000), statedResolution: 300, letterSize: nil)
}
