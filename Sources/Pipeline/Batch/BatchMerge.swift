import Foundation

#if canImport(Glibc)
import Glibc
#endif
import GlossIndex
import GlossContract
import GlossReports

/// Folds the outputs of shards (`annotate --shard K/N`, each run on its own machine) into one
/// batch: page files, documents (each input's searchable PDF and text), index database,
/// manifest, report and search data.
///
/// Nothing is written until every shard has passed its checks: not being written by a run now,
/// a manifest, an index that passes SQLite's integrity check (opened read-only and immutable,
/// so a shard may sit on a read-only mount), and the two listing the same pages with the same
/// files, whose files are all there. A shard is not trusted: every page id and file it names
/// must be one Gloss could have written (`ShardFiles`), only the regular files its pages list
/// are taken, and two sources with one page id anywhere in the merge refuse it. The merged
/// batch is then built whole in a folder beside the output and renamed into its place, so a
/// merge that fails or is killed leaves the output as it was.
///
/// Merging is idempotent: merging a shard again, or merging into a batch that already holds
/// some of its pages, leaves one copy of each page.
public enum BatchMerge {
    /// Merges `folders` into `output` (created if missing; an existing batch there is kept and
    /// added to), holding the output's lock throughout; `waiting` waits for a run that holds it.
    public static func merge(_ folders: [String], into output: String, waiting: Bool = false) async throws -> BatchManifest {
        let target = absolute(output)
        for folder in folders where absolute(folder) == target {
            throw MergeError(folder: folder, reason: "is the output folder itself")
        }
        let shards = try folders.map(CheckedShard.init(checking:))
        var fingerprint: String?
        for shard in shards {
            if let fingerprint, let theirs = shard.fingerprint, fingerprint != theirs {
                throw MergeError(folder: shard.folder, reason: "was read with other settings than the shards before it")
            }
            fingerprint = fingerprint ?? shard.fingerprint
        }

        try restoreAfterKilledMerge(target)
        if let foreign = ForeignFolderError.checking(output) { throw MergeError(folder: output, reason: foreign.reason) }
        try AtomicFile.createDirectory(output)
        let lock = try await FolderLock.acquire(output, waiting: waiting)
        let existing = try existingBatch(in: output)
        try checkDistinctIDs(of: (existing.map { [($0.folder, $0.listed)] } ?? []) + shards.map { ($0.folder, $0.listed) })
        if let theirs = try existing?.index.setting("settings_hash"), let fingerprint, theirs != fingerprint {
            throw MergeError(folder: shards[0].folder, reason: "was read with other settings than the batch it is merged into")
        }

        let parent = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        try sweepKilledMerges(of: target)
        let staging = parent + "/." + name + ".merging-\(getpid())"
        let layout = OutputLayout(folder: staging)
        do {
            try AtomicFile.createDirectory(layout.pagesFolder)
            let stagingLock = try await FolderLock.acquire(staging)
            let manifest = try build(layout, named: name, from: shards, startingWith: existing)
            try carryOver(from: target, into: staging)
            let replaced = parent + "/." + name + ".replaced-\(getpid())"
            try move(target, to: replaced)
            try move(staging, to: target)
            try? FileManager.default.removeItem(atPath: replaced)
            withExtendedLifetime((lock, stagingLock, shards)) {}
            return manifest
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// The merged batch, written whole into `layout`'s folder.
    private static func build(_ layout: OutputLayout, named name: String, from shards: [CheckedShard],
                              startingWith existing: ExistingBatch?) throws -> BatchManifest {
        var expected = Set<String>()
        if let existing {
            try existing.files.copy(into: layout.folder)
            try existing.index.copy(to: layout.folder + "/" + BatchIndex.fileName)
            expected = existing.pageNames
        }
        let merged = try BatchIndex(folder: layout.folder, create: true)
        for shard in shards {
            try shard.files.copy(into: layout.folder)
            try merged.merge(from: shard.index.path)
            expected.formUnion(shard.pageNames)
        }

        guard let settingsJSON = try merged.setting("settings") else {
            throw MergeError(folder: layout.folder, reason: "none of the shards records the settings it was read with")
        }
        let settings: AnnotationSettings
        do {
            settings = try JSONDecoder().decode(AnnotationSettings.self, from: Data(settingsJSON.utf8))
        } catch {
            throw MergeError(folder: layout.folder, reason: "the recorded settings are not this Gloss's: \(error)")
        }
        // What only the manifests hold (the index does not): taken from the batch merged into,
        // then each shard in turn, as their pages are.
        var recorded: [String: ManifestEntry] = existing?.recorded ?? [:]
        for shard in shards { recorded.merge(shard.recorded) { _, theirs in theirs } }
        let pages = try merged.pages().map { page in ManifestEntry(page).carrying(recorded[page.name]) }
        // The count reported is the count merged: every page of every shard, once.
        guard Set(pages.map(\.id)) == expected else {
            throw MergeError(folder: layout.folder, reason: "the merged index holds \(pages.count) pages where \(expected.count) were expected")
        }
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        try mergeCorrections(into: layout.folder, from: (existing.map { [($0.folder, $0.pageNames)] } ?? [])
                                + shards.map { ($0.folder, $0.pageNames) })
        try BatchReport.writeAssets(into: layout)
        try BatchReport.writeSharedData(of: pages, searching: merged.searchablePages(), into: layout)
        try BatchReport.writeIIIF(of: pages, settings: settings, into: layout, label: name)
        try BatchReport.writeIndex(of: pages, into: layout)
        return manifest
    }

    /// The journals of corrections of the batch merged into and of the shards, as one: each
    /// correction once (merging a shard again adds none), in the order the folders are given,
    /// and of each folder only the corrections of pages it holds (a shard is not trusted).
    private static func mergeCorrections(into folder: String, from sources: [(folder: String, pages: Set<String>)]) throws {
        var seen = Set<[UInt8]>(), lines: [UInt8] = []
        for source in sources {
            let corrections: [Correction]
            do { corrections = try CorrectionJournal.read(in: source.folder) } catch {
                throw MergeError(folder: source.folder, reason: String(describing: error))
            }
            for correction in corrections where source.pages.contains(correction.page) {
                let line = try JSONOutput.encode(correction, pretty: false) + [UInt8(ascii: "\n")]
                if seen.insert(line).inserted { lines += line }
            }
        }
        guard !lines.isEmpty else { return }
        try AtomicFile.write(lines, to: CorrectionJournal.path(in: folder))
    }

    /// A shard, checked: nothing is merged from it unless all of this holds.
    private struct CheckedShard {
        var folder: String
        var index: BatchIndex
        var pageNames: Set<String>
        var fingerprint: String?
        var listed: [BatchIndex.ListedPage]
        /// The files its pages list, checked: all that is taken from its `pages/`.
        var files: ShardFiles
        /// Each page's entry in its manifest, by page id: what the index does not hold.
        var recorded: [String: ManifestEntry]

        /// The shard's lock, shared, for as long as the merge reads it: a run started on it
        /// meanwhile (a task run again) would change the files the checks below passed.
        var reading: FolderLock?

        init(checking folder: String) throws {
            self.folder = folder
            do {
                reading = try FolderLock.reading(folder)
            } catch {
                throw MergeError(folder: folder, reason: "a gloss run is writing it now; merge it once that run has ended")
            }
            let manifest = try readManifest(of: folder)
            // A run stopped (Ctrl-C, SIGTERM) writes its manifest with the inputs it did not
            // start; one killed leaves its journal, and a manifest written while it ran.
            if let notStarted = manifest.notStarted, notStarted > 0 {
                throw MergeError(folder: folder, reason: "its run stopped before it started "
                                 + (notStarted == 1 ? "1 input" : "\(notStarted) inputs") + " (run it again to finish it)")
            }
            if FileManager.default.fileExists(atPath: OutputLayout(folder: folder).journalPath) {
                throw MergeError(folder: folder, reason: "its run did not finish (gloss.journal is there; run it again to finish it)")
            }
            if let hostile = manifest.pages.first(where: { !PageName.isSafe($0.id) }) {
                throw MergeError(folder: folder, reason: ShardFiles.unsafeID(hostile.id))
            }
            do {
                index = try BatchIndex(finished: folder)
                pageNames = try index.verifiedPageNames()
                fingerprint = try index.setting("settings_hash")
                listed = try index.listedPages()
            } catch {
                throw MergeError(folder: folder, reason: String(describing: error))
            }
            files = try ShardFiles(of: listed, in: folder)
            try checkAgreement(of: manifest, with: listed, in: folder)
            recorded = manifest.entriesByID
        }
    }

    /// Two sources with one page id, in two shards (or a shard and the batch merged into), are
    /// two pages that one name cannot hold: the merge is refused, naming both. So are two
    /// sources with one document (`documents/`: each input's PDF and text), which shards name
    /// apart from each other, each from the inputs and earlier pages it knows: one would
    /// replace the other.
    private static func checkDistinctIDs(of batches: [(folder: String, pages: [BatchIndex.ListedPage])]) throws {
        var owners: [String: (source: String, folder: String)] = [:]
        var documentOwners: [String: (source: String, folder: String)] = [:]
        for (folder, pages) in batches {
            for page in pages {
                if let owner = owners[page.name], owner.source != page.source {
                    throw MergeError(folder: folder, reason: "its page id \(page.name) is of \(page.source), and in \(owner.folder)"
                                     + " of \(owner.source): two sources with one id cannot be merged (rename one of the files)")
                }
                owners[page.name] = (page.source, folder)
                for (format, path) in page.outputs where DocumentFiles.keys.contains(format) {
                    if let owner = documentOwners[path], owner.source != page.source {
                        throw MergeError(folder: folder, reason: "its \(path) is of \(page.source), and in \(owner.folder) of"
                                         + " \(owner.source): two inputs with one document cannot be merged (rename one of the files)")
                    }
                    documentOwners[path] = (page.source, folder)
                }
            }
        }
    }

    /// The batch the output already holds, checked as a shard is (it is merged into, so an
    /// index there that does not pass would spread its damage).
    private struct ExistingBatch {
        var folder: String
        var index: BatchIndex
        var pageNames: Set<String>
        var listed: [BatchIndex.ListedPage]
        var files: ShardFiles
        /// Its manifest's entries by page id, when it has one that reads.
        var recorded: [String: ManifestEntry]
    }

    /// A batch already in `output`, or nil when it holds none; refuses a folder holding
    /// anything but a batch's files, since the merged batch replaces the folder whole.
    private static func existingBatch(in output: String) throws -> ExistingBatch? {
        let batchFiles = records.union(["index.html", "pages", "documents", "data", "assets", IIIFPresentation.folder])
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
        let strangers = contents.filter { !batchFiles.contains($0) && !TemporaryName.isTemporary($0) }.sorted()
        guard strangers.isEmpty else {
            throw MergeError(folder: output, reason: "holds files that are not a Gloss batch's (\(strangers.prefix(3).joined(separator: ", ")))"
                             + "; merge into an empty folder or into a batch")
        }
        guard contents.contains(BatchIndex.fileName) else {
            // Its pages are known only from an index: merged as an empty folder, the batch
            // would lose them all from its manifest.
            if contents.contains("gloss.json") {
                throw MergeError(folder: output, reason: "holds a batch (gloss.json) without its index (\(BatchIndex.fileName)),"
                                 + " so its pages cannot be checked and kept; merge into another folder")
            }
            return nil
        }
        do {
            let index = try BatchIndex(folder: output, create: false)
            let pageNames = try index.verifiedPageNames(), listed = try index.listedPages()
            let manifest = try? readManifest(of: output)
            return ExistingBatch(folder: output, index: index, pageNames: pageNames, listed: listed,
                                 files: try ShardFiles(of: listed, in: output), recorded: manifest?.entriesByID ?? [:])
        } catch let error as MergeError {
            throw error
        } catch {
            throw MergeError(folder: output, reason: String(describing: error))
        }
    }

    private static func readManifest(of folder: String) throws -> BatchManifest {
        guard let data = FileManager.default.contents(atPath: OutputLayout(folder: folder).manifestPath) else {
            throw MergeError(folder: folder, reason: "has no gloss.json: its run has not finished (run it again to finish it)")
        }
        do {
            return try JSONDecoder().decode(BatchManifest.self, from: data)
        } catch {
            throw MergeError(folder: folder, reason: "its gloss.json does not read: \(error)")
        }
    }

    /// The manifest and the index list the same pages, with the same files: what is copied is
    /// what the manifest lists, and the index is what the merged manifest is made from.
    private static func checkAgreement(of manifest: BatchManifest, with listed: [BatchIndex.ListedPage], in folder: String) throws {
        let ids = Set(manifest.pages.map(\.id)), pageNames = Set(listed.map(\.name))
        guard ids == pageNames else {
            throw MergeError(folder: folder, reason: "its gloss.json lists \(ids.count) pages and its index \(pageNames.count)"
                             + " (\(ids.symmetricDifference(pageNames).sorted().prefix(3).joined(separator: ", ")))")
        }
        // A page the batch refused for its id (`PageNameClash`) is listed as failed, of another source.
        let entries = Dictionary(manifest.pages.map { (PageKey(source: $0.source, pageIndex: $0.pageIndex), $0) },
                                 uniquingKeysWith: { first, _ in first })
        for page in listed where entries[PageKey(source: page.source, pageIndex: page.pageIndex)]?.outputs != page.outputs {
            throw MergeError(folder: folder, reason: "its gloss.json and its index list other files for page \(page.name)")
        }
    }

    /// A merge killed between moving the batch aside (`.NAME.replaced-PID`) and moving the
    /// merged one into its place leaves no folder at `target`: the batch is moved back first, or
    /// the sweep of a killed merge's leftovers would remove its only copy.
    private static func restoreAfterKilledMerge(_ target: String) throws {
        var info = stat()
        guard lstat(target, &info) != 0, errno == ENOENT else { return }
        let parent = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        let aside = ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).filter { $0.hasPrefix("." + name + ".replaced-") }
        guard let latest = aside.max(by: { modified(parent + "/" + $0) < modified(parent + "/" + $1) }) else { return }
        try move(parent + "/" + latest, to: target)
    }

    /// Removes what killed merges into `target` left beside it, where that removes nothing else:
    /// a half-built `.NAME.merging-PID` that no live merge holds (its files are hard links of
    /// the batch's and the shards', or copies), and a batch moved aside as `.NAME.replaced-PID`
    /// once `target` holds everything it held (the merge was killed after its second rename).
    /// One that `target` does not supersede (the folder was made again in between) is the only
    /// copy of a batch: the merge is refused, naming it.
    static func sweepKilledMerges(of target: String) throws {
        let parent = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        for leftover in ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).sorted() {
            let path = parent + "/" + leftover
            if leftover.hasPrefix("." + name + ".merging-") {
                guard !FolderLock.isHeld(path) else { continue }  // a merge building it now
                try? FileManager.default.removeItem(atPath: path)
            } else if leftover.hasPrefix("." + name + ".replaced-") {
                guard let missing = firstMissing(from: path, in: target) else {
                    try? FileManager.default.removeItem(atPath: path)
                    continue
                }
                throw MergeError(folder: path, reason: "is a batch a killed merge moved aside, and \(target) does not hold its "
                                 + "\(missing); move it back in place of \(target), or remove it, then merge again")
            }
        }
    }

    /// The first file or link under `aside` (the batch's records and Gloss's temporary files
    /// aside) that `target` has nothing at, as a path inside it; nil when there is none.
    private static func firstMissing(from aside: String, in target: String, below relative: String = "") -> String? {
        let folder = relative.isEmpty ? aside : aside + "/" + relative
        for entry in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
            if relative.isEmpty && records.contains(entry) || TemporaryName.isTemporary(entry) { continue }
            let path = relative.isEmpty ? entry : relative + "/" + entry
            var info = stat(), there = stat()
            guard lstat(aside + "/" + path, &info) == 0 else { continue }
            guard lstat(target + "/" + path, &there) == 0 else { return path }
            if info.st_mode & S_IFMT == S_IFDIR, let missing = firstMissing(from: aside, in: target, below: path) { return missing }
        }
        return nil
    }

    /// When the file at `path` last changed, in seconds; 0 when it cannot be seen.
    private static func modified(_ path: String) -> Double {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// The batch's own records, which the merged batch writes anew and never takes from the
    /// folder it replaces (an old index's write-ahead log beside the new index would be read
    /// into it).
    private static let records: Set<String> = [
        "gloss.json", "gloss.journal", CorrectionJournal.fileName, BatchIndex.fileName, BatchIndex.fileName + "-wal",
        BatchIndex.fileName + "-shm", FolderLock.fileName,
    ]

    /// Carries into `staging` whatever the folder being replaced holds that the merged batch
    /// does not hold at the same path: a reader's notes in `pages/`, someone's files in
    /// `iiif/`, a file of an earlier run that no record names. The merged batch replaces the
    /// folder whole, and Gloss removes only what it writes anew. Files are hard-linked (copied
    /// where the file system has no links), symbolic links made again as links, folders made;
    /// the old folder is removed only once the new one is in place, so a merge that fails
    /// before leaves everything where it was. The batch's records (`records`) and Gloss's
    /// temporary files are not carried.
    private static func carryOver(from target: String, into staging: String, below relative: String = "") throws {
        let files = FileManager.default
        let folder = relative.isEmpty ? target : target + "/" + relative
        for name in ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
            if relative.isEmpty && records.contains(name) || TemporaryName.isTemporary(name) { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            let source = target + "/" + path, destination = staging + "/" + path
            var info = stat(), there = stat()
            guard lstat(source, &info) == 0 else { continue }
            let exists = lstat(destination, &there) == 0
            if exists && (info.st_mode & S_IFMT == S_IFDIR) != (there.st_mode & S_IFMT == S_IFDIR) {
                throw MergeError(folder: target, reason: "its \(path) is where the merged batch writes a "
                                 + (there.st_mode & S_IFMT == S_IFDIR ? "folder" : "file"))
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if !exists { try AtomicFile.createDirectory(destination) }
                try carryOver(from: target, into: staging, below: path)
            case _ where exists:
                continue  // the merged batch's own file: the one it writes anew
            case S_IFLNK:
                guard let link = try? files.destinationOfSymbolicLink(atPath: source),
                      (try? files.createSymbolicLink(atPath: destination, withDestinationPath: link)) != nil else {
                    throw MergeError(folder: target, reason: "its link \(path) cannot be kept in the merged batch")
                }
            default:
                guard link(source, destination) != 0 else { continue }
                do { try files.copyItem(atPath: source, toPath: destination) } catch {
                    throw MergeError(folder: target, reason: "\(path) cannot be kept in the merged batch: \(error.localizedDescription)")
                }
            }
        }
    }

    private static func move(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else { throw OutputError(path: to, cause: "cannot move \(from) here: " + systemError()) }
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

/// A shard that cannot be merged, and why.
public struct MergeError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    public var reason: String
    public var description: String { "\(folder): cannot merge: \(reason)" }
}

extension BatchManifest {
    /// Each page's entry, by page id (the last, for an id listed twice).
    var entriesByID: [String: ManifestEntry] {
        Dictionary(pages.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }
}

extension ManifestEntry {
    init(_ page: IndexedPageSummary) {
        source = page.source
        pageIndex = page.pageIndex
        id = page.name
        status = page.status
        error = page.error
        words = page.wordCount
        meanConfidence = page.meanConfidence
        faces = page.faceCount
        inputHash = page.inputHash
        settingsHash = page.settingsHash
        outputs = page.outputs
    }

    /// This entry (made from the index) with what only a manifest holds, from `recorded`,
    /// the page's entry in a manifest: its review flags, its input's absolute path, and the
    /// fingerprint of its reading when it was read under the same settings.
    func carrying(_ recorded: ManifestEntry?) -> ManifestEntry {
        var entry = self
        entry.suspect = recorded?.suspect
        entry.lowConfidence = recorded?.lowConfidence
        entry.inputPath = recorded?.inputPath
        entry.readingHash = recorded?.settingsHash == settingsHash ? recorded?.readingHash : nil
        return entry
    }
}
