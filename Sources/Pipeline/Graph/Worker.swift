import GlossContract
import GlossImaging

/// The lanes and engines of one worker: an image lane for decoding, preparing, copies and
/// files (it holds the page preparer and its orientation engine), and a lane per analyzer
/// holding its engine. Built once per batch, used page after page.
struct Worker: Sendable {
    let image: Lane<PagePreparer>
    let analyzers: [AnalyzerLane]

    /// `modelFolder` is where Tesseract's models are, for the preparer's orientation engine.
    init(number: Int, analyzers: [any Analyzer], modelFolder: String? = nil) {
        let lifetime = Self.detectorLifetime(for: analyzers)
        image = Lane(name: "gloss-image-\(number)") { PagePreparer(dataPath: modelFolder, detectorLifetime: lifetime) }
        self.analyzers = analyzers.map { AnalyzerLane($0, worker: number) }
    }

    /// How long the preparer keeps its orientation detector: a page at a time when an analyzer
    /// holds page-sized maps, for the batch otherwise.
    static func detectorLifetime(for analyzers: [any Analyzer]) -> PagePreparer.DetectorLifetime {
        analyzers.contains(where: \.holdsPageSizedMaps) ? .page : .batch
    }

    private init(image: Lane<PagePreparer>, analyzers: [AnalyzerLane]) {
        self.image = image
        self.analyzers = analyzers
    }

    /// This worker without the analyzers named.
    func dropping(_ names: Set<String>) -> Worker {
        Worker(image: image, analyzers: analyzers.filter { !names.contains($0.name) })
    }

    /// The copies this worker's analyzers ask for, each once.
    var imageRequests: Set<ImageRequest> { Set(analyzers.map(\.image)) }

    /// Builds every engine on its own thread, at once. Throws when a required one cannot be
    /// built; returns why each optional one could not (`unavailable`, by analyzer), and why
    /// each part an analyzer reads without could not (`missing`, by the analyzer's name and the
    /// part's, `Analyzer.missingParts`).
    func start() async throws -> (unavailable: [String: any Error], missing: [String: any Error]) {
        try await withThrowingTaskGroup(of: (String, (any Error)?, [String: any Error]).self) { group in
            for analyzer in analyzers {
                group.addTask {
                    do {
                        let missing = try await analyzer.start()
                        return (analyzer.name, nil, missing)
                    } catch where analyzer.isOptional {
                        return (analyzer.name, error, [:])
                    }
                }
            }
            var unavailable: [String: any Error] = [:], missing: [String: any Error] = [:]
            for try await (name, error, parts) in group {
                if let error { unavailable[name] = error }
                for (part, error) in parts { missing[name + ": " + part] = error }
            }
            return (unavailable, missing)
        }
    }
}

/// One analyzer and the lane that owns its engine, with the analyzer's type hidden so that a
/// worker can hold a list of them.
struct AnalyzerLane: Sendable {
    let name: String
    let image: ImageRequest
    let isOptional: Bool
    let readsText: Bool
    /// Builds the engine; returns the parts of it that could not be built (`Analyzer.missingParts`).
    let start: @Sendable () async throws -> [String: any Error]
    /// Runs the analyzer on the lane; Swift's cancellation of the calling task raises the flag
    /// the engine polls, so a blocking C call (Tesseract) stops too.
    let analyze: @Sendable (AnalyzerImage) async throws -> PageFindings

    init<Kind: Analyzer>(_ analyzer: Kind, worker number: Int) {
        let lane = Lane(name: "gloss-\(analyzer.name)-\(number)") { try analyzer.makeEngine() }
        name = analyzer.name
        image = analyzer.image
        isOptional = analyzer.isOptional
        readsText = analyzer.readsText
        start = { try await lane.run { engine in analyzer.missingParts(of: engine) } }
        analyze = { image in
            let flag = CancellationFlag()
            return try await withTaskCancellationHandler {
                try await lane.run { engine in try analyzer.analyze(image, with: engine, cancellation: flag) }
            } onCancel: {
                flag.raise()
            }
        }
    }
}
