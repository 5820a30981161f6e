import Foundation
import GlossContract
import GlossIndex

/// Where a batch writes: `DIR/gloss.json`, `DIR/index.html` and `DIR/pages/`.
public struct OutputLayout: Sendable {
    public var folder: String

    public init(folder: String) { self.folder = folder }

    public var pagesFolder: String { folder + "/pages" }
    public var manifestPath: String { folder + "/gloss.json" }
    /// Finished pages, one JSON line each, appended as they finish: what a killed run leaves.
    public var journalPath: String { folder + "/gloss.journal" }
    public var indexPath: String { folder + "/index.html" }
    /// Each input's searchable PDF and text, in the inputs' own folders (`DocumentFiles`).
    public var documentsFolder: String { folder + "/documents" }

    /// `documents/` and every folder below it; a symbolic link to a folder is not one of them
    /// (what it leads to is not the batch's).
    var documentFolders: [String] {
        let below = FileManager.default.enumerator(atPath: documentsFolder)?.compactMap { item -> String? in
            guard let name = item as? String else { return nil }
            let path = documentsFolder + "/" + name
            let kind = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            return kind == .typeDirectory ? path : nil
        } ?? []
        return FileManager.default.fileExists(atPath: documentsFolder) ? [documentsFolder] + below : []
    }
}

/// One page's line in the batch manifest.
public struct ManifestEntry: Codable, Sendable, Equatable {
    public var source: String
    public var pageIndex: Int
    public var id: String
    public var status: PageStatus
    public var error: String?
    public var words: Int
    public var meanConfidence: Double?
    public var faces: Int
    /// Whether the page needs a reviewer's eye (`PageReview.suspect`: inked areas without
    /// words); nil when not measured (pages without text recognition, earlier versions).
    public var suspect: Bool?
    /// Whether the page's words are unsure on a page of text (`PageReview.lowConfidence`);
    /// nil when not decided (earlier versions: the index then takes a mean under 70%).
    public var lowConfidence: Bool?
    /// SHA-256 of the input file's bytes; with `settingsHash`, what lets a re-run skip the page.
    public var inputHash: String?
    public var settingsHash: String?
    /// The fingerprint of the settings that decided what the page reads as
    /// (`AnnotationSettings.readingFingerprint`): a run under other formats alone writes the
    /// page's files again from its JSON, without reading it. Nil in batches from before it.
    public var readingHash: String?
    /// The input file's absolute path when it was read, for the runs that resolve a relative
    /// `source` from another folder (a correction drawing the PDF again); nil for a download,
    /// and in batches from before it was recorded (then `source` is taken from the folder one
    /// is in). Not part of any fingerprint.
    public var inputPath: String?
    /// The files written for the page, by format (`json`, `html`, `hocr`... and `image` for the
    /// display copy), relative to the batch folder; empty when the page produced none.
    public var outputs: [String: String]

    init(report: PageReport, id: String, outputs: [String: String] = [:]) {
        source = report.source
        pageIndex = report.pageIndex
        self.id = id
        status = report.status
        error = report.error
        words = report.words.count
        meanConfidence = report.meanConfidence.map { ($0 * 10).rounded() / 10 }
        faces = report.faces.count
        suspect = report.review?.suspect
        lowConfidence = report.review?.lowConfidence
        self.outputs = outputs
    }

    /// This entry, recorded as failed because of `error` after its page was read.
    func failed(because error: any Error) -> ManifestEntry {
        var failed = self
        failed.status = .failed
        failed.error = String(describing: error)
        return failed
    }

    /// Where the input file is: its recorded absolute path, else `source` as given (from the
    /// current folder). A batch merged from shards read on other machines records their paths,
    /// which need not exist here: where the recorded path names no file and `source` does, the
    /// input is `source`. Whoever opens it still checks its hash (`inputHash`).
    var inputFile: String {
        guard let inputPath else { return source }
        let files = FileManager.default
        if !files.fileExists(atPath: inputPath), !RemoteFetcher.isRemote(source), files.fileExists(atPath: source) { return source }
        return inputPath
    }

    /// The absolute path of a local input named `source` from the current folder; nil for a URL.
    static func absolutePath(of source: String) -> String? {
        RemoteFetcher.isRemote(source) ? nil : URL(fileURLWithPath: source).standardizedFileURL.path
    }

    /// Which input page this entry is about.
    var key: PageKey { PageKey(source: source, pageIndex: pageIndex) }
}

struct PageKey: Hashable, Sendable {
    var source: String
    var pageIndex: Int
}

/// The batch manifest, `DIR/gloss.json`: one entry per page, in input order.
public struct BatchManifest: Codable, Sendable {
    public var generator: String
    public var settings: AnnotationSettings
    public var pages: [ManifestEntry]
    /// Input files a stopped run (Ctrl-C, SIGTERM) did not start and no earlier run recorded,
    /// so no entry stands for them; nil when there are none.
    public var notStarted: Int? = nil

    public var failedCount: Int { pages.filter { $0.status != .ok }.count }
}

/// What an earlier run into the same folder finished: its manifest, plus the journal lines of
/// pages it finished after last writing the manifest (all of them, if it was killed).
struct EarlierRun: Sendable {
    private var entries: [PageKey: ManifestEntry] = [:]
    /// The pages in the order the earlier run listed them: its manifest's, then its journal's.
    private var order: [PageKey] = []
    /// The same, by input: what `finishedPages(of:)` looks up for each input that cannot be
    /// opened now (all of them, when a share is away), without a walk of every page each.
    private var orderBySource: [String: [PageKey]] = [:]

    /// No earlier run.
    init() {}

    /// Throws when the batch's `gloss.json` is there and does not read (a newer Gloss's, or
    /// damaged): taken as no earlier run, its inputs not named now would leave the batch's
    /// records and their files be left behind, so the run is refused instead.
    init(layout: OutputLayout) throws(UnreadableManifestError) {
        if let data = FileManager.default.contents(atPath: layout.manifestPath) {
            do {
                for entry in try JSONDecoder().decode(BatchManifest.self, from: data).pages { insert(entry) }
            } catch {
                throw UnreadableManifestError(path: layout.manifestPath, cause: Self.cause(of: error))
            }
        }
        if let journal = FileManager.default.contents(atPath: layout.journalPath) {
            // A run killed mid-write leaves a partial last line; it does not decode and is skipped.
            for line in journal.split(separator: UInt8(ascii: "\n")) {
                if let entry = try? JSONDecoder().decode(ManifestEntry.self, from: Data(line)) { insert(entry) }
            }
        }
    }

    /// A decoding error in a sentence: what was wrong and where in the file.
    private static func cause(of error: Error) -> String {
        func place(_ path: [CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .dataCorrupted(let context): return "it is not JSON Gloss reads (\(context.debugDescription))\(place(context.codingPath))"
        case .keyNotFound(let key, let context): return "it has no \(key.stringValue)\(place(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(context.debugDescription)\(place(context.codingPath))"
        default: return String(describing: error)
        }
    }

    private mutating func insert(_ entry: ManifestEntry) {
        if entries.updateValue(entry, forKey: entry.key) == nil {
            order.append(entry.key)
            orderBySource[entry.source, default: []].append(entry.key)
        }
    }

    /// Every page the earlier run recorded, in its order.
    var pages: [ManifestEntry] { order.compactMap { entries[$0] } }

    /// Every page the earlier run recorded, by input, in page order.
    func entriesBySource() -> [String: [ManifestEntry]] {
        Dictionary(grouping: entries.values, by: \.source).mapValues { $0.sorted { $0.pageIndex < $1.pageIndex } }
    }

    /// Replaces the batch's database with one built from the page JSON files of the pages
    /// listed, of the inputs in `positions` (each input's place in the batch), and returns how
    /// many it holds. A page of this run's inputs (`reading`) without a JSON file cannot be put
    /// back in the index, so it is forgotten: this run reads it again.
    mutating func rebuildIndex(in layout: OutputLayout, positions: [String: Int], reading: Set<String>) throws -> Int {
        entries = entries.filter { $0.value.outputs["json"] != nil || !reading.contains($0.value.source) }
        let listed = entries.values.sorted { ($0.source, $0.pageIndex) < ($1.source, $1.pageIndex) }
        let pages = listed.lazy.compactMap { entry in positions[entry.source].flatMap { Self.indexedPage(entry, position: $0, in: layout) } }
        return try BatchIndex.rebuild(in: layout.folder, from: pages)
    }

    /// The index's record of a page, from its entry and its JSON file; nil when it has none,
    /// or it does not read.
    static func indexedPage(_ entry: ManifestEntry, position: Int, in layout: OutputLayout) -> IndexedPage? {
        guard let json = entry.outputs["json"], let bytes = FileManager.default.contents(atPath: layout.folder + "/" + json),
              let report = try? JSONOutput.decodePage(Array(bytes))
        else { return nil }
        return IndexedPage(name: entry.id, position: position, inputHash: entry.inputHash,
                           settingsHash: entry.settingsHash, outputs: entry.outputs, report: report)
    }

    /// The pages of `source` the earlier run recorded, when it read any of them and their files
    /// are all there: the reading kept when the input cannot be opened now (a share away, a
    /// server's 503), under whatever settings it was made, rather than a failure written over
    /// good pages. Its failed pages stay as they were recorded; they, and the pages read under
    /// other settings, are read when the input opens again. Empty when no page was read.
    func finishedPages(of source: String, in layout: OutputLayout) -> [ManifestEntry] {
        let pages = (orderBySource[source] ?? []).compactMap { entries[$0] }
        let read = pages.filter { entry in
            entry.status == .ok && !entry.outputs.isEmpty
                && entry.outputs.allSatisfy { key, path in
                    DocumentFiles.keys.contains(key) || FileManager.default.fileExists(atPath: layout.folder + "/" + path)
                }
        }
        return read.isEmpty ? [] : pages.filter { $0.status != .ok || read.contains($0) }
    }

    /// The report of the page, read back from its JSON, when the earlier run read it from the
    /// same input under settings that read alike (`readingHash`) and wrote it otherwise: its
    /// files are made again from it. Nil when it is not so, or its JSON does not read.
    func reading<Engine>(_ key: PageKey, id: String, inputHash: String, readingHash: String, in layout: OutputLayout,
                         on lane: Lane<Engine>) async -> PageReport? {
        guard let entry = entries[key], entry.id == id, entry.status == .ok, entry.inputHash == inputHash,
              entry.readingHash == readingHash, let json = entry.outputs["json"]
        else { return nil }
        return await Self.report(at: json, in: layout, on: lane)
    }

    /// The report in the page JSON file `json` (relative to the batch folder), read on `lane`;
    /// nil when it does not read (`JSONOutput.decodePage`).
    private static func report<Engine>(at json: String, in layout: OutputLayout, on lane: Lane<Engine>) async -> PageReport? {
        try? await lane.run { _ in
            try JSONOutput.decodePage(Array(try Data(contentsOf: URL(fileURLWithPath: layout.folder + "/" + json))))
        }
    }

    /// The earlier entry for this page if it finished with the same input and settings and its
    /// own outputs are all still there, with its report read back from its JSON when it has one
    /// (for the index and the combined documents), on `lane`. A page whose JSON no longer reads
    /// is not finished: it is read again, and so is one recorded under another id than `id` (an
    /// earlier Gloss named pages otherwise: each such page is read once more, under its new id).
    /// Its document's files (`DocumentFiles.keys`) are not asked for: a page is recorded before
    /// its input's document is written from all its pages' reports, and a run killed between the
    /// two leaves them missing; the document is written again from the reports when every page
    /// of the input is skipped, so the pages need not be read again for it.
    func finished<Engine>(_ key: PageKey, id: String, inputHash: String, settingsHash: String, in layout: OutputLayout,
                          on lane: Lane<Engine>) async -> (entry: ManifestEntry, report: PageReport?)? {
        guard let entry = entries[key], entry.id == id, entry.status == .ok, entry.inputHash == inputHash,
              entry.settingsHash == settingsHash, !entry.outputs.isEmpty,
              entry.outputs.allSatisfy({ key, path in
                  DocumentFiles.keys.contains(key) || FileManager.default.fileExists(atPath: layout.folder + "/" + path)
              })
        else { return nil }
        guard let json = entry.outputs["json"] else { return (entry, nil) }
        return await Self.report(at: json, in: layout, on: lane).map { (entry, $0) }
    }
}

/// A batch whose `gloss.json` is there but does not read: written by a newer Gloss, or
/// damaged. A run into it is refused, so that no earlier page is forgotten with its files left.
public struct UnreadableManifestError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var cause: String

    public var description: String {
        "\(path): the batch's record does not read: \(cause). Written by a newer Gloss, or damaged: run that Gloss,"
            + " or move the folder aside and write a new batch"
    }
}
