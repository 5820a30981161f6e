import GlossContract
import GlossImaging

/// The lanes and engines of one worker: an image lane for decoding, copies and files, and a
/// lane per analyzer holding its engine. Built once per batch, used page after page.
struct Worker: Sendable {
    let image: Lane<Void>
    let analyzers: [AnalyzerLane]

    init(number: Int, analyzers: [any Analyzer]) {
        image = Lane(name: "gloss-image-\(number)") {}
        self.analyzers = analyzers.map { AnalyzerLane($0, worker: number) }
    }

    /// The copies this worker's analyzers ask for, each once.
    var imageRequests: Set<ImageRequest> { Set(analyzers.map(\.image)) }

    /// Builds every engine on its own thread, at once; throws when one cannot be built.
    func start() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for analyzer in analyzers { group.addTask { try await analyzer.start() } }
            try await group.waitForAll()
        }
    }
}

/// One analyzer and the lane that owns its engine, with the analyzer's type hidden so that a
/// worker can hold a list of them.
struct AnalyzerLane: Sendable {
    let name: String
    let image: ImageRequest
    let start: @Sendable () async throws -> Void
    /// Runs the analyzer on the lane; Swift's cancellation of the calling task raises the flag
    /// the engine polls, so a blocking C call (Tesseract) stops too.
    let analyze: @Sendable (AnalyzerImage) async throws -> PageFindings

    init<Kind: Analyzer>(_ analyzer: Kind, worker number: Int) {
        let lane = Lane(name: "gloss-\(analyzer.name)-\(number)") { try analyzer.makeEngine() }
        name = analyzer.name
        image = analyzer.image
        start = { try await lane.start() }
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
