import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralReading
import GlossPreparation

/// What is measured of a page once, before any reading is planned: its size, the resolution
/// its file states, its letters, and the lines the neural detector found. The plan is made
/// from this value alone; a new signal (the page's skew, its direction) is a new field here.
public struct PageSignals: Sendable, Equatable {
    /// The copy read, in pixels.
    public var size: PixelSize
    /// Pixels per inch the file states for this copy; nil when it states none.
    public var statedResolution: Int?
    /// The page's most common lower-case letter height; nil for too few letters to tell.
    public var letterSize: LetterSize?
    /// The detector's lines, in its order (`NeuralReader.detect`); nil when the detector was
    /// not run (`fast`), empty when it ran and found none.
    public var lines: [LineSignals]?
    /// Whether the orientation detectors left the page's way up in doubt, so that Tesseract's
    /// preparation would read it another way too (`SecondReadings`).
    public var wayUpInDoubt = false
    /// Whether the detectors were unsure of the way they stood the page (beyond the doubt every
    /// page with letters carries, that it may stand on its head: `DoubtfulOrientation.appliedIsSure`).
    public var detectorsUnsure = false

    public init(size: PixelSize, statedResolution: Int?, letterSize: LetterSize?, lines: [LineSignals]? = nil,
                wayUpInDoubt: Bool = false) {
        self.size = size
        self.statedResolution = statedResolution
        self.letterSize = letterSize
        self.lines = lines
        self.wayUpInDoubt = wayUpInDoubt
    }

    /// The page's own signals, measured on `grey` (the copy read, or its grey copy); the
    /// detector's lines are added by the plan's execution when the mode asks for them.
    public static func measured(grey: Raster, statedResolution: Int?) -> PageSignals {
        PageSignals(size: grey.size, statedResolution: statedResolution, letterSize: LetterSize(of: grey))
    }
}

/// One line the detector found, as the plan sees it.
public struct LineSignals: Sendable, Equatable {
    /// The smallest upright box holding the line's quadrilateral, in the one currency.
    public var box: NormalizedRect
    /// The detector's quadrilateral itself, in the one currency: what holds the line's words
    /// (`WordAssignment`).
    public var region: LineRegion
    /// The bottom edge of the line's letters, left to right as the line reads (after the
    /// classifier's turn), in the one currency.
    public var baseline: Baseline
    /// The line's height in the page's pixels: its crop's short side.
    public var height: Double
    /// Degrees the line's baseline rises from level, counter-clockwise positive; near 180
    /// for a line upside down.
    public var angle: Double
    /// Whether the classifier said the line is upside down.
    public var isTurnedOver: Bool

    /// Whether the line lies level and reads the right way up: within 45 degrees of level, not
    /// turned over by the classifier (a page on its side has standing lines, one on its head
    /// lines the classifier turns over).
    public var standsUpright: Bool { abs(angle) <= 45 && !isTurnedOver }

    public init(box: NormalizedRect, region: LineRegion? = nil, baseline: Baseline, height: Double, angle: Double, isTurnedOver: Bool) {
        self.box = box
        self.region = region ?? LineRegion(box: box)
        self.baseline = baseline
        self.height = height
        self.angle = angle
        self.isTurnedOver = isTurnedOver
    }

    /// A level line, the right way up, on `box`: what a test's fake detector finds.
    public init(box: NormalizedRect, height: Double = 20) {
        let baseline = Baseline(start: NormalizedPoint(x: box.minX, y: box.minY), end: NormalizedPoint(x: box.maxX, y: box.minY))
        self.init(box: box, baseline: baseline, height: height, angle: 0, isTurnedOver: false)
    }

    /// The signals of a line the neural reader found on a page of `page` pixels.
    public init(_ line: FoundLine, page: PixelSize) {
        let corners = line.crop.corners
        let points = line.box.corners.map { NormalizedPoint($0, in: page) }
        let xs = points.map { min(max($0.x, 0), 1) }, ys = points.map { min(max($0.y, 0), 1) }
        let box = NormalizedRect(x: xs.min() ?? 0, y: ys.min() ?? 0, width: (xs.max() ?? 0) - (xs.min() ?? 0),
                                 height: (ys.max() ?? 0) - (ys.min() ?? 0))
        // The crop's corners run clockwise from its top left: its bottom edge is 3 to 2.
        let (start, end) = (corners[3], corners[2])
        let angle = atan2(start.y - end.y, end.x - start.x) * 180 / .pi
        self.init(box: box, region: LineRegion(corners: points),
                  baseline: Baseline(start: NormalizedPoint(start, in: page), end: NormalizedPoint(end, in: page)),
                  height: Double(min(line.crop.raster.width, line.crop.raster.height)), angle: angle,
                  isTurnedOver: line.isTurnedOver)
    }
}
