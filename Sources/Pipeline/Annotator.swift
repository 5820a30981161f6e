import Foundation
import GlossFaceDetection
import GlossGeometry
import GlossImaging
import GlossReports

/// What a running batch reports, in the order it happens.
public enum BatchEvent: Sendable {
    /// The inputs are known: `files` files, of which some may hold several pages.
    case started(files: Int)
    case pageStarted(source: String, pageIndex: Int)
    /// A page ended, whatever its status (`ok`, `failed`, `timedOut`, `cancelled`).
    case pageFinished(ManifestEntry)
    /// A page an earlier run into the same folder already finished with the same input and settings.
    case pageSkipped(ManifestEntry)
}

/// Runs a batch: reads every page of every input, writes each page's outputs as soon as it is
/// done, keeps the manifest and the index current while it runs, and writes them whole at the end.
public struct Annotator: Sendable {
    public var settings: AnnotationSettings
    /// How many pages are read at once, each by a worker with its own engines.
    public var jobs: Int
    /// A page still running after this long is cancelled and recorded as `timedOut`.
    public var pageTimeout: Duration?
    /// Recompute pages an earlier run already finished.
    public var force: Bool
    /// Pixels decoded at once across all workers; a page waits for room before it is decoded.
    /// The default, 300 megapixels, keeps a batch of 600 ppi colour scans within a few GiB.
    public var pixelsInFlight: Int
    /// How `http://` and `https://` inputs are downloaded: timeouts, retries, size cap.
    public var fetching: RemoteFetchOptions
    /// Read only the inputs of this shard of the collection (`--shard K/N`); nil reads all.
    public var shard: Shard?

    public init(settings: AnnotationSettings = AnnotationSettings(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                pageTimeout: Duration? = nil, force: Bool = false, pixelsInFlight: Int = 300_000_000,
                fetching: RemoteFetchOptions = RemoteFetchOptions(), shard: Shard? = nil) {
        self.settings = settings
        self.jobs = max(1, jobs)
        self.pageTimeout = pageTimeout
        self.force = force
        self.pixelsInFlight = pixelsInFlight
        self.fetching = fetching
        self.shard = shard
    }

    /// Annotates the images in `inputs` (files, or folders searched recursively) into `folder`,
    /// telling `events` as it goes (the stream is finished when this returns).
    ///
    /// Failed pages are recorded in the manifest; only a folder that cannot be written, or an
    /// engine that cannot be loaded, throws. Cancelling the calling task stops starting pages,
    /// cancels those in flight, and still writes the manifest and index of every finished page.
    public func annotate(
        _ inputs: [String], into folder: String, events: AsyncStream<BatchEvent>.Continuation? = nil
    ) async throws -> BatchManifest {
        defer { events?.finish() }
        let layout = OutputLayout(folder: folder)
        try AtomicFile.createDirectory(layout.pagesFolder)
        // A file keeps its place in the whole collection, so shards merge back into one order.
        let collection = InputCollector.inputs(from: inputs)
        let positions = collection.indices.filter { shard?.contains(collection[$0]) ?? true }
        let files = positions.map { collection[$0] }
        AtomicFile.removeLeftovers(in: [layout.folder, layout.pagesFolder])
        let earlier = force ? nil : EarlierRun(layout: layout)
        let recorder = try BatchRecorder(layout: layout, settings: settings, fileCount: files.count, events: events)
        events?.yield(.started(files: files.count))
        let workers = try await startWorkers(count: min(jobs, max(1, files.count)))

        let settingsHash = settings.fingerprint
        let queue = FileQueue(count: files.count)
        let budget = PixelBudget(limit: pixelsInFlight)
        await withTaskGroup(of: Void.self) { group in
            for worker in workers {
                group.addTask {
                    while !Task.isCancelled, let index = queue.next() {
                        let entries = await annotate(files[index], position: positions[index], with: worker,
                                                     into: layout, earlier: earlier,
                                                     settingsHash: settingsHash, recorder: recorder, budget: budget)
                        await recorder.finish(file: index, entries: entries)
                    }
                }
            }
        }
        return try await recorder.complete()
    }

    /// Reads one page of one image and returns its report, writing nothing.
    public func read(file path: String, pageIndex: Int = 0) async throws -> PageReport {
        let worker = try await startWorkers(count: 1)[0]
        let graph = PageGraph(worker: worker, settings: settings, layout: nil)
        switch await open(path, on: worker) {
        case .failure(let failure):
            return PageReport(source: path, pageIndex: pageIndex, status: .failed, error: failure.description)
        case .success(let file):
            return await withPageTimeout { await graph.process(page: pageIndex, of: file, id: "") }.report
        }
    }

    /// The synchronous form of `read(file:pageIndex:)`, for callers that are not `async`: waits
    /// at most `timeout`, then cancels the page and throws `PageTimeoutError`. Built on the async
    /// path, so both behave alike. It blocks the calling thread: never call it from a task.
    public func readSynchronously(file path: String, pageIndex: Int = 0, timeout: Duration) throws -> PageReport {
        let outcome = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            outcome.store(await Result(catching: { try await read(file: path, pageIndex: pageIndex) }))
            done.signal()
        }
        if done.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            task.cancel()
            done.wait()
            throw PageTimeoutError(file: path, pageIndex: pageIndex, timeout: timeout)
        }
        return try outcome.take()
    }

    /// Every page of one file: skipped when an earlier run finished it, else run through the graph.
    private func annotate(
        _ input: InputCollector.Input, position: Int, with worker: Worker, into layout: OutputLayout, earlier: EarlierRun?, settingsHash: String,
        recorder: BatchRecorder, budget: PixelBudget
    ) async -> [ManifestEntry] {
        let graph = PageGraph(worker: worker, settings: settings, layout: layout)
        let file: ImageFile
        let path = input.path
        switch await open(path, unreadable: input.problem, on: worker) {
        case .failure(let failure):
            let report = PageReport(source: path, pageIndex: 0, status: .failed, error: failure.description)
            let entry = graph.finish(report, id: pageIdentifier(source: path, pageIndex: 0, pageCount: 1)).entry!
            await recorder.record(entry, report: report, position: position)
            return [entry]
        case .success(let opened):
            file = opened
        }
        let inputHash = (try? await worker.image.run { _ in SHA256.hex(of: file.bytes) }) ?? ""
        var entries: [ManifestEntry] = []
        var reports: [PageReport] = []
        for index in 0..<file.pageCount {
            if Task.isCancelled { break }
            let id = pageIdentifier(source: path, pageIndex: index, pageCount: file.pageCount)
            let key = PageKey(source: path, pageIndex: index)
            if let done = earlier?.finished(key, inputHash: inputHash, settingsHash: settingsHash, in: layout) {
                // Read back once, on the lane: for the batch search and for combined documents.
                let report: PageReport? = try? await worker.image.run { [layout] _ in
                    try done.outputs["json"].map { json in
                        try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: layout.folder + "/" + json))))
                    }
                }
                await recorder.skip(done, report: report, position: position)
                entries.append(done)
                if let report { reports.append(report) }
                continue
            }
            let pixels = await budget.acquire(file.storedSize.pixelCount)
            await recorder.start(key)
            let outcome = await withPageTimeout { await graph.process(page: index, of: file, id: id) }
            await budget.release(pixels)
            var entry = outcome.entry!
            entry.inputHash = inputHash
            entry.settingsHash = settingsHash
            await recorder.record(entry, report: outcome.report, position: position)
            entries.append(entry)
            reports.append(outcome.report)
        }
        if file.pageCount > 1, reports.count == file.pageCount, settings.formats.contains(where: \.combines) {
            await writeCombined(reports, id: pageIdentifier(source: path, pageIndex: 0, pageCount: 1), on: worker, into: layout)
        }
        return entries
    }

    /// hOCR and ALTO also get one document for all pages of a multi-page file.
    private func writeCombined(_ reports: [PageReport], id: String, on worker: Worker, into layout: OutputLayout) async {
        let files = renderCombined(reports, formats: settings.formats, context: settings.reportContext)
        _ = try? await worker.image.run { _ in
            for file in files { try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + id + "." + file.fileExtension) }
        }
    }

    /// Reads a local file, or downloads a remote one, and parses its header on the worker's
    /// image lane. The download is the graph's first stage for a URL; it does not block a lane.
    private func open(_ path: String, unreadable: String? = nil, on worker: Worker) async -> Result<ImageFile, PageError> {
        if let unreadable { return .failure(PageError(file: path, pageIndex: 0, stage: .read, cause: unreadable)) }
        var stage = Stage.read
        do {
            var bytes: [UInt8]?
            if RemoteFetcher.isRemote(path) {
                stage = .fetch
                guard let url = URL(string: path) else {
                    throw FetchError(url: URL(fileURLWithPath: "/"), cause: .unsupportedURL, attempts: 0)
                }
                bytes = try await RemoteFetcher(options: fetching).fetch(url)
                stage = .read
            }
            return .success(try await worker.image.run { [pixelLimit = settings.pixelLimit, bytes] _ in
                if let bytes { return try ImageFile(bytes: bytes, path: path, pixelLimit: pixelLimit) }
                return try ImageFile(contentsOf: path, pixelLimit: pixelLimit)
            })
        } catch {
            return .failure(PageError(file: path, pageIndex: 0, stage: stage, cause: causeText(of: error)))
        }
    }

    /// Runs a page with the batch's timeout: if the page is still running when it expires, the
    /// page is cancelled (Tesseract stops at its next check) and reported `timedOut`.
    private func withPageTimeout(
        _ page: @escaping @Sendable () async -> PageGraph.Outcome
    ) async -> PageGraph.Outcome {
        guard let pageTimeout else { return await page() }
        return await withTaskGroup(of: PageGraph.Outcome?.self) { group in
            group.addTask { await page() }
            group.addTask {
                try? await Task.sleep(for: pageTimeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            // A page that finished first stands, even if its time ran out while it was writing.
            if let first { return first }
            var outcome = await group.next()!!
            if outcome.report.status == .cancelled {
                outcome.report.status = .timedOut
                outcome.report.error = PageTimeoutError(file: outcome.report.source, pageIndex: outcome.report.pageIndex,
                                                        timeout: pageTimeout).description
                outcome.entry?.status = .timedOut
                outcome.entry?.error = outcome.report.error
            }
            return outcome
        }
    }

    /// Workers with their engines loaded, in parallel; throws if an engine cannot be loaded.
    private func startWorkers(count: Int) async throws -> [Worker] {
        let faces = settings.detectFaces ? try FaceDetector.standard() : nil
        let workers = (0..<count).map { Worker(number: $0, settings: settings, faces: faces) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { try await worker.start() } }
            try await group.waitForAll()
        }
        return workers
    }
}

/// A page that ran longer than the batch allows.
public struct PageTimeoutError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var pageIndex: Int
    public var timeout: Duration

    public var description: String {
        let place = pageIndex == 0 ? file : "\(file), page \(pageIndex + 1)"
        return "\(place): timed out after \(DecimalText.format(timeout.secondsValue)) s"
    }
}

/// Hands a result from the task that made it to the thread that waits for it.
private final class OutcomeBox: @unchecked Sendable {
    // `@unchecked`: written once before the semaphore is signalled, read after it is waited on.
    private var result: Result<PageReport, any Error>?

    func store(_ result: Result<PageReport, any Error>) { self.result = result }
    func take() throws -> PageReport { try result!.get() }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
