import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossIndex
import GlossTextRecognition
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a running batch reports, in the order it happens.
public enum BatchEvent: Sendable {
    /// The inputs are known: `files` files, of which some may hold several pages.
    case started(files: Int)
    case pageStarted(source: String, pageIndex: Int)
    /// A page ended, whatever its status (`ok`, `failed`, `timedOut`, `cancelled`).
    case pageFinished(ManifestEntry)
    /// A page an earlier run into the same folder already finished with the same input and settings.
    case pageSkipped(ManifestEntry)
    /// A page an earlier run read from the same input under settings that read alike, whose
    /// files were written again from that reading for this run's (other formats, say).
    case pageRewritten(ManifestEntry)
    /// An optional analyzer (faces) whose engine could not be built: the batch runs without it.
    case analyzerUnavailable(name: String, reason: String)
    /// A folder among the inputs that holds a Gloss batch (this run's own output, or another's):
    /// its files are outputs, not inputs, and are not read.
    case batchFolderSkipped(String)
    /// The database at `path` was damaged (`problem`), so it was built again from the `pages`
    /// page JSON files of earlier runs before this one started.
    case indexRebuilt(path: String, problem: String, pages: Int)
    /// A run with `--prune` removed the pages (files, manifest entries, database rows) of
    /// inputs it no longer names.
    case pruned(pages: Int)
    /// A page read again had its reviewers' corrections applied on top: `applied` of them, and
    /// `unmatched` no longer match it (their words are not where they were).
    case correctionsApplied(source: String, pageIndex: Int, applied: Int, unmatched: [Correction])
    /// The searchable PDF of the input at `source` was written without the PDF/A-2b claim asked
    /// for, because the input cannot conform (`reason`); its pages' reports say so too.
    case notArchival(source: String, reason: String)
    /// An input an earlier run finished could not be opened now (`reason`: gone, unreadable,
    /// a server's error, out of time): its `pages` pages as read then are kept, not replaced by
    /// a failure. Whether the file changed cannot be known until it opens again.
    case inputKept(source: String, reason: String, pages: Int)
}

/// Runs a batch: reads every page of every input, writes each page's outputs as soon as it is
/// done, keeps the manifest and the index current while it runs, and writes them whole at the end.
public struct Annotator: Sendable {
    /// What to read and write. IIIF annotations are made from the page JSON files, so a batch
    /// with IIIF always writes them.
    public var settings: AnnotationSettings {
        didSet { settings.formats.formUnion(settings.requiredFormats) }
    }
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
    /// The largest input read, in bytes (`--max-file-size`): a larger file is a failed page,
    /// refused from its size before a byte is read; a download is also stopped there.
    public var maxFileSize: Int
    /// Read only the inputs of this shard of the collection (`--shard K/N`); nil reads all.
    public var shard: Shard?
    /// When another run holds the output folder: wait for it to finish (`--wait`) rather than
    /// fail at once with `FolderLockError`.
    public var waitsForFolder = false
    /// Remove the pages of earlier inputs this run does not name (`--prune`). By default a run
    /// adds to its folder: the pages of inputs an earlier run read stay, with their files. Pages
    /// below an input folder that cannot be read are kept either way.
    public var prunes = false
    /// Analyzers run on every page after those the settings ask for (text, faces): how a
    /// program adds one of its own. Their names join the settings fingerprint, so pages read
    /// without them are read again.
    public var additionalAnalyzers: [any Analyzer] = []
    /// Read pages again without the corrections reviewers made to them (`--discard-corrections`).
    /// By default a page read again has them applied on top; discarded, they stay in the
    /// journal, marked so that no later run applies them.
    public var discardsCorrections = false

    public init(settings: AnnotationSettings = AnnotationSettings(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                pageTimeout: Duration? = nil, force: Bool = false, pixelsInFlight: Int = 300_000_000,
                fetching: RemoteFetchOptions = RemoteFetchOptions(), shard: Shard? = nil,
                maxFileSize: Int = ImageFile.defaultMaxFileSize) {
        self.settings = settings
        self.settings.formats.formUnion(settings.requiredFormats)
        self.jobs = max(1, jobs)
        self.pageTimeout = pageTimeout
        self.force = force
        self.pixelsInFlight = pixelsInFlight
        self.fetching = fetching
        self.shard = shard
        self.maxFileSize = maxFileSize
    }

    /// Annotates the images in `inputs` (files, or folders searched recursively) into `folder`,
    /// telling `events` as it goes (the stream is finished when this returns).
    ///
    /// Failed pages are recorded in the manifest; only a folder that cannot be written, or an
    /// engine that cannot be loaded, throws; and inputs that do not exist (`MissingInputError`,
    /// before the folder is made), an output folder that holds other files and is not a batch
    /// (`ForeignFolderError`), a language without its model (`TextRecognitionError`) or an
    /// output path that is a file (`OutputFolderError`), all refused before anything is
    /// written, or inputs that hold nothing to read (`EmptyInputError`, leaving the folder as it
    /// was before the run). Records that cannot be brought up to date at the end throw
    /// `RecordsBehindError`. Cancelling the calling task stops starting pages, cancels those in
    /// flight, and still writes the manifest and index of every finished page.
    public func annotate(
        _ inputs: [String], into folder: String, events: AsyncStream<BatchEvent>.Continuation? = nil
    ) async throws -> BatchManifest {
        defer { events?.finish() }
        // A path that names nothing is a mistake on the command line: refused before the
        // output folder is made.
        let missing = inputs.filter(InputCollector.namesNothing)
        guard missing.isEmpty else { throw MissingInputError(paths: missing) }
        // So is a language without its model, which would fail every page.
        if settings.recognizeText { try TextRecognizer.checkModels(for: settings.recognition) }
        // Gloss writes and removes only its own files: a folder of someone else's is not one
        // to mix them into.
        if let foreign = ForeignFolderError.checking(folder) { throw foreign }
        let layout = OutputLayout(folder: folder)
        let created = try OutputFolderCreation(layout: layout)
        try AtomicFile.createDirectory(folder)
        // Before anything in the folder is touched (even a killed run's temporary files, which
        // could be another live run's), and before the inputs are walked, so that the lock file
        // already marks this folder as a batch when it lies inside an input folder.
        let lock = try await FolderLock.acquire(folder, waiting: waitsForFolder)
        defer { withExtendedLifetime(lock) {} }
        try AtomicFile.createDirectory(layout.pagesFolder)
        // Walking the inputs, reading what an earlier run left and checking its database block on
        // file I/O for seconds on a large collection: a thread of their own, not the cooperative pool.
        let setup = try await Lane<Void>(name: "gloss-setup") {}.run { [shard, prunes] _ in
            try BatchSetup(inputs: inputs, layout: layout, shard: shard, prunes: prunes)
        }
        for skipped in setup.batchFolders { events?.yield(.batchFolderSkipped(skipped)) }
        // Nothing to read: no batch is made, and what this run created so far goes again.
        guard setup.collectionSize > 0 else {
            created.undo()
            throw EmptyInputError(inputs: inputs)
        }
        if let rebuilt = setup.rebuilt {
            events?.yield(.indexRebuilt(path: folder + "/" + BatchIndex.fileName, problem: rebuilt.problem, pages: rebuilt.pages))
        }
        let (files, positions, earlier) = (setup.files, setup.positions, setup.earlier)
        // A worker per file, up to `jobs`; all of them when a file may hold several pages,
        // which the workers share.
        let mayHoldPages = files.contains { ImageFormat(fileExtension: ($0.path as NSString).pathExtension)?.kind.holdsPages ?? false }
        let (graphs, unavailable, missingParts) = try await startGraphs(count: mayHoldPages ? jobs : min(jobs, max(1, files.count)))
        for (name, error) in unavailable.merging(missingParts, uniquingKeysWith: { first, _ in first }).sorted(by: { $0.key < $1.key }) {
            events?.yield(.analyzerUnavailable(name: name, reason: String(describing: error)))
        }
        // Pages read without an analyzer, or without part of one, are not the pages read with
        // it: a later run with a working engine reads them again.
        let settingsHash = fingerprint(without: Set(unavailable.keys).union(missingParts.keys))
        let readingHash = fingerprint(without: Set(unavailable.keys).union(missingParts.keys), readingOnly: true)
        // Read also with --force: until a file is read again, its earlier pages stay listed.
        let bySource = earlier.entriesBySource()
        var earlierPages = setup.earlierPages
        for (index, file) in files.enumerated() { earlierPages.byFile[index] = bySource[file.path] }
        let recorder = try BatchRecorder(layout: layout, settings: settings, fingerprint: settingsHash,
                                         fileCount: files.count, earlier: earlierPages, events: events)
        let batch = BatchRun(layout: layout, earlier: force ? nil : earlier, settingsHash: settingsHash, readingHash: readingHash,
                             recorder: recorder, budget: PixelBudget(limit: pixelsInFlight),
                             documents: setup.documentNames,
                             corrections: try CorrectionReplay(folder: folder, discard: discardsCorrections))
        events?.yield(.started(files: files.count))

        // As many files open at once as there are workers; their pages share the workers.
        let queue = FileQueue(order: setup.readingOrder)
        let pool = GraphPool(graphs)
        await withTaskGroup(of: Void.self) { group in
            for _ in graphs {
                group.addTask {
                    while !Task.isCancelled, let index = queue.next() {
                        let entries = await PageGraph.annotate(files[index], position: positions[index], in: batch, graphs: pool)
                        await recorder.finish(file: index, entries: entries, interrupted: Task.isCancelled)
                    }
                }
            }
        }
        return try await recorder.complete(interrupted: Task.isCancelled)
    }

    /// Reads one page of one image and returns its report, writing nothing.
    /// An analyzer asked for whose engine cannot be built is an error here: there is no batch
    /// to go on with.
    /// A part of an analyzer it reads without (the neural reader in `accurate`, where Tesseract
    /// then reads alone) is not: `missingPart` is told its name and why, and the page is read.
    public func read(file path: String, pageIndex: Int = 0,
                     missingPart: (@Sendable (_ name: String, _ reason: any Error) -> Void)? = nil) async throws -> PageReport {
        let (graphs, unavailable, missing) = try await startGraphs(count: 1)
        if let first = unavailable.min(by: { $0.key < $1.key }) { throw first.value }
        for (name, reason) in missing.sorted(by: { $0.key < $1.key }) { missingPart?(name, reason) }
        return await graphs[0].read(path, pageIndex: pageIndex)
    }

    /// The synchronous form of `read(file:pageIndex:)`, for callers that are not `async` (a C
    /// callback, a plug-in host): waits at most `timeout`, then cancels the page and throws
    /// `PageTimeoutError`. Built on the async path, so both behave alike. It blocks the calling
    /// thread: never call it from a task.
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

    /// Everything that decides a page's results: the settings, the added analyzers, and the
    /// analyzers that could not run.
    func fingerprint(without unavailable: Set<String> = [], readingOnly: Bool = false) -> String {
        let base = readingOnly ? settings.readingFingerprint : settings.fingerprint
        let added = additionalAnalyzers.map(\.name), missing = unavailable.sorted()
        guard !added.isEmpty || !missing.isEmpty else { return base }
        let text = base + "+" + added.joined(separator: ",") + "-" + missing.joined(separator: ",")
        return String(SHA256.hex(of: Array(text.utf8)).prefix(16))
    }

    /// One graph per worker, with its engines loaded, in parallel. Throws if a required engine
    /// cannot be loaded; an optional one that cannot is left out of every worker, and named.
    private func startGraphs(count: Int) async throws -> (graphs: [PageGraph], unavailable: [String: any Error],
                                                          missing: [String: any Error]) {
        let analyzers = settings.analyzers + additionalAnalyzers
        let workers = (0..<count).map { Worker(number: $0, analyzers: analyzers, modelFolder: settings.recognition.dataPath) }
        let (unavailable, missing) = try await withThrowingTaskGroup(of: ([String: any Error], [String: any Error]).self) { group in
            for worker in workers { group.addTask { try await worker.start() } }
            return try await group.reduce(into: ([String: any Error](), [String: any Error]())) {
                $0.0.merge($1.0) { first, _ in first }
                $0.1.merge($1.1) { first, _ in first }
            }
        }
        let graphs = workers.map {
            PageGraph(worker: $0.dropping(Set(unavailable.keys)), settings: settings, fetching: fetching, pageTimeout: pageTimeout,
                      maxFileSize: maxFileSize)
        }
        return (graphs, unavailable, missing)
    }
}

/// What a batch finds before its first page: its inputs, what an earlier run into the folder
/// left (its temporary files removed, its database rebuilt when damaged), and what becomes of
/// the pages of earlier inputs this run does not read.
private struct BatchSetup: Sendable {
    /// The inputs of this shard, and each one's place in the whole collection, so shards merge
    /// back into one order.
    var files: [InputCollector.Input]
    var positions: [Int]
    /// The order the workers take `files` in (`FileQueue.largestFirst`).
    var readingOrder: [Int]
    var batchFolders: [String]
    /// Inputs in the whole collection, all shards together.
    var collectionSize: Int
    /// The documents' names, from the whole collection: a shard names each input's document as
    /// a run over every input would, so that shards merge into one `documents/` without clashes.
    var documentNames: DocumentNames
    var earlier: EarlierRun
    var earlierPages = EarlierPages()
    var rebuilt: (problem: String, pages: Int)?

    init(inputs: [String], layout: OutputLayout, shard: Shard?, prunes: Bool) throws {
        let walk = InputCollector.walk(inputs)
        let collection = walk.inputs
        positions = collection.indices.filter { shard?.contains(collection[$0]) ?? true }
        files = positions.map { collection[$0] }
        readingOrder = FileQueue.largestFirst(files.map(\.byteCount))
        batchFolders = walk.batchFolders
        collectionSize = collection.count
        guard collectionSize > 0 else {
            documentNames = DocumentNames(sources: [])
            earlier = EarlierRun()
            return
        }
        AtomicFile.removeLeftovers(in: [layout.folder, layout.pagesFolder] + layout.documentFolders)
        earlier = try EarlierRun(layout: layout)
        documentNames = DocumentNames(sources: collection.map(\.path), earlier: earlier.pages)
        let recorded = earlier.pages
        let reading = Set(files.map(\.path))
        // A shard's inputs are its own share of the collection: with `--prune` its folder keeps
        // no page of another shard's (the shards' count changed since it was written).
        let unnamed = Self.unnamed(earlier.pages.filter { !reading.contains($0.source) }, walk: walk, inputs: inputs,
                                   named: reading, prunes: prunes)
        // The retained inputs go before this run's, in the order the earlier run had them.
        var order = Dictionary(collection.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
        var retainedSources: [String] = []
        for entry in unnamed.retained where order[entry.source] == nil {
            order[entry.source] = 0
            retainedSources.append(entry.source)
        }
        for (place, source) in retainedSources.enumerated() { order[source] = place - retainedSources.count }
        if let problem = try BatchIndex.damage(in: layout.folder) {
            rebuilt = (problem, try earlier.rebuildIndex(in: layout, positions: order, reading: reading))
        }
        earlierPages = EarlierPages(recorded: recorded, retained: unnamed.retained, pruned: unnamed.pruned, positions: order)
    }

    /// Of the earlier pages of inputs this run does not read, those the batch keeps, and those
    /// `--prune` removes: the pages of inputs no longer named, except those below a folder that
    /// could not be read, whose state is unknown. An earlier run's failed entry for a folder it
    /// could not read, which this run walks, is neither: the folder's pages stand for it now.
    private static func unnamed(_ pages: [ManifestEntry], walk: InputCollector.Walk, inputs: [String], named: Set<String>,
                                prunes: Bool) -> (retained: [ManifestEntry], pruned: [ManifestEntry]) {
        guard !pages.isEmpty else { return ([], []) }
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        func below(_ path: String, _ folders: [String]) -> Bool {
            folders.contains { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        }
        let unreadable = walk.unreadableFolders.map(absolute)
        let walked = inputs.filter { !RemoteFetcher.isRemote($0) && isFolder($0) }.map(absolute)
        var retained: [ManifestEntry] = [], pruned: [ManifestEntry] = []
        for entry in pages {
            if entry.status != .ok, isFolder(entry.source) {
                let path = absolute(entry.source)
                if below(path, walked), !below(path, unreadable) { continue }
            }
            if prunes, !named.contains(entry.source), unreadable.isEmpty || !below(absolute(entry.source), unreadable) {
                pruned.append(entry)
            } else {
                retained.append(entry)
            }
        }
        return (retained, pruned)
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

/// Hands a result from the task that made it to the thread that waits for it.
private final class OutcomeBox: Sendable {
    private let result = Mutex<Result<PageReport, any Error>?>(nil)

    func store(_ outcome: Result<PageReport, any Error>) { result.withLock { $0 = outcome } }
    func take() throws -> PageReport { try result.withLock { $0! }.get() }
}
