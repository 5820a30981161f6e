import GlossContract
import GlossImaging
import GlossReports
import Synchronization

/// The copies of a page that its analyzers and its page view read, each made once.
struct PageCopies: Sendable {
    /// One per distinct request of the analyzers.
    var images: [ImageRequest: AnalyzerImage] = [:]
    /// For people: the picture under the report's overlay; nil when no page view shows one.
    var display: Raster?

    init(of page: DecodedPage, for requests: Set<ImageRequest>, displayDimension: Int?) {
        display = displayDimension.map { page.raster.downsampled(toFit: $0) }
        for request in requests { images[request] = copy(of: page, for: request) }
    }

    private func copy(of page: DecodedPage, for request: ImageRequest) -> AnalyzerImage {
        var raster = page.raster, resolution = page.resolution
        if let maximum = request.maximumResolution, let stated = resolution, stated > maximum * 4 / 3 {
            let scale = Double(maximum) / Double(stated)
            raster = raster.resampled(width: max(1, Int((Double(raster.width) * scale).rounded())),
                                      height: max(1, Int((Double(raster.height) * scale).rounded())))
            resolution = maximum
        }
        if let longestSide = request.longestSide, max(raster.width, raster.height) > longestSide {
            // A display copy at least as large holds every pixel this copy needs, and is smaller to read.
            let source = display.map { max($0.width, $0.height) >= longestSide } == true ? display! : raster
            let scaled = source.downsampled(toFit: longestSide)
            resolution = resolution.map { Int((Double($0) * Double(scaled.width) / Double(raster.width)).rounded()) }
            raster = scaled
        }
        if request.layout == .gray { raster = raster.grayscale() }
        return AnalyzerImage(raster: raster, resolution: resolution)
    }
}

/// The files of one page in the batch folder: `pages/<id>.<format>` and the display copy.
struct PageFiles {
    let layout: OutputLayout
    let settings: AnnotationSettings

    /// Writes every requested format, and the display copy when there is one, each atomically;
    /// returns the files written by format, relative to the batch folder.
    func write(_ report: PageReport, display: Raster?, id: String) throws -> [String: String] {
        var outputs: [String: String] = [:]
        var imageName: String?
        if let display {
            let name = id + ".png"
            try AtomicFile.write(try display.pngData(fast: true), to: layout.pagesFolder + "/" + name)
            outputs["image"] = "pages/" + name
            imageName = name
        }
        let files = try renderPage(report, formats: settings.formats, context: settings.reportContext,
                                   links: PageLinks(imagePath: imageName))
        for file in files {
            let name = id + "." + file.fileExtension
            try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + name)
            outputs[file.format.rawValue] = "pages/" + name
        }
        return outputs
    }
}

/// Wall time per stage for one page, recorded from all its analyzers at once.
final class StageClock: Sendable {
    private let pageStart = ContinuousClock.now
    private let state = Mutex((timings: StageTimings(), timeline: [StageSpan]()))

    func time<Output>(_ stage: Stage, _ body: () async throws -> Output) async throws -> Output {
        let start = ContinuousClock.now
        let output = try await body()
        let end = ContinuousClock.now
        state.withLock {
            $0.timings.record(stage.rawValue, end - start)
            $0.timeline.append(StageSpan(stage: stage.rawValue, start: (start - pageStart).milliseconds,
                                         end: (end - pageStart).milliseconds))
        }
        return output
    }

    var recorded: StageTimings { state.withLock { $0.timings } }
    var timeline: [StageSpan] { state.withLock { $0.timeline } }
}
