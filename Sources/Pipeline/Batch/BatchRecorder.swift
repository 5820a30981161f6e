import Foundation
import GlossIndex
import GlossContract
import GlossReports
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands out the files of a batch to its workers, each once, in `order`.
final class FileQueue: Sendable {
    private let order: [Int]
    private let taken = Mutex(0)

    init(order: [Int]) { self.order = order }

    func next() -> Int? {
        taken.withLock { taken in
            guard taken < order.count else { return nil }
            defer { taken += 1 }
            return order[taken]
        }
    }

    /// The files' indices, the largest first (longest processing time first): a batch read in
    /// the order of its names can leave its largest page for last, read alone on one core while
    /// the other workers have nothing left. A file's bytes stand for its cost (over the 23 real
    /// pages of `bench/pipeline.sh --real`, a page's CPU correlates 0.58 with its bytes, 0.67
    /// with its pixels, which would take opening every file first). Files of unknown size (a
    /// URL, a file that cannot be examined) go first, in their order: their cost is unknown,
    /// and a fetch started early is waited for least. Equal sizes keep their order.
    static func largestFirst(_ sizes: [Int?]) -> [Int] {
        sizes.indices.sorted { a, b in
            switch (sizes[a], sizes[b]) {
            case (nil, nil): a < b
            case (nil, _?): true
            case (_?, nil): false
            case let (x?, y?): x != y ? x > y : a < b
            }
        }
    }
}

/// What a run makes of the pages an earlier run into its folder recorded (`BatchSetup`).
struct EarlierPages: Sendable {
    /// Every page recorded, in order: with this run's own, the record of which files in
    /// `pages/` Gloss wrote, the only ones it ever removes.
    var recorded: [ManifestEntry] = []
    /// The pages of each of this run's input files, by index: listed until this run finishes the
    /// file, so a run stopped part-way (even one with `--force`) loses none of them.
    var byFile: [Int: [ManifestEntry]] = [:]
    /// Pages of inputs this run does not read, kept in the batch, in front of its own pages.
    var retained: [ManifestEntry] = []
    /// Pages of inputs no longer named, which a run with `--prune` removes at its end (listed
    /// until then, so a run killed or stopped before its end prunes nothing).
    var pruned: [ManifestEntry] = []
    /// Each input's place in the batch's order (`IndexedPage.position`): this run's inputs
    /// from 0, as in the whole collection, the retained ones' before them, below 0.
    var positions: [String: Int] = [:]
}

/// Keeps the record of a running batch so that nothing it finished is lost.
///
/// Every finished page is first written to the batch's database, `gloss.sqlite`, in one
/// transaction, then appended to `gloss.journal` (one JSON line; a run killed mid-line leaves a
/// partial line that the next run ignores). The manifest and the index are rewritten at most
/// every two seconds, so the report can be opened while the batch runs, and whole at the end,
/// when the journal is no longer needed and the database holds exactly the manifest's pages.
///
/// A record that cannot be brought up to date at the end (a full disk) is named, with the one
/// it is behind, in `RecordsBehindError`; the next run with room repairs it from the other.
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
    /// Why the database could not take the first page it could not (a full disk): the batch
    /// goes on, the end of the run adds the page from its JSON file, and names this error if
    /// it cannot.
    private var indexError: (any Error)?
    private var entriesByFile: [Int: [ManifestEntry]] = [:]
    /// The source of each page id taken and not yet in the database: the pages being read.
    /// A recorded page's id is found in the database, so this stays as small as the pages in
    /// flight, however large the batch.
    private var claimed: [String: String] = [:]
    /// The ids a page of this run was refused because another source holds them: their files
    /// are that source's, whatever the records of the refused page say.
    private var heldElsewhere: Set<String> = []
    private let earlier: EarlierPages
    private var lastWrite = ContinuousClock.now
    /// The time from one running report's end to the next (`rewriteGap(after:)`).
    private var rewriteGap = rewriteInterval
    private static let rewriteInterval = Duration.seconds(2)
    /// The running report takes at most this share of the recorder's time: its rewrite grows
    /// with the batch (the whole manifest and front page), and every page's record waits
    /// behind it.
    static let rewriteShare = 10

    /// The gap before the next running report, after one that took `took`: two seconds, or ten
    /// times as long as it took (at 100,000 pages a rewrite is about 160 MB).
    static func rewriteGap(after took: Duration) -> Duration {
        max(rewriteInterval, took * rewriteShare)
    }

    init(layout: OutputLayout, settings: AnnotationSettings, fingerprint: String, fileCount: Int,
         earlier: EarlierPages = EarlierPages(), events: AsyncStream<BatchEvent>.Continuation?) throws {
        self.layout = layout
        self.earlier = earlier
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
        if let holder, holder != source {
            heldElsewhere.insert(id)
            return PageNameClash(name: id, source: source, other: holder)
        }
        claimed[id] = source
        return nil
    }

    /// Tells the batch's watcher something that is not a page's start or end.
    func note(_ event: BatchEvent) { events?.yield(event) }

    func start(_ key: PageKey) {
        events?.yield(.pageStarted(source: key.source, pageIndex: key.pageIndex))
    }

    /// A page this run finished (whatever its status), of the input at `position` in the
    /// whole input list.
    func record(_ entry: ManifestEntry, report: PageReport, position: Int, rewritten: Bool = false) {
        // A page stopped part-way replaces no row: the manifest keeps what an earlier run
        // recorded for it (`finish(interrupted:)`), and the index must say the same, or the
        // next run skips the page and the index keeps it unread.
        let replacesARow = entry.status == .cancelled && (try? database.status(ofPage: entry.id)) != nil
        if !replacesARow { store(entry, report: report, position: position) }
        release(entry)
        append(entry)
        events?.yield(rewritten && entry.status == .ok ? .pageRewritten(entry) : .pageFinished(entry))
    }

    /// A page an earlier run finished, with its report as read back from its JSON, if it has
    /// one: stored again if the database lacks it or holds it otherwise (a run killed between
    /// the two, a folder from before the database, a stopped run that once left a cancelled row).
    func skip(_ entry: ManifestEntry, report: PageReport?, position: Int) {
        // A lookup that fails stores the page again: recording replaces, so that is always safe.
        if let report, (try? database.status(ofPage: entry.id)) != report.status.rawValue {
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
            if indexError == nil { indexError = error }
        }
    }

    /// All pages of input file `index` are done; or, `interrupted`, as many as were reached
    /// before the batch was stopped, and then what an earlier run recorded for the pages this
    /// one did not finish stays listed.
    func finish(file index: Int, entries: [ManifestEntry], interrupted: Bool = false) {
        if interrupted, let earlier = earlier.byFile[index] {
            let finished = entries.filter { $0.status != .cancelled }
            let reached = Set(finished.map(\.pageIndex))
            entriesByFile[index] = (finished + earlier.filter { !reached.contains($0.pageIndex) }).sorted { $0.pageIndex < $1.pageIndex }
        } else {
            entriesByFile[index] = entries
        }
        if ContinuousClock.now - lastWrite >= rewriteGap {
            // The running report is a convenience for someone watching: the journal and the
            // database already hold every finished page, and `complete` writes the report whole
            // (and throws if it cannot). A failed rewrite is tried again after the gap.
            let started = ContinuousClock.now
            try? writeRunningReport()
            lastWrite = .now
            rewriteGap = Self.rewriteGap(after: lastWrite - started)
        }
    }

    /// Writes the manifest, the index and the search data of every page finished, drops the
    /// journal they now hold, removes the files of pages the manifest no longer lists, and
    /// brings the database to the manifest's pages. A run `interrupted` prunes nothing.
    ///
    /// The database goes first: a page it could not take while the batch ran is added from its
    /// JSON file now, and the pages no longer listed leave it. Then the manifest: until it is
    /// written, the journal and the database hold every page finished, and nothing is removed.
    /// Once it is, the journal goes, and so do the files it no longer lists (no later record
    /// would name them). A record that cannot be brought up to date (a full disk) is named in the
    /// error, with the one it is behind; the next run with room repairs it from that one.
    func complete(interrupted: Bool = false) throws -> BatchManifest {
        let pages = listedPages(pruning: !interrupted)
        var behind: RecordsBehindError?
        do {
            let missing = try reconcileIndex(with: pages)
            if missing > 0 {
                let cause = indexError.map { String(describing: $0) } ?? "\(BatchSummary.count(missing, "page")) listed are not in it"
                behind = RecordsBehindError(folder: layout.folder, behind: BatchIndex.fileName, ahead: "gloss.json", cause: cause)
            }
        } catch {
            behind = RecordsBehindError(folder: layout.folder, behind: BatchIndex.fileName, ahead: "gloss.json",
                                        cause: String(describing: error))
        }
        let notStarted = self.notStarted
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages,
                                     notStarted: notStarted > 0 ? notStarted : nil)
        do {
            try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        } catch {
            // The journal holds what the manifest lacks, and the database too unless it is behind as well.
            throw behind == nil
                ? RecordsBehindError(folder: layout.folder, behind: "gloss.json", ahead: "gloss.sqlite and gloss.journal",
                                     cause: String(describing: error))
                : RecordsBehindError(folder: layout.folder, behind: "gloss.json and gloss.sqlite", ahead: "gloss.journal",
                                     cause: String(describing: error))
        }
        unlink(layout.journalPath)
        removeUnlisted(keeping: pages)
        if !interrupted, !earlier.pruned.isEmpty { events?.yield(.pruned(pages: earlier.pruned.count)) }
        do {
            try BatchReport.writeSharedData(of: pages, searching: database.searchablePages(), into: layout)
            try BatchReport.writeIIIF(of: pages, settings: settings, into: layout)
            try BatchReport.writeIndex(of: pages, notStarted: notStarted, into: layout)
        } catch {
            behind = behind ?? RecordsBehindError(folder: layout.folder, behind: "the report (index.html, data/, iiif/)",
                                                  ahead: "gloss.json", cause: String(describing: error))
        }
        lastWrite = .now
        if let behind { throw behind }
        return manifest
    }

    /// The inputs of this run that no page of which was reached, nor recorded by an earlier run.
    /// A file a worker took just as the batch was stopped comes back with no entry: it was not
    /// started either.
    private var notStarted: Int {
        (0..<fileCount).count(where: { (entriesByFile[$0] ?? []).isEmpty && (earlier.byFile[$0] ?? []).isEmpty })
    }

    /// The pages the batch lists: the earlier pages it keeps, then this run's inputs' in their
    /// order; the pages of inputs no longer named too, unless `pruning`.
    private func listedPages(pruning: Bool) -> [ManifestEntry] {
        (pruning ? earlier.retained : earlier.retained + earlier.pruned)
            + (0..<fileCount).flatMap { entriesByFile[$0] ?? earlier.byFile[$0] ?? [] }
    }

    /// Makes the database hold the pages listed and no other: drops the others, puts the
    /// retained inputs in their places, and adds, from its JSON file, a listed page it lacks (one
    /// it could not take while the batch ran, a retained page an earlier run could not record).
    /// Returns how many it still lacks (pages without a JSON file).
    private func reconcileIndex(with pages: [ManifestEntry]) throws -> Int {
        let missing = try database.retainOnly(pages: Set(pages.map(\.id)))
        try database.setPositions(Dictionary(earlier.retained.map { ($0.source, earlier.positions[$0.source] ?? 0) },
                                             uniquingKeysWith: { first, _ in first }))
        var lacking = 0
        for entry in pages where missing.contains(entry.id) {
            guard let position = earlier.positions[entry.source],
                  let page = EarlierRun.indexedPage(entry, position: position, in: layout) else {
                lacking += 1
                continue
            }
            try database.record(page)
        }
        return lacking
    }

    /// Removes the files of `pages/` that a record names (the earlier run's manifest and journal,
    /// this run's entries) and no page listed still does: an input no longer named (with
    /// `--prune`), a page a multi-page file no longer has, a display copy that was a PNG and is
    /// now a JPEG. A file no record names is never touched, whoever put it there.
    private func removeUnlisted(keeping pages: [ManifestEntry]) {
        // A file of this run keeps the combined documents of the formats it asks for; one
        // retained from an earlier run (not named now) keeps all it had.
        let thisRun = Set(entriesByFile.values.flatMap { $0 }.map(\.source))
        let kept = Self.fileNames(of: pages.filter { thisRun.contains($0.source) }, combining: settings.formats)
            .union(Self.fileNames(of: pages.filter { !thisRun.contains($0.source) }))
        let recorded = Self.fileNames(of: earlier.recorded).union(Self.fileNames(of: entriesByFile.values.flatMap { $0 }))
        for name in recorded.subtracting(kept) where !heldElsewhere.contains(where: { name.hasPrefix($0 + ".") }) {
            unlink(layout.pagesFolder + "/" + name)
        }
        // The documents of `documents/` likewise: removed only when a record named them.
        let keptDocuments = Self.documentPaths(of: pages)
        let recordedDocuments = Self.documentPaths(of: earlier.recorded).union(Self.documentPaths(of: entriesByFile.values.flatMap { $0 }))
        for path in recordedDocuments.subtracting(keptDocuments) { unlink(layout.folder + "/" + path) }
    }

    /// The paths below `documents/` the entries name, relative to the batch folder; only paths
    /// that stay inside it (no `.` or `..` part).
    private static func documentPaths(of entries: [ManifestEntry]) -> Set<String> {
        Set(entries.flatMap { entry in
            entry.outputs.values.filter { path in
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                return parts.count >= 2 && parts[0] == "documents" && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
            }
        })
    }

    /// The names in `pages/` of the files the entries name, and of the combined documents of
    /// their multi-page files in `formats`, which are named as if the file had one page. Only
    /// plain names in `pages/`: a record naming anything else names no file of Gloss's.
    private static func fileNames(of entries: [ManifestEntry], combining formats: Set<OutputFormat> = Set(OutputFormat.allCases))
        -> Set<String> {
        var names = Set<String>(), multiPage = Set<String>()
        for entry in entries {
            for path in entry.outputs.values where path.hasPrefix("pages/") {
                let name = path.dropFirst("pages/".count)
                if !name.isEmpty, !name.contains("/"), name != ".", name != ".." { names.insert(String(name)) }
            }
            // Only a page of a multi-page file has an id ending in its page number.
            if entry.id.hasSuffix("-p\(entry.pageIndex + 1)") { multiPage.insert(entry.source) }
        }
        for source in multiPage {
            let combined = pageIdentifier(source: source, pageIndex: 0, pageCount: 1)
            for format in formats where format.combines { names.insert(combined + "." + format.fileExtension) }
        }
        return names
    }

    /// The manifest and the index as they stand, for someone watching the batch: every page
    /// still listed, those to be pruned too.
    private func writeRunningReport() throws {
        let pages = listedPages(pruning: false), notStarted = self.notStarted
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages,
                                     notStarted: notStarted > 0 ? notStarted : nil)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        try BatchReport.writeIndex(of: pages, notStarted: notStarted, into: layout)
    }

    /// Appends the entry's journal line whole, or none of it. A page the journal cannot take
    /// (a full disk) is in the database and in the manifest written at the end; if that write
    /// fails too, the next run reads the page again.
    private func append(_ entry: ManifestEntry) {
        let end = lseek(journal, 0, SEEK_END)
        do {
            let line = try JSONOutput.encode(entry, pretty: false) + [UInt8(ascii: "\n")]
            try AtomicFile.writeAll(line, to: journal, naming: layout.journalPath)
        } catch {
            // A part of a line would run into the next line and spoil it too.
            if end >= 0 { _ = ftruncate(journal, end) }
        }
    }
}

/// A batch's records that could not all be brought up to date at the end of a run (a full
/// disk): which one is behind, and the one that holds what it lacks. Nothing finished is lost:
/// the next run with room brings it up to date from that one.
public struct RecordsBehindError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    /// The records that are behind: `gloss.json`, `gloss.sqlite`, both, or the report.
    public var behind: String
    /// What holds the pages it lacks.
    public var ahead: String
    /// Why it could not be written.
    public var cause: String

    public var description: String {
        "\(cause); so \(behind) in \(folder) \(behind.contains(" and ") ? "are" : "is") behind \(ahead): "
            + "run the same command again, with room, to bring \(behind.contains(" and ") ? "them" : "it") up to date"
    }
}
