import GlossContract
import GlossGeometry
import GlossImaging
import GlossTextRecognition

/// The geometric steps of `--prepare auto`: a page turned so its text stands upright, then
/// levelled, before any analyzer reads it, with the transform that carries the analyzers'
/// findings back to the input page.
///
/// Lives on a worker's image lane and is built there, like an engine: Tesseract's orientation
/// detector is loaded the first time a page needs it and kept for the pages after. Not
/// `Sendable`: it owns that engine.
final class PagePreparer {
    /// Where Tesseract's models are (`osd.traineddata` among them); nil for the usual places.
    private let dataPath: String?
    private var detector: OrientationDetector?
    /// Set once the detector failed to load: the page is then read as it stands, and the
    /// load is not tried again for every page.
    private var detectorUnavailable = false

    init(dataPath: String?) {
        self.dataPath = dataPath
    }

    /// A page ready for its analyzers, and how it differs from the input.
    struct Prepared: Sendable {
        var page: DecodedPage
        var transform: PageTransform
        var record: PagePreparation
        /// The other way the page may stand, when the orientation detector was unsure: the
        /// text analyzer reads it both ways.
        var doubt: DoubtfulOrientation?
    }

    /// The page turned upright and levelled when the signals say so; the input as it came
    /// (and the identity) otherwise.
    func prepare(_ page: DecodedPage, steps: PreparationSteps = .auto) -> Prepared {
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
        let direction = ink.textDirection(certainlyUpright: Self.certainlyUpright)
        var rotation = 0
        var doubt: DoubtfulOrientation?
        if steps.contains(.orientation), !Self.clearlyUpright(direction), let detector = orientationDetector() {
            // Tesseract's detector reads the page at up to 300 ppi: at 150 it was both slower
            // (1 to 2 s an A4 page, against 0.3 to 0.6 s) and wrong more often.
            let factor = max(1, reduction / 2)
            let resolution = page.resolution.map { max(1, $0 / factor) } ?? RecognitionOptions.assumedResolution
            let estimate = detector.detect(Self.grey(raster, reducedBy: factor), resolution: resolution)
            if let estimate {
                record.orientationConfidence = (estimate.confidence * 100).rounded() / 100
                if Self.accepts(estimate, beside: direction) { rotation = estimate.rotation }
            }
            doubt = Self.doubt(estimate, applied: rotation, beside: direction)
        }
        record.timings.record("orientation", clock.now - started)
        return levelled(page, rotation: rotation, doubt: doubt, ink: ink, record: record, clock: clock,
                        levelling: steps.contains(.deskew))
    }

    /// The turn, in degrees rounded to a hundredth, that levels `ink` turned by `quarterTurns`;
    /// 0 when Leptonica measures none it trusts, or one too small to matter.
    static func levellingSkew(of ink: InkPage, turnedBy quarterTurns: Int) -> Double {
        guard let turned = ink.turned(quarterTurns: quarterTurns), let measured = turned.skew(),
              abs(measured.levellingDegrees) >= smallestSkew, trusts(measured) else { return 0 }
        return (measured.levellingDegrees * 100).rounded() / 100
    }

    /// The page turned by `rotation` and levelled when its lines are measured off level.
    private func levelled(_ page: DecodedPage, rotation: Int, doubt: DoubtfulOrientation?, ink: InkPage,
                          record: PagePreparation, clock: ContinuousClock, levelling: Bool) -> Prepared {
        var record = record
        let raster = page.raster
        let started = clock.now
        let skew = levelling ? Self.levellingSkew(of: ink, turnedBy: rotation / 90) : 0
        var doubt = doubt
        // A page that may lie on its side has lines standing as it came, which measure no skew:
        // it is measured stood up too, so that its second reading is levelled as a page the
        // detector turned would be (a skewed page's two readings differed by more than 0.01 F1).
        if var sideways = doubt, levelling, skew == 0, sideways.applied == 0, sideways.quarterTurns % 2 == 1 {
            sideways.otherSkew = Self.levellingSkew(of: ink, turnedBy: sideways.quarterTurns)
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

    // MARK: Decisions, each from measurements on real pages (see the Pipeline README)

    /// The page in grey, averaged down by `factor` on each side.
    private static func grey(_ raster: Raster, reducedBy factor: Int) -> Raster {
        guard factor > 1 else { return raster.grayscale() }
        return raster.resampled(width: max(1, raster.width / factor), height: max(1, raster.height / factor), grey: true)
    }

    /// How much the working copy is reduced: an A4 page at 300 ppi by half, at 600 ppi by a quarter.
    static func reduction(for size: PixelSize) -> Int {
        let shortSide = min(size.width, size.height)
        return shortSide >= 3600 ? 4 : shortSide >= 1800 ? 2 : 1
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
    /// detector gave no answer (too few letters: a map's scattered labels on their side),
    /// Leptonica's reading, however weak, is the other way to try.
    static func doubt(_ estimate: OrientationEstimate?, applied: Int, beside signal: TextDirectionSignal) -> DoubtfulOrientation? {
        let estimate = estimate ?? OrientationEstimate(rotation: signal.suggestedRotation, confidence: 0)
        if applied != 0 {
            return estimate.confidence < surelyTurned ? DoubtfulOrientation(applied: applied, other: 0) : nil
        }
        guard estimate.rotation != 0 else { return nil }
        return DoubtfulOrientation(applied: 0, other: estimate.rotation)
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

extension Raster {
    /// The raster turned and levelled by `transform`. The corners a levelling uncovers take
    /// the page's own paper (its median colour), for the preparer and for a second reading alike.
    func prepared(by transform: PageTransform) -> Raster {
        transformed(by: transform, background: transform.skew == 0 ? nil : medianValues())
    }
}
