import GlossContract
import GlossImaging
import Synchronization

/// The seam where analyzers plug into the page graph: one type per analyzer, nothing else to edit.
///
/// An analyzer says which copy of the page it needs, builds its engine once on a lane (a thread)
/// of its own, and returns what it found in the one currency: boxes normalised to 0...1, origin
/// bottom left. The graph makes each distinct copy once, runs every analyzer of a page at once,
/// times each under its `name`, and converts all findings to page pixels in one place.
///
/// A new analyzer (a stamp finder, a CNN face detector) is one conforming type, added to the
/// list `AnalyzerSet.analyzers(for:)` builds from the settings.
public protocol Analyzer: Sendable {
    /// What the engine holds: a C handle, loaded weights. Created and used only on the lane.
    associatedtype Engine

    /// Names the analyzer's stage in timings and errors (`ocr`, `faces`) and its lane's thread.
    var name: String { get }
    /// The copy of the page the analyzer reads.
    var image: ImageRequest { get }
    /// Whether a batch goes on without the analyzer when its engine cannot be built (a face
    /// model that does not load), rather than stopping before its first page.
    var isOptional: Bool { get }
    /// Whether the analyzer finds the page's text: `--skip-text` leaves it out on a PDF page
    /// that already holds text.
    var readsText: Bool { get }
    /// Whether the engine holds page-sized maps while it reads (the neural detector's: about
    /// 150 MB for an A4 page at 300 ppi). Its worker then keeps no engine it seldom needs
    /// beside them from page to page (`PagePreparer.DetectorLifetime`).
    var holdsPageSizedMaps: Bool { get }

    /// Builds the engine on the analyzer's lane, once per worker; throws when it cannot be
    /// built (a missing model), which stops the batch before any page is read.
    func makeEngine() throws -> Engine

    /// The parts of a built engine that could not be built, each with why, when the analyzer
    /// reads without them (the neural reader in `accurate`: Tesseract then reads alone). A batch
    /// names them and leaves them out of its settings' fingerprint, so its pages are read again
    /// by a run that has them.
    func missingParts(of engine: Engine) -> [String: any Error]

    /// Analyzes one page on the lane. Long work polls `cancellation` (or `Task.isCancelled`)
    /// and throws `CancellationError` when it is raised.
    func analyze(_ image: AnalyzerImage, with engine: Engine, cancellation: CancellationFlag) throws -> PageFindings
}

extension Analyzer {
    public var isOptional: Bool { false }
    public var readsText: Bool { false }
    public var holdsPageSizedMaps: Bool { false }
    public func missingParts(of engine: Engine) -> [String: any Error] { [:] }
}

/// The copy of a page an analyzer asks for. Equal requests share one copy.
public struct ImageRequest: Hashable, Sendable {
    /// The longest side in pixels; nil keeps the decoded size.
    public var longestSide: Int?
    /// Scans stated clearly above this resolution (pixels per inch, by more than a third) are
    /// reduced to it; nil keeps them. A 400 ppi scan is read as it is, a 600 ppi one reduced.
    public var maximumResolution: Int?
    /// Grey or colour; nil keeps the decoded layout.
    public var layout: Raster.Layout?

    public init(longestSide: Int? = nil, maximumResolution: Int? = nil, layout: Raster.Layout? = nil) {
        self.longestSide = longestSide
        self.maximumResolution = maximumResolution
        self.layout = layout
    }
}

/// What an analyzer is handed: its copy of the page and that copy's resolution.
///
/// Each analyzer gets an image of its own, which it may empty with `takeRaster()`: an engine
/// that copies the pixels into its own memory (Tesseract does) then holds the only copy while
/// it works, and a 100-megapixel page is not in memory twice.
public struct AnalyzerImage: Sendable {
    private let holder: Holder
    /// Pixels per inch of this copy, when the file stated a resolution.
    public var resolution: Int?
    /// The other way the page may stand, for an analyzer that reads text: the orientation
    /// detector was unsure, and the page is read both ways.
    public var doubtfulOrientation: DoubtfulOrientation?
    /// The page's way up, left unasked by the preparer for the text analyzer's first reading.
    var orientationQuestion: OrientationQuestion?

    public init(raster: Raster, resolution: Int?) {
        holder = Holder(raster)
        self.resolution = resolution
    }

    /// The copy; an empty raster once taken.
    public var raster: Raster {
        holder.raster.withLock { $0 ?? Self.taken }
    }

    /// The copy, which this image then no longer holds.
    public func takeRaster() -> Raster {
        holder.raster.withLock { held in
            defer { held = nil }
            return held ?? Self.taken
        }
    }

    /// What is left once the copy is taken.
    private static let taken = Raster(width: 0, height: 0, layout: .gray, pixels: [])

    /// An image of its own over the same pixels (shared until either is changed).
    func separate() -> AnalyzerImage {
        var image = AnalyzerImage(raster: raster, resolution: resolution)
        image.doubtfulOrientation = doubtfulOrientation
        image.orientationQuestion = orientationQuestion
        return image
    }

    private final class Holder: Sendable {
        let raster: Mutex<Raster?>
        init(_ raster: Raster) { self.raster = Mutex(raster) }
    }
}
