import GlossContract
import GlossImaging
import GlossNeuralReading

/// A reader that reads a whole page with its own layout (Tesseract).
public protocol PageTextReader {
    /// The page's text, boxes in the one currency; throws `CancellationError` once
    /// `cancellation` is raised.
    mutating func readPage(cancellation: CancellationFlag) throws -> RecognizedText
    /// The same, read only the way the page was given when `wayUpSettled` (the plan's
    /// `lines-settle-way-up`), though its way up was in doubt.
    mutating func readPage(wayUpSettled: Bool, cancellation: CancellationFlag) throws -> RecognizedText
    /// The share of the page's ink, 0...1, that lies in rows of letter-sized marks no word of
    /// `text` covers: text its layout dropped (`InkCoverage.textShare`).
    func uncoveredText(of text: RecognizedText) -> Double
}

extension PageTextReader {
    /// A reader that never reads a page another way reads it alike either way.
    public mutating func readPage(wayUpSettled: Bool, cancellation: CancellationFlag) throws -> RecognizedText {
        try readPage(cancellation: cancellation)
    }
}

/// Finds a page's lines (the neural detector).
public protocol LineDetecting {
    /// The page's lines, in the detector's order; the indices `LineTextReading` is asked for
    /// are into this list. `wordHeight`: the median height of the words a first reading read
    /// surely, in the page's pixels (`FusionPolicy.sureWordHeight`), which sizes the detector.
    mutating func detectLines(wordHeight: Double?, cancellation: CancellationFlag) throws -> [LineSignals]
}

/// Reads lines already found (the neural recogniser).
public protocol LineTextReading {
    /// One reading per index of `lines` (into the detected lines), in that order: nil where the
    /// reader found no text it trusts.
    mutating func readLines(_ lines: [Int], cancellation: CancellationFlag) throws -> [TextLine?]
}

/// The neural reader over one page: it detects the page's lines once, then reads those asked for.
public struct NeuralLines: LineDetecting, LineTextReading {
    public let reader: NeuralReader
    public let raster: Raster
    /// The lines `detectLines` found, kept with their crops for reading.
    public private(set) var found: [FoundLine] = []

    public init(reader: NeuralReader, raster: Raster) {
        self.reader = reader
        self.raster = raster
    }

    public mutating func detectLines(wordHeight: Double?, cancellation: CancellationFlag) throws -> [LineSignals] {
        found = try reader.detect(raster: raster, wordHeight: wordHeight, cancellation: cancellation)
        return found.map { LineSignals($0, page: raster.size) }
    }

    public mutating func readLines(_ lines: [Int], cancellation: CancellationFlag) throws -> [TextLine?] {
        try reader.read(lines: lines.map { found[$0] }, in: raster, cancellation: cancellation)
    }
}
