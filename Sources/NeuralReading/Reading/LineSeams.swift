import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

// The seams between the reader and the detection it is handed: `DetectedLines` and
// `RectifiedLines` below are the real ones (`Detection/`, `LineCrop`); a test hands in fakes.

/// A network run on one input at a time: `Network` is one, and a test's fake.
public protocol NetworkRunning {
    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap
    /// A run on an input of `height x width` that `fill` writes into the network's own map
    /// (`Network.run(height:width:filling:isCancelled:)`), so it is not held twice.
    mutating func run(height: Int, width: Int, filling fill: (inout FeatureMap) -> Void,
                      isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap
    /// Gives back the maps kept from run to run (`Network.releaseMemory`).
    mutating func releaseMemory()
}

extension NetworkRunning {
    /// Fills a map of its own and runs on it (a fake's way).
    public mutating func run(height: Int, width: Int, filling fill: (inout FeatureMap) -> Void,
                             isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap {
        var input = FeatureMap(channels: 0, height: height, width: width)
        fill(&input)
        return try run(input, isCancelled: isCancelled)
    }

    /// A fake keeps nothing.
    public mutating func releaseMemory() {}
}

extension Network: NetworkRunning {}

/// Finds a page's lines with the detector: makes its input from the page, runs it, and turns
/// its probability map into lines in the page's pixels, in reading order.
public protocol LineFinding {
    /// `wordHeight`: the median height of the page's surely read words in its pixels, when a
    /// reading measured it (`DetectionPolicy.shrinkingWordHeight`).
    mutating func lines(in page: Raster, wordHeight: Double?, detector: inout any NetworkRunning,
                        isCancelled: () -> Bool) throws -> [DetectedBox]
}

/// A line cut out of the page and rectified.
public struct CroppedLine: Sendable {
    public var raster: Raster
    /// The page pixels of `raster`'s top-left, top-right, bottom-right and bottom-left corners:
    /// the line's corners, moved on if the crop was turned (a tall line is stood on its side).
    public var corners: [PixelPoint]

    public init(raster: Raster, corners: [PixelPoint]) {
        self.raster = raster
        self.corners = corners
    }
}

/// Cuts a line out of the page, rectified to a level rectangle.
public protocol LineCropping {
    func crop(_ page: Raster, along line: DetectedBox) -> CroppedLine
}

/// The detector's lines as RapidOCR finds them: `DetectionPolicy`'s plan for the page, the input
/// filled straight into the network's input map, the network run, and `BoxFinder`'s boxes. The
/// detector's maps are then given back (`releasesMemory`).
public struct DetectedLines: LineFinding {
    public var policy: DetectionPolicy
    /// The page's x-height in pixels, when measured, for Gloss's letter-size rule; nil keeps
    /// RapidOCR's rule (the default: the rule did not help on the half it was not tuned on,
    /// `README.md`).
    public var xHeight: Int?

    /// Whether the detector gives back its maps once a page's boxes are found, so that the
    /// lines are read without them: for an A4 page at 300 ppi they are 190 MB of the process's
    /// 345 MB peak, idle through recognition; allocating them again for the next page costs
    /// about 0.1 s of its 8 s (`Sources/NeuralNetwork/README.md`).
    public var releasesMemory: Bool

    public init(policy: DetectionPolicy = .rapidOCR, xHeight: Int? = nil, releasesMemory: Bool = true) {
        self.policy = policy
        self.xHeight = xHeight
        self.releasesMemory = releasesMemory
    }

    public mutating func lines(in page: Raster, wordHeight: Double?, detector: inout any NetworkRunning,
                               isCancelled: () -> Bool) throws -> [DetectedBox] {
        guard let plan = policy.plan(for: page.size, xHeight: xHeight, wordHeight: wordHeight) else { return [] }
        let map = try detector.run(height: plan.input.height, width: plan.input.width,
                                   filling: { DetectorInput.fill(&$0, from: page, plan: plan) }, isCancelled: isCancelled)
        let boxes = BoxFinder.boxes(in: map, plan: plan, policy: policy)
        if releasesMemory { detector.releaseMemory() }
        return boxes
    }
}

/// Lines cut out by `LineCrop`: rectified, and stood on their side when much taller than wide.
public struct RectifiedLines: LineCropping {
    public var policy: DetectionPolicy

    public init(policy: DetectionPolicy = .rapidOCR) { self.policy = policy }

    public func crop(_ page: Raster, along line: DetectedBox) -> CroppedLine {
        guard let cut = LineCrop(page: page, corners: line.corners, policy: policy) else {
            return CroppedLine(raster: Raster(width: 0, height: 0, layout: page.layout, pixels: []), corners: line.corners)
        }
        // Turned a quarter counter-clockwise, the crop's top left is the line's top right.
        let c = cut.corners
        return CroppedLine(raster: cut.image, corners: cut.isTurned ? [c[1], c[2], c[3], c[0]] : c)
    }
}
