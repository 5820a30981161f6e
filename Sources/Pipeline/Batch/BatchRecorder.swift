import Foundation
import GlossIndex
import GlossContract
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
/// Every finished page is first written to the batch's database, `gloss.sqlite`, in one
/// transaction, then appended to `gloss.journal` (one JSON line; a run killed mid-line leaves a
/// partial line that the next run ignores). The manifest and the index are rewritten at most
/// every two seconds, so the report can be opened while the batch runs, and whole at the end,
/// when the journal is no longer needed and the database holds exactly the manifest's pages.
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
    private let database: BatchIndex
    /// The first page the database or the journal could not take: the batch goes on, and ends
    /// with this error.
    private var recordError: (any Error)?
    private var entriesByFile: [Int: [ManifestEntry]] = [:]
    private var lastWrite = ContinuousClock.now
    private static let rewriteInterval = Duration.seconds(2)

    init(layout: OutputLayout, settings: AnnotationSettings, fingerprint: String, fileCount: Int,
         events: AsyncStream<BatchEvent>.Continuation?) throws {
        self.layout = layout
        self.settings = settings
        self.fileCount = fileCount
        self.events = events
        journal = open(layout.journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard journal >= 0 else { throw OutputError(path: layout.journalPath, cause: systemError()) }
        database = try BatchIndex(folder: layout.folder, create: true)
        try database.setSettings(json: String(decoding: try JSONOutput.encode(settings, pretty: false), as: UTF8.self),
                                 fingerprint: fingerprint)
        try BatchReport.writeAssets(into: layout)
    }

    deinit {
        close(journal)
        executor.shutdown()
    }

    func start(_ key: PageKey) {
        events?.yield(.pageStarted(source: key.source, pageIndex: key.pageIndex))
    }

    /// A page this run finished (whatever its status), of the input at `position` in the
    /// whole input list.
    func record(_ entry: ManifestEntry, report: PageReport, position: Int) {
        store(entry, report: report, position: position)
        append(entry)
        events?.yield(.pageFinished(entry))
    }

    /// A page an earlier run finished, with its report as read back from its JSON, if it has
    /// one: stored again if the database lacks it (a run killed between the two, or a folder
    /// from before the database).
    func skip(_ entry: ManifestEntry, report: PageReport?, position: Int) {
        // A lookup that fails stores the page again: recording replaces, so that is always safe.
        if let report, (try? database.contains(page: entry.id)) != true {
            store(entry, report: report, position: position)
        }
        append(entry)
        events?.yield(.pageSkipped(entry))
    }

    private func store(_ entry: ManifestEntry, report: PageReport, position: Int) {
        do {
            try database.record(IndexedPage(name: entry.id, position: position, inputHash: entry.inputHash,
                                            settingsHash: entry.settingsHash, outputs: entry.outputs, report: report))
        } catch {
            if recordError == nil { recordError = error }
        }
    }

    /// All pages of input file `index` are done.
    func finish(file index: Int, entries: [ManifestEntry]) {
        entriesByFile[index] = entries
        if ContinuousClock.now - lastWrite >= Self.rewriteInterval {
            // The running report is a convenience for someone watching: the journal and the
            // database already hold every finished page, and `complete` writes the report whole
            // (and throws if it cannot). A failed rewrite is tried again two seconds later.
            do { try writeReport(final: false) } catch { lastWrite = .now }
        }
    }

    /// Writes the manifest, the index and the search data of every page finished, and drops the
    /// journal they now hold.
    func complete() throws -> BatchManifest {
        let manifest = try writeReport(final: true)
        unlink(layout.journalPath)
        if let recordError { throw recordError }
        return manifest
    }

    @discardableResult
    private func writeReport(final: Bool) throws -> BatchManifest {
        lastWrite = .now
        let pages = (0..<fileCount).flatMap { entriesByFile[$0] ?? [] }
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        if final {
            try database.retainOnly(pages: Set(pages.map(\.id)))
            try BatchReport.writeSharedData(of: pages, searching: database.searchablePages(), into: layout)
        }
        try BatchReport.writeIndex(of: pages, into: layout)
        return manifest
    }

    /// Appends the entry's journal line whole, or remembers why it could not.
    private func append(_ entry: ManifestEntry) {
        do {
            let line = try JSONOutput.encode(entry, pretty: false) + [UInt8(ascii: "\n")]
            try AtomicFile.writeAll(line, to: journal, naming: layout.journalPath)
        } catch {
            if recordError == nil { recordError = error }
        }
    }
}
