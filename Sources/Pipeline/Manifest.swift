import GlossReports

/// Where a batch writes: `DIR/gloss.json`, `DIR/index.html` and `DIR/pages/`.
public struct OutputLayout: Sendable {
    public var folder: String

    public init(folder: String) { self.folder = folder }

    public var pagesFolder: String { folder + "/pages" }
    public var manifestPath: String { folder + "/gloss.json" }
    public var indexPath: String { folder + "/index.html" }
}

/// One page's line in the batch manifest.
public struct ManifestEntry: Codable, Sendable, Equatable {
    public struct Outputs: Codable, Sendable, Equatable {
        public var json: String
        public var html: String
        public var image: String?
    }

    public var source: String
    public var pageIndex: Int
    public var id: String
    public var status: PageStatus
    public var error: String?
    public var words: Int
    public var meanConfidence: Double?
    public var faces: Int
    /// Paths relative to the batch folder; nil when the page produced no outputs.
    public var outputs: Outputs?

    init(report: PageReport, id: String) {
        source = report.source
        pageIndex = report.pageIndex
        self.id = id
        status = report.status
        error = report.error
        words = report.words.count
        meanConfidence = report.words.isEmpty
            ? nil : (report.words.map(\.confidence).reduce(0, +) / Double(report.words.count) * 10).rounded() / 10
        faces = report.faces.count
        outputs = nil
    }
}

/// The batch manifest, `DIR/gloss.json`: one entry per page, in input order.
public struct BatchManifest: Codable, Sendable {
    public var generator: String
    public var settings: AnnotationSettings
    public var pages: [ManifestEntry]

    public var failedCount: Int { pages.filter { $0.status != .ok }.count }
}
