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
    /// The source of each page id taken and not yet in the database: the pages being read.
    /// A recorded page's id is found in the database, so this stays as small as the pages in
    /// flight, however large the batch.
    private var claimed: [String: String] = [:]
    /// What an earlier run recorded for each input file: listed until this run finishes the
    /// file, so a run stopped part-way (even one with `--force`) loses none of the earlier pages.
    private let earlierByFile: [Int: [ManifestEntry]]
    private var lastWrite = ContinuousClock.now
    private static let rewriteInterval = Duration.seconds(2)

    init(layout: OutputLayout, settings: AnnotationSettings, fingerprint: String, fileCount: Int,
         earlier: [Int: [ManifestEntry]] = [:], events: AsyncStream<BatchEvent>.Continuation?) throws {
        self.layout = layout
        earlierByFile = earlier
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

    /// Takes the id `id` for a page of `source`, or says which other source has it already,
    /// among the pages being read or in the batch's database: the page is then failed before a
    /// file of it is written, so that it replaces nothing. One indexed lookup a page.
    func claim(_ id: String, for source: String) -> PageNameClash? {
        let holder = claimed[id] ?? (try? database.source(ofPage: id)) ?? nil
        if let holder, holder != source { return PageNameClash(name: id, source: source, other: holder) }
        claimed[id] = source
        return nil
    }

    func start(_ key: PageKey) {
        events?.yield(.pageStarted(source: key.source, pageIndex: key.pageIndex))
    }

    /// A page this run finished (whatever its status), of the input at `position` in the
    /// whole input list.
    func record(_ entry: ManifestEntry, report: PageReport, position: Int) {
        store(entry, report: report, position: position)
        release(entry)
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
        release(entry)
        append(entry)
        events?.yield(.pageSkipped(entry))
    }

    /// The page's claim, once the database holds it (a page refused for its id holds none).
    private func release(_ entry: ManifestEntry) {
        if claimed[entry.id] == entry.source { claimed[entry.id] = nil }
    }

    private func store(_ entry: ManifestEntry, report: PageReport, position: Int) {
        do {
            try database.record(IndexedPage(name: entry.id, position: position, inputHash: entry.inputHash,
                                            settingsHash: entry.settingsHash, outputs: entry.outputs, report: report))
        } catch is PageNameClash {
            // The page failed for it already (`claim`): the index keeps the other source's.
        } catch {
            if recordError == nil { recordError = error }
        }
    }

    /// All pages of input file `index` are done; or, `interrupted`, as many as were reached
    /// before the batch was stopped, and then what an earlier run recorded for the pages this
    /// one did not finish stays listed.
    func finish(file index: Int, entries: [ManifestEntry], interrupted: Bool = false) {
        if interrupted, let earlier = earlierByFile[index] {
            let finished = entries.filter { $0.status != .cancelled }
            let reached = Set(finished.map(\.pageIndex))
            entriesByFile[index] = (finished + earlier.filter { !reached.contains($0.pageIndex) }).sorted { $0.pageIndex < $1.pageIndex }
        } else {
            entriesByFile[index] = entries
        }
        if ContinuousClock.now - lastWrite >= Self.rewriteInterval {
            // The running report is a convenience for someone watching: the journal and the
            // database already hold every finished page, and `complete` writes the report whole
            // (and throws if it cannot). A failed rewrite is tried again two seconds later.
            do { try writeReport(final: false) } catch { lastWrite = .now }
        }
    }

    /// Writes the manifest, the index and the search data of every page finished, drops the
    /// journal they now hold, and removes the files of pages the manifest no longer lists.
    func complete() throws -> BatchManifest {
        let manifest = try writeReport(final: true)
        unlink(layout.journalPath)
        removeUnlisted(keeping: manifest.pages)
        if let recordError { throw recordError }
        return manifest
    }

    /// A folder holds the pages of its last run's inputs: the files of any other page (an
    /// input no longer named, a page a multi-page file no longer has) go, once the manifest
    /// that no longer lists them is written, and so does a listed page's picture that its
    /// entry no longer names (a display copy that was a PNG and is now a JPEG). Only `pages/`
    /// is touched, which Gloss alone writes.
    private func removeUnlisted(keeping pages: [ManifestEntry]) {
        let pictures = Set(pages.flatMap { [$0.outputs["image"], $0.outputs["thumbnail"]] }.compactMap { $0?.split(separator: "/").last })
        var stems = Set(pages.map(\.id))
        // A multi-page file's combined hOCR and ALTO are named as if it had one page.
        let pageCounts = Dictionary(grouping: pages, by: \.source).mapValues(\.count)
        for (source, count) in pageCounts where count > 1 {
            stems.insert(pageIdentifier(source: source, pageIndex: 0, pageCount: 1))
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: layout.pagesFolder) else { return }
        for name in names {
            let isPicture = name.hasSuffix(".png") || name.hasSuffix(".jpg")
            let listed = isPicture ? pictures.contains(Substring(name))
                : name.indices.contains { name[$0] == "." && stems.contains(String(name[..<$0])) }
            if !listed { unlink(layout.pagesFolder + "/" + name) }
        }
    }

    @discardableResult
    private func writeReport(final: Bool) throws -> BatchManifest {
        lastWrite = .now
        let pages = (0..<fileCount).flatMap { entriesByFile[$0] ?? earlierByFile[$0] ?? [] }
        let notStarted = (0..<fileCount).count(where: { entriesByFile[$0] == nil && earlierByFile[$0] == nil })
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages,
                                     notStarted: notStarted > 0 ? notStarted : nil)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        if final {
            try database.retainOnly(pages: Set(pages.map(\.id)))
            try BatchReport.writeSharedData(of: pages, searching: database.searchablePages(), into: layout)
            try BatchReport.writeIIIF(of: pages, settings: settings, into: layout)
        }
        try BatchReport.writeIndex(of: pages, notStarted: notStarted, into: layout)
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
