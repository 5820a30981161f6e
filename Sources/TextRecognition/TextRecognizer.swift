import CTesseract
import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import Synchronization

/// Held while an engine is set up: `debug_file` is one of Tesseract's process-wide settings,
/// a string every engine shares, and lanes build their engines on their own threads.
let tesseractSetUp = Mutex(())

/// A Tesseract engine, loaded once and reused for many pages.
///
/// Loading a model costs about 100 ms and 10 MB, so a worker creates one recogniser and keeps
/// it. The type is deliberately not `Sendable`: one engine serves one thread at a time, and the
/// worker that creates it is the only one that uses it.
public final class TextRecognizer {
    let engine: OpaquePointer
    public let options: RecognitionOptions

    /// Loads the models for `options.languages`.
    public init(options: RecognitionOptions = RecognitionOptions()) throws {
        guard (0...13).contains(options.pageSegmentationMode) else {
            throw TextRecognitionError(.invalidPageSegmentationMode(options.pageSegmentationMode))
        }
        let dataPath = try Self.modelFolder(for: options)
        guard let engine = TessBaseAPICreate() else {
            throw TextRecognitionError(.engineFailed("cannot create an engine"))
        }
        self.engine = engine
        self.options = options
        // Silence the engine's own chatter; Gloss reports problems itself.
        let loaded = tesseractSetUp.withLock { _ in
            TessBaseAPISetVariable(engine, "debug_file", "/dev/null")
            return TessBaseAPIInit3(engine, dataPath, options.languages.joined(separator: "+")) == 0
        }
        try check(loaded, "cannot load language models \(options.languages.joined(separator: "+")) from \(dataPath)")
        TessBaseAPISetPageSegMode(engine, TessPageSegMode(UInt32(options.pageSegmentationMode)))
        // Every row is taken as proportional text: Tesseract's search for a fixed pitch (its
        // `FPCUTPT` lattice, 1.5% of a page's time) serves the legacy classifier's chopping,
        // and the LSTM finds a typewriter's words without it. On the 62 real pages of
        // `bench/ocr-quality`, F1 is the same on 58, on the typewritten page among them, and
        // moves by 0.009 at most (CER better on both receipts that move), for 1.6% less time.
        TessBaseAPISetVariable(engine, "textord_all_prop", "1")
    }

    deinit {
        TessBaseAPIEnd(engine)
        TessBaseAPIDelete(engine)
    }

    private var detector: OrientationDetector?
    private var detectorUnavailable = false

    /// Tesseract's orientation detector beside this recogniser, for a page whose way up its first
    /// reading leaves in doubt: loaded from the recogniser's model folder the first time it is
    /// asked for (about half a second) and kept for the pages after; nil when it does not load,
    /// and not tried again.
    public func orientationDetector() -> OrientationDetector? {
        if let detector { return detector }
        guard !detectorUnavailable else { return nil }
        do {
            detector = try OrientationDetector(dataPath: options.dataPath)
        } catch {
            detectorUnavailable = true
        }
        return detector
    }

    /// Below this many pixels across or down, an image holds no text to find.
    static let smallestLegibleSide = 6

    /// The Tesseract library version, for reports.
    public static var engineVersion: String { String(cString: TessVersion()) }

    /// Recognises the text of `image`. `resolution` is the page's pixels per inch as its file
    /// states it; raising `cancellation` stops the engine at its next check (after layout
    /// analysis, then about once per line) and this throws `CancellationError`.
    ///
    /// A colour page is handed over in colour, as the `tesseract` command hands it: Tesseract
    /// thresholds each channel on its own and keeps a pixel that is dark in any of them, so
    /// yellow text on white or a header on a coloured band survives, where one grey copy made
    /// first can flatten them into their background.
    ///
    /// The image is consumed: Tesseract works on a copy of its own, and a caller that passes
    /// the last reference has the page in memory once, not twice, while it is recognised.
    public func recognize(
        _ image: consuming Raster, resolution: Int?, cancellation: CancellationFlag? = nil
    ) throws -> RecognizedText {
        let page = consume image
        let size = page.size
        // Nothing legible fits in a strip a few pixels wide, and Tesseract's layout analysis
        // fails on one (a 1x100000 image) rather than finding nothing.
        guard size.width >= Self.smallestLegibleSide, size.height >= Self.smallestLegibleSide else { return RecognizedText() }
        OpenMP.runSingleThreadedOnThisThread()
        try check(page.withLeptonicaImage { TessBaseAPISetImage2(engine, UnsafeMutablePointer($0)) } != nil,
                  "no memory for a \(size.width)x\(size.height) image")
        _ = consume page
        TessBaseAPISetSourceResolution(engine, Int32(RecognitionOptions.effectiveResolution(resolution)))
        let monitor = Monitor(cancellation: cancellation)
        // The monitor lives through the call that reads it (its deinit deletes the C handle).
        let status = withExtendedLifetime(monitor) { TessBaseAPIRecognize(engine, monitor.handle) }
        defer { TessBaseAPIClear(engine) }
        if cancellation?.isRaised == true { throw CancellationError() }
        try check(status == 0, "recognition failed")
        return readResults { NormalizedRect($0, in: size) }
    }

    /// Walks Tesseract's result iterator word by word, opening a block, paragraph or line
    /// whenever the iterator says one begins. `place` turns a box in the pixels Tesseract was
    /// given into the page's normalised currency.
    func readResults(place: (PixelRect) -> NormalizedRect) -> RecognizedText {
        guard let results = TessBaseAPIGetIterator(engine) else { return RecognizedText() }
        defer { TessResultIteratorDelete(results) }
        let layout = TessResultIteratorGetPageIterator(results)!

        func box(_ level: TessPageIteratorLevel) -> NormalizedRect? {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard TessPageIteratorBoundingBox(layout, level, &left, &top, &right, &bottom) != 0 else { return nil }
            let pixels = PixelRect(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top))
            return place(pixels)
        }
        func lineBox() -> SIMD4<Int32> {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            _ = TessPageIteratorBoundingBox(layout, RIL_TEXTLINE, &left, &top, &right, &bottom)
            return SIMD4(left, top, right, bottom)
        }
        func baseline() -> Baseline? {
            var x1: Int32 = 0, y1: Int32 = 0, x2: Int32 = 0, y2: Int32 = 0
            guard TessPageIteratorBaseline(layout, RIL_TEXTLINE, &x1, &y1, &x2, &y2) != 0 else { return nil }
            // A point is placed as the corner of an empty box.
            func point(_ x: Int32, _ y: Int32) -> NormalizedPoint {
                let corner = place(PixelRect(x: Int(x), y: Int(y), width: 0, height: 0))
                return NormalizedPoint(x: corner.minX, y: corner.maxY)
            }
            return Baseline(start: point(x1, y1), end: point(x2, y2))
        }

        var page = RecognizedText()
        var lastLine = SIMD4<Int32>(repeating: -1)
        repeat {
            guard let textPointer = TessResultIteratorGetUTF8Text(results, RIL_WORD) else { continue }
            let text = String(cString: textPointer).trimmingCharacters(in: .whitespacesAndNewlines)
            TessDeleteText(textPointer)
            guard !text.isEmpty, let wordBox = box(RIL_WORD) else { continue }
            // Asking the result iterator whether a line begins walks the page from its start to
            // the line (its reading-order logic), a cost that grows with the square of the words
            // on the page: 7 ms of an A4 page's 20 for reading results. A line's box is read
            // straight from the line, and no two lines have the same one. A block or a paragraph
            // can only begin where a line begins, so they are asked about only there.
            let line = lineBox()
            let newLine = page.blocks.isEmpty || line != lastLine
            lastLine = line
            let newParagraph = newLine && (page.blocks.isEmpty || TessPageIteratorIsAtBeginningOf(layout, RIL_PARA) != 0)
            if newParagraph && (page.blocks.isEmpty || TessPageIteratorIsAtBeginningOf(layout, RIL_BLOCK) != 0) {
                page.blocks.append(TextBlock(box: box(RIL_BLOCK) ?? wordBox, paragraphs: []))
            }
            var block = page.blocks.removeLast()
            if block.paragraphs.isEmpty || newParagraph {
                block.paragraphs.append(TextParagraph(box: box(RIL_PARA) ?? wordBox, lines: []))
            }
            var paragraph = block.paragraphs.removeLast()
            if paragraph.lines.isEmpty || newLine {
                paragraph.lines.append(TextLine(box: box(RIL_TEXTLINE) ?? wordBox, baseline: baseline(), words: []))
            }
            let confidence = Double(TessResultIteratorConfidence(results, RIL_WORD))
            paragraph.lines[paragraph.lines.count - 1].words.append(
                RecognizedWord(text: text, box: wordBox, confidence: min(100, max(0, confidence))))
            block.paragraphs.append(paragraph)
            page.blocks.append(block)
        } while TessPageIteratorNext(layout, RIL_WORD) != 0
        return page
    }

    /// Throws the `missingLanguage` error an engine for `options` would, without making one:
    /// how a batch refuses a language it has no model for before it writes anything.
    public static func checkModels(for options: RecognitionOptions) throws {
        _ = try modelFolder(for: options)
    }

    /// The folder holding a model for every requested language, or an error naming the missing one.
    static func modelFolder(for options: RecognitionOptions) throws -> String {
        var candidates: [String] = []
        if let path = options.dataPath {
            candidates = [path]
        } else {
            if let prefix = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"] {
                candidates.append(prefix)
                candidates.append(prefix + "/tessdata")
            }
            candidates += ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"]
        }
        for language in options.languages {
            guard candidates.contains(where: { hasModel(language, in: $0) }) else {
                throw TextRecognitionError(.missingLanguage(language, searched: candidates))
            }
        }
        return candidates.first { folder in options.languages.allSatisfy { hasModel($0, in: folder) } }
            ?? candidates[0]
    }

    private static func hasModel(_ language: String, in folder: String) -> Bool {
        FileManager.default.fileExists(atPath: folder + "/" + language + ".traineddata")
    }
}

/// The one place a Tesseract status is turned into an error.
func check(_ succeeded: Bool, _ what: @autoclosure () -> String) throws {
    guard succeeded else { throw TextRecognitionError(.engineFailed(what())) }
}

/// Owns a Tesseract progress monitor whose cancel callback reads a `CancellationFlag`.
final class Monitor {
    let handle: OpaquePointer

    init(cancellation: CancellationFlag?) {
        handle = TessMonitorCreate()
        guard let cancellation else { return }
        TessMonitorSetCancelThis(handle, Unmanaged.passUnretained(cancellation).toOpaque())
        TessMonitorSetCancelFunc(handle) { context, _ in
            guard let context else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(context).takeUnretainedValue().isRaised
        }
        self.cancellation = cancellation
    }

    /// Keeps the flag alive for as long as Tesseract may call back with its address.
    private var cancellation: CancellationFlag?

    deinit { TessMonitorDelete(handle) }
}
