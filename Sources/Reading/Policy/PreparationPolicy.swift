import GlossContract

/// The decisions of Tesseract's own preparation (`--prepare`) that depend on more than the
/// page, each with the measurement behind it: when a page whose way up is in doubt is read
/// another way (`SecondReadings`' pure functions of these and of the readings made), and in
/// which modes the text the layout dropped is read again. `FusionPolicy.preparation` holds the
/// value the plan reads with; `version` enters the settings' fingerprint of a batch prepared.
public struct PreparationPolicy: Sendable, Equatable {
    /// Raised with every change of a decision below that changes `fast` (a change to `accurate`
    /// alone raises `FusionPolicy.version`, which `accurate` batches name). 2: a scaled page is
    /// read as it came too (`compare`) only when its way up is in doubt, and no re-reading in
    /// `accurate`. 3: not when the detectors were sure of its way up (`comparesSurePages`);
    /// in `fast`, Tesseract's orientation detector is asked only when the first reading leaves
    /// the way up in doubt (`defersOrientation`). 4: the letters are measured in rows of three
    /// or more (`LetterSize.fewestInARow`), so a texture of marks in pairs no longer enlarges a
    /// page. 5: a first reading settles the way up from `settlingReading`, not 85. 6: rows of
    /// letters read by the line classifier settle the way up before either detector is asked
    /// (`LetterRows`). 7: a dropped region on paper is read without Tesseract's inverted second
    /// reading of its unsure lines (`DroppedText.lightGround`).
    public var version = 7

    /// The modes in which a page whose way up Leptonica's cheap signal leaves unclear is read as
    /// it came first, and Tesseract's orientation detector (0.2 to 0.9 s an A4 page, as much as
    /// a fifth of the reading) asked only when that reading does not settle the way up
    /// (`SecondReadings.settlesWayUp`). Not `accurate`: its detector's lines are read on the page
    /// as the preparer stands it, and settle its way up themselves (`FusionPolicy.uprightLines`).
    /// Measured side by side in docs/reading-measured.md, "What `fast` costs".
    public var defersOrientation: Set<TextMode> = [.fast]

    /// The mean word confidence from which the first reading of a page whose orientation
    /// detector waits for it (`defersOrientation`) settles the way up, so that the detector is
    /// not asked (`SecondReadings.settlesWayUp(_:size:policy:from:)`). Read the wrong way up
    /// with their words level, the bench's pages turned 180 degrees (`--prepare none`) and the
    /// turned copies of `rules.py turned` reached 45.5 (tune half) and 44.0 (measure half), the
    /// two bench pages upside down already (upright once turned) left out; the upright pages
    /// whose detector waited for their first reading read at 49 to 84 (receipts, scans told 72
    /// to 96 ppi). 70 keeps 24 points above the wrong way, and 6 above the 64 of
    /// `confidentReading`'s measure, which counted readings of pages on their side too.
    public var settlingReading = 70.0

    /// The share of a reading's words (of three characters or more) that lie level, wider than
    /// tall on the page, from which that reading is taken for one of a page that does not lie on
    /// its side: Tesseract reads the standing lines of a page on its side confidently, turning
    /// them itself, and reports their words standing.
    public var levelWords = 0.9

    /// The modes in which the text Tesseract's layout dropped is read again (`DroppedText`).
    /// `bench/reading/rules.py` (the rule on minus off, F1 / CER, tune and measure halves):
    /// in `fast` +0.070 / -0.008 and +0.034 / +0.008 (maps +0.24 and +0.17 F1, photos,
    /// receipts, tables, forms); in `accurate`, where the neural reader reads the detected lines
    /// Tesseract dropped already, -0.004 / +0.010 and -0.000 / +0.007 (a CER above 0 is worse).
    public var rereadsDroppedText: Set<TextMode> = [.fast]

    /// The modes in which a page whose way up the detectors doubt is read another way too, and
    /// the more confident reading kept (`SecondReadings`). No page of the bench's 73 is doubted
    /// as it stands; on 51 copies of 17 of them turned 90, 180 and 270 degrees
    /// (`bench/reading/rules.py turned`), on minus off, F1 / CER, tune and measure: in `fast`
    /// +0.281 / -0.156 and +0.330 / -0.111 (forms, maps, tables, charts); in `accurate` +0.033
    /// / -0.088 and +0.009 / -0.051 (forms' CER -0.41).
    public var turnsDoubtedPages: Set<TextMode> = [.fast, .accurate]

    /// Whether a scaled page whose way up the detectors were sure of is read at its own size
    /// too (`SecondReadings.comparesAtOwnSize`). `bench/reading/rules.py` measured the
    /// comparison off on every page: F1 / CER in `fast` +0.003 / +0.003 (tune, two pages it was
    /// built on) and -0.000 / -0.001 (measure); it was kept for doubted pages, which every page
    /// with letters is (turned over when garbled). Measured off for those, side by side
    /// (`bench/reading/cost.py --baseline --reference cli`, docs/reading-measured.md
    /// "What `fast` costs"): see the figures there.
    public var comparesSurePages = false

    /// The mean word confidence from which a reading is trusted without a second. On the real
    /// pages of `bench/ocr-quality` turned four ways and skewed, and read the way the detector
    /// was unsure of, readings the wrong way up reached 64, and readings the right way up that
    /// a second reading would not have changed started at 86.
    public var confidentReading = 85.0

    /// The mean word confidence under which a reading of a page whose way up the detectors
    /// were sure of is taken for garbage, and the page read turned over. Of the 63 real pages
    /// of `bench/ocr-quality` read upright, one read under 60 (a chart, at 38, whose text
    /// Tesseract barely reads any way up); a table of figures that both detectors took for
    /// upright on its head read at 46.
    public var garbledReading = 60.0

    /// Fewer words than this say nothing of which way up a page stands: a photograph's specks.
    public var wordsToTell = 5

    public init() {}

    /// Whether a reading is one Tesseract is unsure of, and worth a second reading to compare.
    public func isUnsure(_ text: RecognizedText) -> Bool { (text.meanConfidence ?? 0) < confidentReading }

    /// Whether a reading looks like text read the wrong way up: words enough to tell, of low
    /// confidence.
    public func isGarbled(_ text: RecognizedText) -> Bool {
        text.words.count >= wordsToTell && (text.meanConfidence ?? 0) < garbledReading
    }
}
