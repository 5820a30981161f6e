import Foundation
import GlossReports
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands out the files of a batch to its workers, each once.
final class FileQueue: Sendable {
    private let count: Int
    private let taken = Mutex(0)

    init(count: Int) { self.count = count }

    func next() -> Int? {
        taken.withLock { taken in
            guard taken < count else { return nil }
            defer { taken += 1 }
            return taken
        }
    }
}

/// Keeps the record of a running batch so that nothing it finished is lost.
///
/// Every finished page is appended at once to `gloss.journal` (one JSON line; a run killed
/// mid-line leaves a partial line that the next run ignores). The manifest and the index are
/// rewritten at most every two seconds, so the report can be opened while the batch runs, and
/// whole at the end, when the journal is no longer needed.
actor BatchRecorder {
    /// The journal, manifest, index and search data are written from a thread of the recorder's
    /// own: at 5,000 pages the index alone takes tens of milliseconds to render, and none of it
    /// should hold up a thread of the cooperative pool.
    private let executor = ThreadExecutor(name: "gloss-recorder")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let layout: OutputLayout
    private let settings: AnnotationSettings
    private let fileCount: Int
    private let events: AsyncStream<BatchEvent>.Continuation?
    private let journal: Int32
    private var entriesByFile: [Int: [ManifestEntry]] = [:]
    private var searchPages: [PageKey: BatchPage] = [:]
    private var lastWrite = ContinuousClock.now
    private static let rewriteInterval = Duration.seconds(2)

    init(layout: OutputLayout, settings: AnnotationSettings, fileCount: Int,
         events: AsyncStream<BatchEvent>.Continuation?) throws {
        self.layout = layout
        self.settings = settings
        self.fileCount = fileCount
        self.events = events
        journal = open(layout.journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard journal >= 0 else { throw OutputError(path: layout.journalPath, cause: systemError()) }
        for file in ReportAssets.files {
            try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
    }

    deinit {
        close(journal)
        executor.shutdown()
    }

    func start(_ key: PageKey) {
        events?.yield(.pageStarted(source: key.source, pageIndex: key.pageIndex))
    }

    /// A page this run finished (whatever its status).
    func record(_ entry: ManifestEntry, report: PageReport) {
        append(entry)
        if let html = entry.outputs["html"] { searchPages[entry.key] = BatchPage(report: report, htmlPath: html) }
        events?.yield(.pageFinished(entry))
    }

    /// A page an earlier run finished, with its report as read back from its JSON (for the
    /// batch search), if it has one.
    func skip(_ entry: ManifestEntry, report: PageReport?) {
        append(entry)
        if let html = entry.outputs["html"], let report { searchPages[entry.key] = BatchPage(report: report, htmlPath: html) }
        events?.yield(.pageSkipped(entry))
    }

    /// All pages of input file `index` are done.
    func finish(file index: Int, entries: [ManifestEntry]) {
        entriesByFile[index] = entries
        if ContinuousClock.now - lastWrite >= Self.rewriteInterval {
            _ = try? writeReport(final: false)
        }
    }

    /// Writes the manifest, the index and the search data of every page finished, and drops the
    /// journal they now hold.
    func complete() throws -> BatchManifest {
        let manifest = try writeReport(final: true)
        unlink(layout.journalPath)
        return manifest
    }

    @discardableResult
    private func writeReport(final: Bool) throws -> BatchManifest {
        lastWrite = .now
        let pages = (0..<fileCount).flatMap { entriesByFile[$0] ?? [] }
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        if final {
            for file in BatchData.files(for: pages.compactMap { searchPages[$0.key] }) {
                try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
                try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
            }
        }
        let index = BatchIndexView(entries: pages.map {
            BatchIndexView.Entry(
                source: $0.source, pageIndex: $0.pageIndex, status: $0.status, error: $0.error, wordCount: $0.words,
                meanConfidence: $0.meanConfidence, faceCount: $0.faces, htmlPath: $0.outputs["html"],
                imagePath: $0.outputs["image"])
        })
        try AtomicFile.write(index.render(), to: layout.indexPath)
        return manifest
    }

    private func append(_ entry: ManifestEntry) {
        guard let line = try? JSONOutput.encode(entry, pretty: false) else { return }
        let bytes = line + [UInt8(ascii: "\n")]
        _ = bytes.withUnsafeBytes { Glibc.write(journal, $0.baseAddress, $0.count) }
    }
}
