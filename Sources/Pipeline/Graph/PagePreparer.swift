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
    }

    /// The page turned upright and levelled when the signals say so; the input as it came
    /// (and the identity) otherwise.
    func prepare(_ page: DecodedPage) -> Prepared {
        var record = PagePreparation()
        let raster = page.raster
        let clock = ContinuousClock()

        // The signals are measured on a copy of about 150 ppi: Leptonica's detectors are made
        // for 150 to 300 ppi, and Tesseract's orientation model needs no more.
        var started = clock.now
        let reduction = Self.reduction(for: raster.size)
        let working = reduction == 1
            ? raster.grayscale()
            : raster.resampled(width: max(1, raster.width / reduction), height: max(1, raster.height / reduction), grey: true)
        let workingResolution = page.resolution.map { max(1, $0 / reduction) } ?? RecognitionOptions.assumedResolution / reduction
        guard let ink = InkPage(grey: working) else {
            return Prepared(page: page, transform: .identity(raster.size), record: record)
        }
        let direction = ink.textDirection()
        var rotation = 0
        if !Self.clearlyUpright(direction), let estimate = orientationDetector()?.detect(working, resolution: workingResolution) {
            record.orientationConfidence = (estimate.confidence * 100).rounded() / 100
            if Self.accepts(estimate, beside: direction) { rotation = estimate.rotation }
        }
        record.timings.record("orientation", clock.now - started)

        started = clock.now
        var skew = 0.0
        if let levelled = ink.turned(quarterTurns: rotation / 90), let measured = levelled.skew(),
           abs(measured.levellingDegrees) >= Self.smallestSkew, measured.confidence >= Self.skewConfidence {
            skew = (measured.levellingDegrees * 100).rounded() / 100
        }
        let transform = PageTransform(quarterTurns: rotation / 90, skew: skew, inputSize: raster.size)
        guard !transform.isIdentity else {
            record.timings.record("deskew", clock.now - started)
            return Prepared(page: page, transform: transform, record: record)
        }
        var prepared = page
        prepared.raster = raster.transformed(by: transform)
        // The page's size in the file's pixels grows with its raster (a huge image's raster is
        // a reduced copy of it).
        let scale = Double(page.size.width) / Double(max(1, raster.width))
        prepared.size = PixelSize(width: Int((Double(transform.preparedSize.width) * scale).rounded()),
                                  height: Int((Double(transform.preparedSize.height) * scale).rounded()))
        record.rotation = transform.rotation
        record.skew = skew
        record.timings.record("deskew", clock.now - started)
        return Prepared(page: prepared, transform: transform, record: record)
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

    /// How much the working copy is reduced: an A4 page at 300 ppi by half, at 600 ppi by a quarter.
    static func reduction(for size: PixelSize) -> Int {
        let shortSide = min(size.width, size.height)
        return shortSide >= 3600 ? 4 : shortSide >= 1800 ? 2 : 1
    }

    /// Leptonica's reading of a page's letters says upright clearly enough that Tesseract's
    /// slower detector is not asked. Of 49 upright real pages, 25 passed; no page turned by a
    /// quarter or a half (150) passed.
    static func clearlyUpright(_ signal: TextDirectionSignal) -> Bool {
        signal.upConfidence >= 5 && signal.upConfidence >= 2 * abs(signal.sidewaysConfidence)
    }

    /// Tesseract's answer is taken when it is confident on its own, or fairly confident and
    /// Leptonica's clear reading agrees. Measured on 199 pages (real pages turned four ways):
    /// wrong answers reached a confidence of 7.1 (and 4.7 where Leptonica disagreed).
    static func accepts(_ estimate: OrientationEstimate, beside signal: TextDirectionSignal) -> Bool {
        if estimate.confidence >= 8 { return true }
        let leptonicaIsClear = max(abs(signal.upConfidence), abs(signal.sidewaysConfidence)) >= 5
        return estimate.confidence >= 2 && leptonicaIsClear && estimate.rotation == signal.suggestedRotation
    }

    /// Below this many degrees, the lines are level enough: Leptonica's reading of a straight
    /// page wanders by up to 0.1 degree, and Tesseract reads a line 0.2 degrees off as well.
    static let smallestSkew = 0.2
    /// Leptonica's confidence below which its skew is not trusted (its own `pixDeskew` asks 3).
    static let skewConfidence = 3.0
}
