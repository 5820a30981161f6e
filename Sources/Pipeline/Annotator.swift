import Foundation
import GlossFaceDetection
import GlossImaging
import GlossReports
import Synchronization

/// Runs a batch: reads every page of every input, writes each page's outputs as soon as it is
/// done, then the manifest and the index.
public struct Annotator: Sendable {
    public var settings: AnnotationSettings
    /// How many pages are read at once, each by a worker with its own engines.
    public var jobs: Int

    public init(settings: AnnotationSettings = AnnotationSettings(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.settings = settings
        self.jobs = max(1, jobs)
    }

    /// Annotates the images in `inputs` (files, or folders searched recursively) into `folder`.
    /// `onPage` hears of every finished page, in the order they finish. Failed pages are
    /// recorded in the manifest; only a folder that cannot be written, or an engine that cannot
    /// be loaded, throws.
    public func annotate(
        _ inputs: [String], into folder: String, onPage: @escaping @Sendable (ManifestEntry) -> Void = { _ in }
    ) async throws -> BatchManifest {
        let layout = OutputLayout(folder: folder)
        try AtomicFile.createDirectory(layout.pagesFolder)
        let files = InputCollector.files(from: inputs)
        let workers = try await startWorkers(count: min(jobs, max(1, files.count)))

        let progress = BatchProgress(fileCount: files.count)
        await withTaskGroup(of: Void.self) { group in
            for worker in workers {
                group.addTask {
                    while !Task.isCancelled, let index = progress.takeNextFile() {
                        var entries: [ManifestEntry] = []
                        for (_, entry) in await read(files[index], with: worker, into: layout) {
                            guard let entry else { continue }
                            onPage(entry)
                            entries.append(entry)
                        }
                        progress.finish(file: index, entries: entries)
                    }
                }
            }
        }

        let pages = progress.entriesInInputOrder()
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        let index = BatchIndexView(entries: pages.map {
            BatchIndexView.Entry(
                source: $0.source, pageIndex: $0.pageIndex, status: $0.status, error: $0.error, wordCount: $0.words,
                meanConfidence: $0.meanConfidence, faceCount: $0.faces, htmlPath: $0.outputs?.html)
        })
        try AtomicFile.write(index.render(), to: layout.indexPath)
        return manifest
    }

    /// Reads one page of one image and returns its report, writing nothing.
    public func read(file path: String, pageIndex: Int = 0) async throws -> PageReport {
        let worker = try await startWorkers(count: 1)[0]
        let pages = await read(path, with: worker, into: nil, onlyPage: pageIndex)
        guard let page = pages.first else { throw CancellationError() }
        return page.report
    }

    /// Opens `path` on the worker's image lane and runs the page graph for its pages.
    private func read(
        _ path: String, with worker: Worker, into layout: OutputLayout?, onlyPage: Int? = nil
    ) async -> [(report: PageReport, entry: ManifestEntry?)] {
        let graph = PageGraph(worker: worker, settings: settings, layout: layout)
        let file: ImageFile
        do {
            file = try await worker.image.run { [pixelLimit = settings.pixelLimit] _ in
                try ImageFile(contentsOf: path, pixelLimit: pixelLimit)
            }
        } catch {
            let cause = (error as? ImagingError)?.reasonText ?? String(describing: error)
            let failure = PageError(file: path, pageIndex: onlyPage ?? 0, stage: .read, cause: cause)
            let report = PageReport(source: path, pageIndex: onlyPage ?? 0, status: .failed, error: failure.description)
            return [graph.finish(report, id: pageIdentifier(source: path, pageIndex: 0, pageCount: 1))]
        }
        var results: [(report: PageReport, entry: ManifestEntry?)] = []
        for index in onlyPage.map({ [$0] }) ?? Array(0..<file.pageCount) {
            if Task.isCancelled { break }
            let id = pageIdentifier(source: path, pageIndex: index, pageCount: file.pageCount)
            results.append(await graph.process(page: index, of: file, id: id))
        }
        return results
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

/// The files a batch still has to start, and the entries of those it finished, shared by its workers.
private final class BatchProgress: Sendable {
    private let fileCount: Int
    private let state = Mutex<(next: Int, finished: [Int: [ManifestEntry]])>((0, [:]))

    init(fileCount: Int) { self.fileCount = fileCount }

    func takeNextFile() -> Int? {
        state.withLock { state in
            guard state.next < fileCount else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    func finish(file index: Int, entries: [ManifestEntry]) {
        state.withLock { $0.finished[index] = entries }
    }

    func entriesInInputOrder() -> [ManifestEntry] {
        state.withLock { state in (0..<fileCount).flatMap { state.finished[$0] ?? [] } }
    }
}
