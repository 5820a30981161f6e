import GlossContract

/// Every threshold of the reading plan, each with the measurement behind it: the one value
/// the plan and the fusion read their numbers from. `version` enters the settings'
/// fingerprint, so a batch read under one policy is read again under another.
///
/// Named apart from `ReadingPolicy`, which is the neural reader's own (RapidOCR's defaults).
public struct FusionPolicy: Sendable, Equatable {
    /// Raised with every change of a threshold or a scale below, and of `preparation`'s
    /// decisions for `accurate` alone (4: `uprightLines`, a doubted way up settled by the lines;
    /// 5: `surePageLines` and `surePageText`, a sure page read by Tesseract alone; 6: the
    /// detector sized from the words Tesseract read surely, `fewestSizingWords`; 7: a sure word
    /// outside the lines that the line reader read too kept once; 8: words held by the lines'
    /// quadrilaterals, not the upright boxes around them).
    public var version = 8

    /// A detected line whose Tesseract words' mean calibrated probability is under this is read
    /// by the neural reader too, and the reading of higher probability kept. Measured by
    /// `bench/reading/simulate.py --orphans sure --bar 0.96` on 73 real pages: the cheap end of
    /// a flat optimum on the tune half (0.94 to 1.01 within 0.005 F1), F1 tune / measure
    /// 0.967 / 0.965 with the recogniser on 34% / 33% of the lines, against 0.965 / 0.962 for
    /// the neural reader on every line and 0.893 / 0.908 for Tesseract alone.
    public var unsureLine = 0.96

    /// A Tesseract word belongs to the detected line whose quadrilateral holds the largest share of its box,
    /// when that share is at least this; else it lies outside every line. Half: a word is in
    /// the line that holds most of it (the simulation's `--min-share 0.5`, not swept).
    public var wordInLine = 0.5

    /// A Tesseract word on no detected line is kept only at this calibrated probability or
    /// above: such words are 1.3% of Tesseract's on the bench, mostly rules and specks of
    /// pictures read as letters. Keeping only the sure ones (`--orphans sure`) against keeping
    /// all: F1 0.967 / 0.965 against 0.964 / 0.959 (tune / measure) at the same bar.
    public var sureOutsideWord = 0.9

    /// The fused lines take the page reader's order when at least this share of them are its
    /// own (its layout saw the page), else the geometric order. Measured on the 73 bench pages
    /// (CER, tune / measure): the geometry alone 0.161 / 0.231 (magazines, multi-column pages
    /// and tables read column after column), the page reader's order alone 0.187 / 0.188
    /// (receipts and photos it half read), chosen at 0.6 (best on tune; 0.5 to 0.7 within
    /// 0.02) 0.121 / 0.165, against the CLI's 0.286 / 0.339.
    public var pageReaderOrderFrom = 0.6

    /// A page whose way up the orientation detectors doubted is read by Tesseract only the way it
    /// was given when at least this share of its detected lines (and `linesToSettle` of them)
    /// stand upright (`LineSignals.standsUpright`): the second reading of a doubted page
    /// (`SecondReadings`) then costs a whole Tesseract reading for nothing. Not swept: a page
    /// on its side has standing lines and one on its head lines the classifier turns over, so
    /// 0.9 leaves room for a few stray lines only. Measured by `bench/reading/cost.py
    /// --baseline` (each page read by both builds side by side): CPU a page 0.933x (tune) and
    /// 0.981x (measure), F1 0.970 / 0.961 and CER 0.120 -> 0.119 / 0.166 unchanged; on the 27
    /// tune copies turned three ways (`rules.py turned`), F1 0.955 and CER 0.247 unchanged.
    public var uprightLines = 0.9
    /// Fewer detected lines than this settle nothing.
    public var linesToSettle = 5

    /// Tesseract's first reading of a page, made the way it was given, stands alone (`sure-page`:
    /// the detector is not run) when every line it read is sure (`unsureLine`), it read at least
    /// `surePageLines` lines, at most `surePageText` of the page's ink lies in text-like rows
    /// without words (`InkCoverage.textShare`), and a doubted way up is settled by the reading
    /// itself (`SecondReadings.settlesWayUp`). Such a page loses nothing the detector would
    /// have added: every line it found would be kept as Tesseract read it, and no text-like ink
    /// was left unread. Not swept: on the 73 bench pages every page Tesseract read surely had 4
    /// to 8 lines and no such ink, so any bar up to 4 lines and from 0 ink fires on the same
    /// pages; the bars keep a page of one or two lines (a photograph's caption) or with ink
    /// unread from standing on so little. Measured in docs/reading-measured.md ("What `accurate` costs").
    public var surePageLines = 3
    public var surePageText = 0.02

    /// The detector's input is sized from the words of Tesseract's first reading
    /// (`DetectionPolicy.shrinkingWordHeight`) when it read at least this many surely
    /// (`unsureLine` or more, calibrated): the median height of fewer says little of the page's
    /// text (as `LetterSize.fewestLetters`; not swept). Otherwise RapidOCR's size is kept.
    public var fewestSizingWords = 20

    /// Tesseract's raw word confidence onto the one scale (`Fusion/Calibration.swift`).
    public var tesseractScale = Calibration.tesseract
    /// The neural reader's raw word confidence onto the one scale.
    public var neuralScale = Calibration.neural

    /// When Tesseract's own reading of the page is made a second time (`SecondReadings`).
    public var preparation = PreparationPolicy()

    public init() {}

    /// Whether `lines` settle a doubted page's way up as it was given (`uprightLines`).
    public func settlesWayUp(_ lines: [LineSignals]) -> Bool {
        lines.count >= linesToSettle && Double(lines.count { $0.standsUpright }) >= uprightLines * Double(lines.count)
    }

    /// The median height, in the page's pixels (`pageHeight` tall), of the words of `text`
    /// (Tesseract's reading) that are sure (`unsureLine`), for sizing the detector's input; nil
    /// when fewer than `fewestSizingWords` are.
    public func sureWordHeight(of text: RecognizedText, pageHeight: Int) -> Double? {
        let scale = scale(of: .tesseract)
        let heights = text.words.filter { scale.probability($0.confidence) >= unsureLine }
            .map { $0.box.height * Double(pageHeight) }.sorted()
        guard heights.count >= fewestSizingWords else { return nil }
        return heights[heights.count / 2]
    }

    /// The scale of `reader`'s confidences.
    public func scale(of reader: LineReader) -> ConfidenceScale {
        switch reader {
        case .tesseract: tesseractScale
        case .neural: neuralScale
        }
    }
}
