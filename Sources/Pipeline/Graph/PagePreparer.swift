import GlossContract
import GlossGeometry
import GlossImaging
import GlossModels
import GlossNeuralNetwork
import GlossNeuralReading
import GlossPreparation
import GlossTextRecognition

/// The geometric steps of `--prepare auto`: a page turned so its text stands upright, then
/// levelled, before any analyzer reads it, with the transform that carries the analyzers'
/// findings back to the input page.
///
/// Lives on a worker's image lane and is built there, like an engine: Tesseract's orientation
/// detector is loaded the first time a page needs it and kept as `DetectorLifetime` says. Not
/// `Sendable`: it owns that engine.
final class PagePreparer {
    /// How long the preparer keeps Tesseract's orientation detector once a page needed it.
    enum DetectorLifetime: Sendable, Equatable {
        /// Kept for the pages after: it is built once per worker.
        case batch
        /// Given back once the page is prepared: a page read with networks holds their
        /// page-sized maps after its preparation (the neural detector's 165 MB on a 5-megapixel
        /// table), and the detector's 36 MB beside them took a worker over 300 MB (326 MB;
        /// 288 MB given back). Built again it costs about 0.15 s, on the pages that need it only.
        case page
    }

    /// Where Tesseract's models are (`osd.traineddata` among them); nil for the usual places.
    private let dataPath: String?
    private let detectorLifetime: DetectorLifetime
    private var detector: OrientationDetector?
    /// Set once the detector failed to load: the page is then read as it stands, and the
    /// load is not tried again for every page.
    private var detectorUnavailable = false
    /// The line classifier (`LetterRows`), loaded the first time a page needs it.
    private var classifier: Network?
    private var classifierUnavailable = false
    private var classifierInput = FeatureMap(channels: 3, height: RecognizerInput.height, width: RecognizerInput.classifierWidth)

    /// Whether rows of letters may settle a page's way up (`LetterRows`); without them the
    /// detectors alone do, as the tests of the detectors' path ask.
    private let readsLetterRows: Bool

    init(dataPath: String?, readsLetterRows: Bool = true, detectorLifetime: DetectorLifetime = .batch) {
        self.dataPath = dataPath
        self.readsLetterRows = readsLetterRows
        self.detectorLifetime = detectorLifetime
    }

    /// Whether the orientation detector is loaded now.
    var holdsDetector: Bool { detector != nil }

    /// A page ready for its analyzers, and how it differs from the input.
    struct Prepared: Sendable {
        var page: DecodedPage
        var transform: PageTransform
        var record: PagePreparation
        /// The other way the page may stand, when the orientation detector was unsure: the
        /// text analyzer reads it both ways.
        var doubt: DoubtfulOrientation?
        /// The page's way up, left for the text analyzer to settle (`defersDetector`).
        var question: OrientationQuestion?
    }

    /// The page turned upright and levelled when the signals say so; the input as it came
    /// (and the identity) otherwise. With `defersDetector`, a page whose way up Leptonica's
    /// signal leaves unclear is not shown to Tesseract's orientation detector here: it goes as
    /// it came, with the question, and the text analyzer asks the detector only when its first
    /// reading does not settle the way up (`PreparationPolicy.defersOrientation`).
    func prepare(_ page: DecodedPage, steps: PreparationSteps = .auto, defersDetector: Bool = false) -> Prepared {
        defer { if detectorLifetime == .page { detector = nil } }
        var record = PagePreparation()
        let raster = page.raster
        let clock = ContinuousClock()

        // Leptonica's signals are measured on a copy of about 150 ppi (its detectors are made for
        // 150 to 300 ppi, and work as well there as on the page at 300 in a quarter of the time).
        let started = clock.now
        let reduction = Self.reduction(for: raster.size)
        let working = Self.grey(raster, reducedBy: reduction)
        guard let ink = InkPage(grey: working) else {
            return Prepared(page: page, transform: .identity(raster.size), record: record)
        }
        var orientation = Orientation()
        if steps.contains(.orientation) {
            orientation = orient(page, working: working, reducedBy: reduction, ink: ink, defersDetector: defersDetector,
                                 record: &record)
            record.timings.record("orientation", clock.now - started)
        }
        // The skew is measured on the letters at their own size, as before they were enlarged
        // for their direction, and on the enlarged ones when that finds no line it trusts: of a
        // map's six encodings skewed 3 degrees, each copy levelled four.
        let inks = [ink] + (orientation.letterInk.map { [$0] } ?? [])
        var prepared = levelled(page, rotation: orientation.rotation, doubt: orientation.doubt, inks: inks, record: record,
                                clock: clock, levelling: steps.contains(.deskew))
        prepared.question = orientation.question
        return prepared
    }

    /// Which way the page stands, and what the text analyzer should doubt of it.
    private struct Orientation {
        /// Degrees to turn the page clockwise so its text stands upright.
        var rotation = 0
        var doubt: DoubtfulOrientation?
        /// The ink of the page enlarged for its small letters, when they were.
        var letterInk: InkPage?
        /// The way up left to the text analyzer's first reading.
        var question: OrientationQuestion?
    }

    /// The turn that stands the page upright, from Leptonica's signal and, when that is in
    /// doubt, Tesseract's detector; the detector's confidence goes in `record`.
    private func orient(_ page: DecodedPage, working: Raster, reducedBy reduction: Int, ink: InkPage, defersDetector: Bool,
                        record: inout PagePreparation) -> Orientation {
        let raster = page.raster
        var orientation = Orientation()
        // Small letters are read for their direction enlarged, as the recogniser will read them:
        // at an x-height of 7 px both detectors guessed (Tesseract at confidence 0.2 to 0.9,
        // Leptonica "clearly upright" on a page on its side), and enlarged they were right at
        // 13 to 17.
        let letters = Self.letters(on: working)
        let enlargement = letters.flatMap { Self.enlargement(for: $0, reducedBy: reduction, size: raster.size) }
        let enlarged = enlargement.map { scale in
            let size = scale.scaled(raster.size)
            // Unreduced, the working copy is the page in grey already.
            return (reduction == 1 ? working : raster.grayscale()).enlarged(width: size.width, height: size.height)
        }
        orientation.letterInk = enlarged.flatMap { InkPage(grey: $0) }
        let direction = (orientation.letterInk ?? ink).textDirection(certainlyUpright: Self.certainlyUpright)
        // Rows of letters that run one way, most of them upright (or most upside down) to the line
        // classifier, settle the way up for a tenth of Tesseract's detector's time (`LetterRows`).
        if readsLetterRows, !Self.clearlyUpright(direction), let rows = letterRows(on: working), let wayUp = rows.wayUp {
            orientation.rotation = wayUp
            record.rowsRead = rows.turns?.lines
            if letters != nil { orientation.doubt = .overturned(from: wayUp) }
            return orientation
        }
        if defersDetector && Self.leavesWayUpToReading(direction) {
            orientation.question = OrientationQuestion(direction: direction, lettersFound: letters != nil, enlargement: enlargement)
            return orientation
        }
        if !Self.clearlyUpright(direction), let detector = orientationDetector() {
            let estimate = Self.estimate(by: detector, of: raster, resolution: page.resolution, reducedBy: reduction,
                                         enlarged: enlarged.flatMap { copy in enlargement.map { (copy, $0) } })
            if let estimate {
                record.orientationConfidence = (estimate.confidence * 100).rounded() / 100
                if Self.accepts(estimate, beside: direction) { orientation.rotation = estimate.rotation }
            }
            orientation.doubt = Self.doubt(estimate, applied: orientation.rotation, beside: direction, lettersFound: letters != nil)
        }
        if orientation.doubt == nil, letters != nil { orientation.doubt = .overturned(from: orientation.rotation) }
        return orientation
    }

    /// Tesseract's detector's answer for the page `raster` (at `resolution`, reduced by
    /// `reduction` for Leptonica's signals), read enlarged when its letters are small. The
    /// detector reads the page at up to 300 ppi: at 150 it was both slower (1 to 2 s an A4
    /// page, against 0.3 to 0.6 s) and wrong more often.
    static func estimate(by detector: OrientationDetector, of raster: Raster, resolution: Int?, reducedBy reduction: Int,
                         enlarged: (copy: Raster, scale: TextScale)?) -> OrientationEstimate? {
        if let enlarged { return detector.detect(enlarged.copy, resolution: enlarged.scale.resolution) }
        let factor = max(1, reduction / 2)
        let reduced = resolution.map { max(1, $0 / factor) } ?? RecognitionOptions.assumedResolution
        return detector.detect(grey(raster, reducedBy: factor), resolution: reduced)
    }

    /// The turn, in degrees rounded to a hundredth, that levels the page turned by
    /// `quarterTurns`, from the first of `inks` (copies of it) on which Leptonica measures a
    /// skew it trusts; 0 when none does, the skew is too small to matter, or a page of `size`
    /// levelled by it would not fit (`levellingFits`).
    static func levellingSkew(of inks: [InkPage], turnedBy quarterTurns: Int, fitting size: PixelSize) -> Double {
        for ink in inks {
            guard let turned = ink.turned(quarterTurns: quarterTurns), let measured = turned.skew(), trusts(measured) else {
                continue
            }
            guard abs(measured.levellingDegrees) >= smallestSkew else { return 0 }
            let skew = (measured.levellingDegrees * 100).rounded() / 100
            return levellingFits(size, skew: skew, quarterTurns: quarterTurns) ? skew : 0
        }
        return 0
    }

    /// Whether a page of `size` levelled by `skew` holds at most twice its pixels. A long strip
    /// grows by its length times the sine of the skew on its short side (150,000 by 120
    /// pixels at 3 degrees would be 1.2 billion), so it stays as it came; a page at 10 degrees
    /// grows by a third.
    static func levellingFits(_ size: PixelSize, skew: Double, quarterTurns: Int) -> Bool {
        skew == 0 || PageTransform(quarterTurns: quarterTurns, skew: skew, inputSize: size).preparedSize.pixelCount
            <= 2 * size.pixelCount
    }

    /// The page turned by `rotation` and levelled when its lines are measured off level.
    private func levelled(_ page: DecodedPage, rotation: Int, doubt: DoubtfulOrientation?, inks: [InkPage],
                          record: PagePreparation, clock: ContinuousClock, levelling: Bool) -> Prepared {
        var record = record
        let raster = page.raster
        let started = clock.now
        let skew = levelling ? Self.levellingSkew(of: inks, turnedBy: rotation / 90, fitting: raster.size) : 0
        var doubt = doubt
        // A page that may lie on its side has lines standing as it came, which measure no skew:
        // it is measured stood up too, so that its second reading is levelled as a page the
        // detector turned would be (a skewed page's two readings differed by more than 0.01 F1).
        if var sideways = doubt, levelling, skew == 0, sideways.applied == 0, sideways.quarterTurns % 2 == 1 {
            sideways.otherSkew = Self.levellingSkew(of: inks, turnedBy: sideways.quarterTurns, fitting: raster.size)
            doubt = sideways
        }
        let transform = PageTransform(quarterTurns: rotation / 90, skew: skew, inputSize: raster.size)
        guard !transform.isIdentity else {
            record.timings.record("deskew", clock.now - started)
            return Prepared(page: page, transform: transform, record: record, doubt: doubt)
        }
        var prepared = page
        // The corners the levelling uncovers take the page's own paper (a dark slide's, a grey
        // page's): white corners on a grey page made Tesseract's threshold drop the whole page.
        prepared.raster = raster.prepared(by: transform)
        // The page's size in the file's pixels grows with its raster (a huge image's raster is
        // a reduced copy of it).
        let scale = Double(page.size.width) / Double(max(1, raster.width))
        prepared.size = PixelSize(width: Int((Double(transform.preparedSize.width) * scale).rounded()),
                                  height: Int((Double(transform.preparedSize.height) * scale).rounded()))
        record.rotation = transform.rotation
        record.skew = skew
        record.timings.record("deskew", clock.now - started)
        return Prepared(page: prepared, transform: transform, record: record, doubt: doubt)
    }

    /// The rows of letters on `working`, as it stands and stood up, and the line classifier's
    /// reading of those that run one way; nil when the classifier cannot be loaded.
    private func letterRows(on working: Raster) -> LetterRows? {
        if classifier == nil, !classifierUnavailable {
            do {
                classifier = try PPOCRNetworks.bundledClassifier()
            } catch {
                classifierUnavailable = true
            }
        }
        guard classifier != nil else { return nil }
        let (across, down) = LetterSize.rowsBothWays(on: working)
        var rows = LetterRows(lettersAcross: across.reduce(0) { $0 + $1.letters }, lettersStood: down.reduce(0) { $0 + $1.letters })
        guard let direction = rows.direction else { return rows }
        let lines = (direction == 0 ? across : down).filter { $0.letters >= LetterRows.lettersInALine }.map(\.box)
        let page = direction == 0 ? working : working.transformed(by: PageTransform(quarterTurns: 1, inputSize: working.size))
        rows.turns = try? LineTurns.read(lines, on: page, limit: LetterRows.linesRead, classifier: &classifier!,
                                         input: &classifierInput, isCancelled: { false })
        return rows
    }

    private func orientationDetector() -> OrientationDetector? {
        if let detector { return detector }
        guard !detectorUnavailable else { return nil }
        do {
            detector = try OrientationDetector(dataPath: dataPath)
        } catch {
            detectorUnavailable = true
        }
        return detector
    }

    // MARK: Decisions, each from measurements on real pages (docs/reading.md gives the figures)

    /// The page in grey, averaged down by `factor` on each side.
    static func grey(_ raster: Raster, reducedBy factor: Int) -> Raster {
        guard factor > 1 else { return raster.grayscale() }
        return raster.resampled(width: max(1, raster.width / factor), height: max(1, raster.height / factor), grey: true)
    }

    /// The height of the letters on `working`, as it stands, stood up or turned over: the
    /// measure takes letters sitting on a line, so a page on its side (letters stacked in
    /// columns) or on its head (letters hanging from their line) is measured turned too.
    static func letters(on working: Raster) -> LetterSize? {
        for quarterTurns in 0..<3 {
            let page = quarterTurns == 0 ? working
                : working.transformed(by: PageTransform(quarterTurns: quarterTurns, inputSize: working.size))
            if let letters = LetterSize(of: page) { return letters }
        }
        return nil
    }

    /// The enlargement that brings small letters (see `TextScale`) to the size the recogniser
    /// reads them at, from `letters` measured on the page's copy reduced by `reduction`; nil
    /// when they are large enough.
    static func enlargement(for letters: LetterSize, reducedBy reduction: Int, size: PixelSize) -> TextScale? {
        let onThePage = LetterSize(xHeight: letters.xHeight * reduction, letters: letters.letters)
        let scale = TextScale(letters: onThePage, statedResolution: nil, size: size)
        return scale.factor > 1 ? scale : nil
    }

    /// How much the working copy is reduced: an A4 page at 300 ppi by half, at 600 ppi by a quarter.
    static func reduction(for size: PixelSize) -> Int {
        let shortSide = min(size.width, size.height)
        return shortSide >= 3600 ? 4 : shortSide >= 1800 ? 2 : 1
    }

    /// Whether a page whose orientation detector may wait for its first reading does wait:
    /// when Leptonica's signal is unclear and leans to no turn. A page it leans to turning is
    /// asked at once: read first as it came, a page on its side or head costs a reading the
    /// wrong way before the detector turns it (a weak lean waiting too: docs/reading-measured.md,
    /// "What `fast` costs").
    static func leavesWayUpToReading(_ signal: TextDirectionSignal) -> Bool {
        !clearlyUpright(signal) && signal.suggestedRotation == 0
    }

    /// Leptonica's reading of a page's letters says upright clearly enough that Tesseract's
    /// slower detector is not asked. Measured on 73 upright pages (real scans and fixtures),
    /// 46 passed; of 219 pages turned by a quarter or a half, none did.
    static func clearlyUpright(_ signal: TextDirectionSignal) -> Bool {
        signal.upConfidence >= 5 && signal.upConfidence >= 2 * abs(signal.sidewaysConfidence)
    }

    /// An up-down reading this strong is taken without the sideways one: twice the strongest
    /// any page lying on its side gave (11.0, of the 63 real pages of `bench/ocr-quality`
    /// turned both ways), and on those pages the full rule above agrees. It halves the
    /// signal's cost on clean pages of print (20 ms to 10 on an A4 page at 200 ppi).
    static let certainlyUpright = 22.0

    /// Tesseract's answer is taken when it is confident on its own, or fairly confident and
    /// Leptonica's clear reading agrees. Measured on 292 pages (73 real pages turned four
    /// ways): wrong turns reached a confidence of 7.1 (a table of numbers), and 4.8 with
    /// Leptonica agreeing (the same table skewed); at these thresholds none was taken, and
    /// 157 of the turned pages were stood up (the rest, mostly forms, tables and photographs,
    /// are read as they come).
    static func accepts(_ estimate: OrientationEstimate, beside signal: TextDirectionSignal) -> Bool {
        if estimate.confidence >= 8 { return true }
        let leptonicaIsClear = max(abs(signal.upConfidence), abs(signal.sidewaysConfidence)) >= 5
        return estimate.confidence >= 5 && leptonicaIsClear && estimate.rotation == signal.suggestedRotation
    }

    /// The other way a page may stand when Tesseract's answer is not sure: as it came when a
    /// turn was taken below `surelyTurned`, or the proposed turn when it was not taken; nil
    /// when the answer is sure or proposes no turn. On the real pages of `bench/ocr-quality`
    /// turned four ways and skewed, wrong turns reached 9.6 (a table of numbers, skewed) and
    /// pages upside down or on their side read at 1 to 7 were left as they came. When the
    /// detector gave no answer on a page with letters (too few: a map's scattered labels on
    /// their side), Leptonica's reading, however weak, is the other way to try; and when that
    /// proposes no turn either, the page may stand on its head (a heading and three short
    /// lines, upside down, read as nothing), which a confident reading rules out. A page with
    /// no letters (a photograph) has no way up to doubt: it was read twice for nothing.
    static func doubt(_ estimate: OrientationEstimate?, applied: Int, beside signal: TextDirectionSignal,
                      lettersFound: Bool = false) -> DoubtfulOrientation? {
        if applied != 0 {
            return (estimate?.confidence ?? 0) < surelyTurned ? DoubtfulOrientation(applied: applied, other: 0) : nil
        }
        let other = estimate?.rotation ?? (!lettersFound ? 0 : signal.suggestedRotation != 0 ? signal.suggestedRotation : 180)
        return other == 0 ? nil : DoubtfulOrientation(applied: 0, other: other)
    }

    /// Tesseract's confidence from which its turn is taken without reading the page both ways.
    static let surelyTurned = 12.0

    /// Below this many degrees, the lines are level enough: Leptonica's reading of a straight
    /// page wanders by up to 0.1 degree. Of 50 real upright pages, levelling from 0.22 degrees
    /// up read 5 better (F1 +0.006 to +0.06) and none worse.
    static let smallestSkew = 0.2
    /// Leptonica's confidence below which its skew is not trusted (its own `pixDeskew` asks 3).
    static let skewConfidence = 3.0

    /// Whether a measured skew is taken. A large angle is taken at a lower confidence: a map's
    /// scattered labels measure 2.4 to 2.6 whether it is straight or skewed, but its straight
    /// copies wander by 0.03 degree and its skewed ones measure their 3 degrees exactly. Of the
    /// 63 real pages of `bench/ocr-quality`, upright and skewed 3 degrees, no reading under
    /// confidence 3 measured more than 0.2 degree off, and every one from 2 up measured
    /// within 0.11 degree of its skew.
    static func trusts(_ measured: SkewMeasurement) -> Bool {
        measured.confidence >= skewConfidence || (measured.confidence >= 2 && abs(measured.levellingDegrees) >= 1)
    }
}

/// A page's way up from its rows of letters, measured before any reading: whether its rows run
/// across the page (letters in rows as it stands) or down it (in rows once it is stood up a
/// quarter turn), and which way up the line classifier reads the rows that run one way.
///
/// Leptonica's signal reads the ascenders and descenders of the letters, which tables of
/// figures, capitals and receipts have few of: it leans to turning 21 of the 73 upright bench
/// pages, which then paid Tesseract's orientation detector (0.4 to 0.7 s an A4 page). This
/// signal costs 10 to 80 ms (the marks found once, and the classifier on up to 16 rows).
struct LetterRows: Sendable, Equatable {
    /// The letters in rows (`LetterSize.rowsBothWays(on:)`) on the page as it stands.
    var lettersAcross: Int
    /// The letters in rows on the page stood up a quarter turn clockwise.
    var lettersStood: Int
    /// The line classifier's reading of the longest rows (`LineTurns`), on the page turned by
    /// `direction`; nil when the rows run neither way clearly.
    var turns: LineTurns?

    /// A row of fewer letters is not classified: a word or two of a line.
    static let lettersInALine = 4
    /// The rows classified at most, the longest first.
    static let linesRead = 16
    /// Fewer classified rows than this settle nothing: of the bench's pages and their turned
    /// copies, a table of figures (4 rows) and a photographed label (2) have fewer.
    static let fewestLines = 8
    /// The rows run one way when the page holds this many times the letters in rows that way
    /// as the other. Upright pages held at least 2.4 times as many across as down (a table of
    /// figures, 41 against 20); pages on their side at least 3.3 times as many down.
    static let oneWay = 3

    /// The clockwise quarter turns, 0 or 1, after which the rows run across the page; nil when
    /// they run neither way clearly.
    var direction: Int? {
        if lettersAcross >= Self.oneWay * lettersStood, lettersAcross > 0 { return 0 }
        if lettersStood >= Self.oneWay * lettersAcross, lettersStood > 0 { return 1 }
        return nil
    }

    /// The clockwise turn that stands the page upright, when the rows run one way and the
    /// classifier reads at most a quarter of them upside down (upright: every bench page with 8
    /// rows or more, at most 6 of 16 upside down on a skewed page) or at least three quarters
    /// (turned over: 10 of 16 at least); nil when this signal is not sure.
    var wayUp: Int? {
        guard let direction, let turns, turns.lines >= Self.fewestLines else { return nil }
        if turns.upsideDown * 4 <= turns.lines { return direction * 90 }
        if turns.upsideDown * 4 >= 3 * turns.lines { return direction * 90 + 180 }
        return nil
    }
}

/// A page's way up that Leptonica's signal left unclear, asked of the text analyzer: its first
/// reading may settle it (`SecondReadings.settlesWayUp`); else Tesseract's detector is asked
/// there, and the page read as the preparer would have turned it.
struct OrientationQuestion: Sendable {
    /// Leptonica's signal, which the detector's answer is weighed beside (`PagePreparer.accepts`).
    var direction: TextDirectionSignal
    /// Whether the page has letters: without, it has no way up to doubt.
    var lettersFound: Bool
    /// The enlargement its small letters are read for their direction at.
    var enlargement: TextScale?
}

extension Raster {
    /// The raster turned and levelled by `transform`. The corners a levelling uncovers take
    /// the page's own paper (its median colour), for the preparer and for a second reading alike.
    func prepared(by transform: PageTransform) -> Raster {
        transformed(by: transform, background: transform.skew == 0 ? nil : medianValues())
    }
}
