import GlossGeometry
import GlossImaging
import GlossReports
import GlossTextRecognition

/// A page as the worker produced it: the report, and the display copy for the HTML view.
struct ReadPage: Sendable {
    var report: PageReport
    var pageCount: Int
    var display: Raster?
}

/// One lane of a batch: a thread of its own and the Tesseract engine that lives on it.
///
/// The engine is created once, when the worker is, and serves every page the worker reads.
/// Being an actor whose executor is a dedicated thread, the worker keeps the blocking decode
/// and recognition calls off Swift's cooperative pool, and the engine never crosses threads.
actor PageWorker {
    private let executor: ThreadExecutor
    private let settings: AnnotationSettings
    private var engine: TextRecognizer?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A worker with its thread; its engine is loaded by `start()`, on that thread.
    init(settings: AnnotationSettings, name: String) {
        executor = ThreadExecutor(name: name)
        self.settings = settings
    }

    deinit { executor.shutdown() }

    /// Loads the engine on the worker's own thread: loading takes about 100 ms, which would
    /// otherwise block a thread of the cooperative pool. Throws when a model is missing.
    func start() throws {
        if engine == nil { engine = try TextRecognizer(options: settings.recognition) }
    }

    private func recognizer() throws -> TextRecognizer {
        try start()
        return engine!
    }

    /// Reads the pages of `path` (all of them, or only `onlyPage`). A file that cannot be
    /// opened yields one failed page; a page that fails does not stop the next.
    func read(file path: String, onlyPage: Int? = nil) async -> [ReadPage] {
        let clock = ContinuousClock()
        var timings = StageTimings()
        let file: ImageFile
        do {
            let start = clock.now
            file = try ImageFile(contentsOf: path, pixelLimit: settings.pixelLimit)
            timings.record(Stage.read.rawValue, clock.now - start)
        } catch {
            return [failed(path, page: onlyPage ?? 0, stage: .read, error, timings)]
        }
        let pages = onlyPage.map { [$0] } ?? Array(0..<file.pageCount)
        var results: [ReadPage] = []
        for index in pages {
            if Task.isCancelled { break }
            var pageTimings = timings
            results.append(await read(page: index, of: file, timings: &pageTimings))
        }
        return results
    }

    private func read(page index: Int, of file: ImageFile, timings: inout StageTimings) async -> ReadPage {
        let clock = ContinuousClock()
        var start = clock.now
        let decoded: DecodedPage
        do {
            decoded = try file.decodePage(index)
        } catch {
            return failed(file.path, page: index, stage: .decode, error, timings, pageCount: file.pageCount)
        }
        timings.record(Stage.decode.rawValue, clock.now - start)

        start = clock.now
        let flag = CancellationFlag()
        let text: RecognizedText
        do {
            // The closure calls through `self`, which keeps it isolated to this worker and so on
            // its thread. A closure capturing only a local engine loses that isolation and runs
            // on the shared pool (measured: a 100 ms sleep in another task then came 3.3 s late).
            text = try await withTaskCancellationHandler {
                try self.recognize(decoded, cancellation: flag)
            } onCancel: {
                flag.raise()
            }
        } catch is CancellationError {
            return ReadPage(
                report: PageReport(source: file.path, pageIndex: index, status: .cancelled, error: "cancelled", timings: timings),
                pageCount: file.pageCount, display: nil)
        } catch {
            return failed(file.path, page: index, stage: .ocr, error, timings, pageCount: file.pageCount)
        }
        timings.record(Stage.ocr.rawValue, clock.now - start)

        start = clock.now
        let display = decoded.raster.downsampled(toFit: settings.displayDimension)
        timings.record("downsample", clock.now - start)
        let report = PageReport(
            source: file.path, pageIndex: index, size: decoded.raster.size, text: text, timings: timings)
        return ReadPage(report: report, pageCount: file.pageCount, display: display)
    }

    private func recognize(_ page: DecodedPage, cancellation: CancellationFlag) throws -> RecognizedText {
        try recognizer().recognize(page.raster, resolution: page.resolution, cancellation: cancellation)
    }

    private func failed(
        _ path: String, page: Int, stage: Stage, _ error: any Error, _ timings: StageTimings, pageCount: Int = 1
    ) -> ReadPage {
        let cause = (error as? ImagingError)?.reasonText ?? String(describing: error)
        let pageError = PageError(file: path, pageIndex: page, stage: stage, cause: cause)
        return ReadPage(
            report: PageReport(source: path, pageIndex: page, status: .failed, error: pageError.description, timings: timings),
            pageCount: pageCount, display: nil)
    }

    /// Writes a page's JSON, display image and HTML, each atomically, and returns its manifest entry.
    func write(_ page: ReadPage, into layout: OutputLayout) -> ManifestEntry {
        var report = page.report
        let id = pageIdentifier(source: report.source, pageIndex: report.pageIndex, pageCount: page.pageCount)
        var entry = ManifestEntry(report: report, id: id)
        do {
            var imageName: String?
            if let display = page.display {
                let clock = ContinuousClock(), start = clock.now
                try AtomicFile.write(try display.pngData(), to: layout.pagesFolder + "/" + id + ".png")
                imageName = id + ".png"
                report.timings.record("render", clock.now - start)
            }
            try AtomicFile.write(try JSONOutput.encode(report), to: layout.pagesFolder + "/" + id + ".json")
            let html = PageView(report: report, imagePath: imageName).render()
            try AtomicFile.write(html, to: layout.pagesFolder + "/" + id + ".html")
            entry.outputs = ManifestEntry.Outputs(
                json: "pages/\(id).json", html: "pages/\(id).html", image: imageName.map { "pages/" + $0 })
        } catch {
            let pageError = PageError(file: report.source, pageIndex: report.pageIndex, stage: .write,
                                      cause: String(describing: error))
            entry.status = .failed
            entry.error = pageError.description
        }
        return entry
    }
}
