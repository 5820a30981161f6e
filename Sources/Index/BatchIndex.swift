import CSQLite
import Foundation
import GlossContract
import GlossGeometry

#if canImport(Glibc)
import Glibc
#endif

/// A finished page as the index keeps it: the report, and what ties it to its input and files.
public struct IndexedPage: Sendable {
    /// The page's identifier, the stem of its output files (`pages/<name>.json`).
    public var name: String
    /// The input file's place in the whole input list (before any sharding).
    public var position: Int
    public var inputHash: String?
    public var settingsHash: String?
    /// Output files by format, relative to the batch folder.
    public var outputs: [String: String]
    public var report: PageReport

    public init(name: String, position: Int, inputHash: String?, settingsHash: String?,
                outputs: [String: String], report: PageReport) {
        self.name = name
        self.position = position
        self.inputHash = inputHash
        self.settingsHash = settingsHash
        self.outputs = outputs
        self.report = report
    }
}

/// Two sources whose pages got one name (page id): the second is refused, so that neither
/// replaces the other's page, files or words.
public struct PageNameClash: Error, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    /// The source refused, and the one that holds the name.
    public var source: String
    public var other: String

    public init(name: String, source: String, other: String) {
        self.name = name
        self.source = source
        self.other = other
    }

    public var description: String {
        "\(source) and \(other) have the same page id \(name); the page of \(source) is not kept, so that it does not replace"
            + " the other (rename one of the files)"
    }
}

/// A page as the index lists it, without its words: enough for the manifest and the report.
public struct IndexedPageSummary: Sendable, Equatable {
    public var name: String
    public var source: String
    public var pageIndex: Int
    public var position: Int
    public var status: PageStatus
    public var error: String?
    public var wordCount: Int
    public var meanConfidence: Double?
    public var faceCount: Int
    public var inputHash: String?
    public var settingsHash: String?
    public var outputs: [String: String]
}

/// The embedded database of a batch, `DIR/gloss.sqlite`: every page, word and face, and a
/// full-text index over the pages' text.
///
/// One writer at a time (the batch recorder, or `gloss merge`); any number of readers, even
/// while it writes (WAL). Each page is written in one transaction, so a run killed at any
/// moment leaves every page either whole or absent.
public final class BatchIndex {
    public static let fileName = "gloss.sqlite"

    let database: Database

    /// Opens the index of the batch in `folder`, creating it (and bringing an older one up to
    /// date) when `create` is true; otherwise the index must already exist. An index on media
    /// that cannot be written (a read-only copy of an archive) is opened for reading only.
    public init(folder: String, create: Bool) throws {
        let path = folder + "/" + Self.fileName
        if !create {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw IndexError(path: path, operation: "open", message: "its folder does not exist", code: 0)
            }
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
                throw IndexError(path: path, operation: "open", message: "no index here (was the batch run with this Gloss?)",
                                 code: 0)
            }
            // SQLite takes an empty file for an empty database, and would write a new schema
            // into a batch's database that lost its contents.
            if (attributes[.size] as? NSNumber)?.intValue == 0 {
                throw IndexError(path: path, operation: "open", message: "the file is empty (0 bytes), not a database",
                                 code: SQLITE_NOTADB)
            }
        }
        if !create && Database.Access.reading(path) == .readOnlyMedia {
            database = try Database(path: path, access: .readOnlyMedia)
            guard try database.userVersion == Schema.migrations.count else {
                throw IndexError(path: path, operation: "open",
                                 message: "written by another version of Gloss, and read-only here", code: 0)
            }
        } else {
            // A new index appears whole: SQLite would create an empty file at once and the
            // schema only later, and a search started in between would find no database there.
            if create && !FileManager.default.fileExists(atPath: path) {
                try Self.rebuild(in: folder, from: [])
            } else {
                // Looked at for reading first: opened for writing, a database of another
                // program's would be put in WAL mode before the schema refused it.
                try Schema.check(try Database(path: path, access: .reading(path)))
            }
            database = try Database(path: path, access: create ? .create : .readWrite)
            try Schema.migrate(database)
        }
    }

    /// Opens the index of a finished batch for reading only (immutable on a read-only mount):
    /// nothing is written to its folder, and nothing in it is brought up to date, so an index
    /// of another schema (or an empty file) is refused rather than changed.
    public init(finished folder: String) throws {
        let path = folder + "/" + Self.fileName
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw IndexError(path: path, operation: "open", message: "no index here (did the run finish?)", code: 0)
        }
        if (attributes[.size] as? NSNumber)?.intValue == 0 {
            throw IndexError(path: path, operation: "open", message: "the file is empty (0 bytes), not a database", code: SQLITE_NOTADB)
        }
        database = try Database(path: path, access: .reading(path))
        let version = try database.userVersion
        guard version == Schema.migrations.count else {
            let reason = version == 0 ? "it is empty, or not an index of Gloss's" : "it was written by another version of Gloss"
            throw IndexError(path: path, operation: "open", message: reason, code: 0)
        }
    }

    /// Opens the index of a batch to search it: for reading only (`init(finished:)`), so that
    /// searching writes nothing and needs no right to write, unless it was written by an older
    /// Gloss, when it is brought up to date first (`init(folder:create:)`).
    public static func searching(_ folder: String) throws -> BatchIndex {
        let path = folder + "/" + fileName
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path), (attributes[.size] as? NSNumber)?.intValue ?? 0 > 0,
           let version = try? Database(path: path, access: .reading(path)).userVersion, (1..<Schema.migrations.count).contains(version) {
            return try BatchIndex(folder: folder, create: false)
        }
        return try BatchIndex(finished: folder)
    }

    /// A new, empty index at `path`, wherever that is: the file a rebuild writes.
    init(path: String) throws {
        database = try Database(path: path, access: .create)
        try Schema.migrate(database)
    }

    public var path: String { database.path }

    // MARK: Batch settings

    /// The settings the batch is read with, as JSON, and their fingerprint.
    public func setSettings(json: String, fingerprint: String) throws {
        let statement = try database.prepare(
            "INSERT INTO batch(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            operation: "record the settings")
        try database.transaction("record the settings") {
            try statement.run([.text("settings"), .text(json)])
            try statement.run([.text("settings_hash"), .text(fingerprint)])
        }
    }

    public func setting(_ key: String) throws -> String? {
        let statement = try database.prepare("SELECT value FROM batch WHERE key = ?", operation: "read the settings")
        try statement.bind([.text(key)])
        return try statement.step() ? statement.text(0) : nil
    }

    // MARK: Writing pages

    /// Writes one page, replacing any earlier version of it, in one transaction; a page of
    /// another source under the same name is never replaced (`PageNameClash`).
    public func record(_ page: IndexedPage) throws {
        try database.transaction("record \(page.name)") {
            if let other = try source(ofPage: page.name), other != page.report.source {
                throw PageNameClash(name: page.name, source: page.report.source, other: other)
            }
            try removePages(where: "name = ?1 OR (input_id = (SELECT id FROM inputs WHERE path = ?2) AND page_index = ?3)",
                            [.text(page.name), .text(page.report.source), SQLValue(page.report.pageIndex)])
            try insert(page)
        }
    }

    /// The source of the page named `name`, or nil when the index holds no such page.
    public func source(ofPage name: String) throws -> String? {
        let statement = try database.prepare("SELECT i.path FROM pages p JOIN inputs i ON i.id = p.input_id WHERE p.name = ?",
                                             operation: "look up \(name)")
        try statement.bind([.text(name)])
        return try statement.step() ? statement.text(0) : nil
    }

    /// Whether the index holds a page of this name.
    /// The status recorded for page `name` (`PageStatus`'s raw value), nil when it has no row.
    public func status(ofPage name: String) throws -> String? {
        let statement = try database.prepare("SELECT status FROM pages WHERE name = ?", operation: "look up \(name)")
        try statement.bind([.text(name)])
        return try statement.step() ? statement.text(0) : nil
    }

    public func contains(page name: String) throws -> Bool {
        let statement = try database.prepare("SELECT 1 FROM pages WHERE name = ?", operation: "look up \(name)")
        try statement.bind([.text(name)])
        return try statement.step()
    }

    /// Removes every page whose name is not in `names` (and inputs left without pages), so the
    /// index holds no page the manifest does not list; returns the names in `names` it does not
    /// hold (pages whose recording failed, on a full disk), for the caller to add.
    @discardableResult
    public func retainOnly(pages names: Set<String>) throws -> Set<String> {
        try database.transaction("drop pages the batch no longer lists") {
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS kept(name TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM kept;",
                                 operation: "drop pages the batch no longer lists")
            let keep = try database.prepare("INSERT OR IGNORE INTO kept(name) VALUES (?)", operation: "drop pages")
            for name in names { try keep.run([.text(name)]) }
            let absent = try database.prepare("SELECT name FROM kept WHERE name NOT IN (SELECT name FROM pages)",
                                              operation: "find the pages the batch lists and the index lacks")
            var missing = Set<String>()
            while try absent.step() { missing.insert(absent.text(0)) }
            try removePages(where: "name NOT IN (SELECT name FROM kept)", [])
            try database.execute("DELETE FROM inputs WHERE id NOT IN (SELECT input_id FROM pages); DROP TABLE kept;",
                                 operation: "drop pages the batch no longer lists")
            return missing
        }
    }

    /// Gives inputs their places in the batch's order (`IndexedPage.position`) without
    /// recording their pages again: a run that keeps the pages of inputs it does not read puts
    /// them before its own.
    public func setPositions(_ positions: [String: Int]) throws {
        guard !positions.isEmpty else { return }
        try database.transaction("order the inputs") {
            let move = try database.prepare("UPDATE inputs SET position = ? WHERE path = ?", operation: "order the inputs")
            for (path, position) in positions.sorted(by: { $0.key < $1.key }) { try move.run([SQLValue(position), .text(path)]) }
        }
    }

    func removePages(where condition: String, _ values: [SQLValue]) throws {
        // External-content FTS5 forgets a row only when told the text it indexed.
        try database.prepare("""
            INSERT INTO page_text(page_text, rowid, text)
            SELECT 'delete', page_id, text FROM page_texts WHERE page_id IN (SELECT id FROM pages WHERE \(condition))
            """, operation: "remove a page").run(values)
        try database.prepare("DELETE FROM pages WHERE \(condition)", operation: "remove a page").run(values)
    }

    func insert(_ page: IndexedPage) throws {
        let report = page.report
        let operation = "record \(page.name)"
        try database.prepare("""
            INSERT INTO inputs(path, position, content_hash, settings_hash) VALUES (?, ?, ?, ?)
            ON CONFLICT(path) DO UPDATE SET position = excluded.position, content_hash = excluded.content_hash,
                settings_hash = excluded.settings_hash
            """, operation: operation)
            .run([.text(report.source), SQLValue(page.position), SQLValue(page.inputHash), SQLValue(page.settingsHash)])
        let text = IndexedText(report.words)
        let meanConfidence = report.meanConfidence.map { ($0 * 10).rounded() / 10 }
        try database.prepare("""
            INSERT INTO pages(name, input_id, page_index, width, height, status, error, mean_confidence, timings,
                              outputs, title)
            VALUES (?, (SELECT id FROM inputs WHERE path = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, operation: operation)
            .run([.text(page.name), .text(report.source), SQLValue(report.pageIndex), SQLValue(report.width),
                  SQLValue(report.height), .text(report.status.rawValue), SQLValue(report.error), SQLValue(meanConfidence),
                  .text(try Self.json(report.timings)), .text(try Self.json(page.outputs)),
                  .text(report.title)])
        let pageID = database.lastInsertedRow

        let word = try database.prepare("""
            INSERT INTO words(page_id, position, line, text, start, x, y, width, height, confidence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, operation: operation)
        for (position, item) in report.words.enumerated() {
            try word.run([.integer(pageID), SQLValue(position), SQLValue(item.line), .text(item.text),
                          SQLValue(text.starts[position]), SQLValue(item.box.x), SQLValue(item.box.y),
                          SQLValue(item.box.width), SQLValue(item.box.height), .real(item.confidence)])
        }
        let face = try database.prepare("""
            INSERT INTO faces(page_id, position, x, y, width, height, confidence, neighbors, landmarks, has_smile)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, operation: operation)
        for (position, item) in report.faces.enumerated() {
            let landmarks = Landmarks(leftEye: item.leftEye, rightEye: item.rightEye, mouth: item.mouth)
            try face.run([.integer(pageID), SQLValue(position), SQLValue(item.box.x), SQLValue(item.box.y),
                          SQLValue(item.box.width), SQLValue(item.box.height), .real(item.confidence),
                          SQLValue(item.neighbors), .text(try Self.json(landmarks)), SQLValue(item.hasSmile ? 1 : 0)])
        }
        let region = try database.prepare("""
            INSERT INTO regions(page_id, position, kind, label, x, y, width, height, confidence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, operation: operation)
        for (position, item) in report.regions.enumerated() {
            try region.run([.integer(pageID), SQLValue(position), .text(item.kind), SQLValue(item.label),
                            SQLValue(item.box.x), SQLValue(item.box.y), SQLValue(item.box.width), SQLValue(item.box.height),
                            SQLValue(item.confidence)])
        }
        if report.status == .ok {
            try database.prepare("INSERT INTO page_texts(page_id, text) VALUES (?, ?)", operation: operation)
                .run([.integer(pageID), .text(text.text)])
            try database.prepare("INSERT INTO page_text(rowid, text) VALUES (?, ?)", operation: operation)
                .run([.integer(pageID), .text(text.text)])
        }
    }

    private struct Landmarks: Codable {
        var leftEye: FaceReport.Landmark?
        var rightEye: FaceReport.Landmark?
        var mouth: FaceReport.Landmark?
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONOutput.encode(value, pretty: false), as: UTF8.self)
    }

    // MARK: Reading pages

    /// Every page, in input order.
    public func pages() throws -> [IndexedPageSummary] {
        try summaries(where: "1")
    }

    /// Pages with at least `count` faces, in input order.
    public func pages(withAtLeastFaces count: Int) throws -> [IndexedPageSummary] {
        try summaries(where: "(SELECT count(*) FROM faces f WHERE f.page_id = p.id) >= \(max(0, count))")
    }

    private func summaries(where condition: String) throws -> [IndexedPageSummary] {
        let statement = try database.prepare("""
            SELECT p.name, i.path, p.page_index, i.position, p.status, p.error, p.mean_confidence, i.content_hash,
                   i.settings_hash, p.outputs,
                   (SELECT count(*) FROM words w WHERE w.page_id = p.id),
                   (SELECT count(*) FROM faces f WHERE f.page_id = p.id)
            FROM pages p JOIN inputs i ON i.id = p.input_id
            WHERE \(condition)
            ORDER BY i.position, p.page_index
            """, operation: "list pages")
        var found: [IndexedPageSummary] = []
        while try statement.step() {
            found.append(IndexedPageSummary(
                name: statement.text(0), source: statement.text(1), pageIndex: statement.int(2), position: statement.int(3),
                status: PageStatus(rawValue: statement.text(4)) ?? .failed, error: statement.optionalText(5),
                wordCount: statement.int(10), meanConfidence: statement.optionalDouble(6), faceCount: statement.int(11),
                inputHash: statement.optionalText(7), settingsHash: statement.optionalText(8),
                outputs: (try? JSONDecoder().decode([String: String].self, from: Data(statement.text(9).utf8))) ?? [:]))
        }
        return found
    }

    /// The regions of the page named `name`, in the order its analyzers found them.
    public func regions(onPage name: String) throws -> [RegionReport] {
        let statement = try database.prepare("""
            SELECT r.kind, r.label, r.x, r.y, r.width, r.height, r.confidence
            FROM regions r JOIN pages p ON p.id = r.page_id WHERE p.name = ? ORDER BY r.position
            """, operation: "read the regions of \(name)")
        try statement.bind([.text(name)])
        var regions: [RegionReport] = []
        while try statement.step() {
            regions.append(RegionReport(kind: statement.text(0), box: PixelRect(x: statement.int(2), y: statement.int(3),
                                                                              width: statement.int(4), height: statement.int(5)),
                                        label: statement.optionalText(1), confidence: statement.optionalDouble(6)))
        }
        return regions
    }

    /// The pages that were read, with their indexed text and FTS5's own tokens of it, in input
    /// order: what the report's search evaluates queries over, so it matches what `search` does.
    public func searchablePages() throws -> [SearchablePage] {
        var terms: [Int: [(offset: Int, term: String)]] = [:]
        let vocabulary = try database.prepare("SELECT term, doc, offset FROM page_terms", operation: "export the search data")
        while try vocabulary.step() {
            terms[vocabulary.int(1), default: []].append((vocabulary.int(2), vocabulary.text(0)))
        }
        let statement = try database.prepare("""
            SELECT p.id, p.outputs, p.title, t.text
            FROM pages p JOIN inputs i ON i.id = p.input_id JOIN page_texts t ON t.page_id = p.id
            ORDER BY i.position, p.page_index
            """, operation: "export the search data")
        var pages: [SearchablePage] = []
        while try statement.step() {
            let outputs = (try? JSONDecoder().decode([String: String].self, from: Data(statement.text(1).utf8))) ?? [:]
            let tokens = (terms[statement.int(0)] ?? []).sorted { $0.offset < $1.offset }.map(\.term)
            pages.append(SearchablePage(htmlPath: outputs["html"], title: statement.text(2), text: statement.text(3),
                                        terms: tokens))
        }
        return pages
    }
}

/// A page's words as one text for the full-text index: words joined by a space, lines by a
/// newline, with where each word starts (in Unicode scalars) so hits map back to boxes.
struct IndexedText {
    var text = ""
    var starts: [Int] = []

    init(_ words: [PageReport.Word]) {
        var length = 0
        for (index, word) in words.enumerated() {
            if index > 0 {
                text += words[index - 1].line == word.line ? " " : "\n"
                length += 1
            }
            starts.append(length)
            text += Self.indexable(word.text)
            length += word.text.unicodeScalars.count
        }
    }

    /// `text` with the two control characters a search marks its hits with (U+0002, U+0003)
    /// each replaced by U+FFFD, one scalar for one, so the words' starts still hold: a page's
    /// own text layer, or a correction, can hold them, and they would shift every hit after.
    static func indexable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\u{2}" || $0 == "\u{3}" }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(scalar == "\u{2}" || scalar == "\u{3}" ? "\u{FFFD}" : scalar) }
        return String(scalars)
    }
}

extension BatchIndex {
    /// What SQLite finds wrong with the database and its full-text index; empty when whole.
    public func integrityProblems() throws -> [String] {
        let statement = try database.prepare("PRAGMA integrity_check", operation: "check the index")
        var problems: [String] = []
        while try statement.step() {
            if statement.text(0) != "ok" { problems.append(statement.text(0)) }
        }
        do {
            try database.execute("INSERT INTO page_text(page_text) VALUES ('integrity-check')", operation: "check the index")
        } catch let error as IndexError {
            problems.append(error.message)
        }
        return problems
    }

    /// Every row that is a page's result, as text and sorted: what two indexes must share to
    /// hold the same batch (row numbers and timings differ from run to run, so are left out).
    func comparableContents() throws -> [[[String]]] {
        [
            try rows(of: "inputs", columns: "path, position, content_hash, settings_hash"),
            try rows(of: "pages p JOIN inputs i ON i.id = p.input_id",
                     columns: """
                         p.name, i.path, p.page_index, p.width, p.height, p.status, p.error, p.mean_confidence, p.outputs,
                         p.title, (SELECT text FROM page_texts WHERE page_id = p.id)
                         """),
            try rows(of: "words w JOIN pages p ON p.id = w.page_id",
                     columns: "p.name, w.position, w.line, w.text, w.start, w.x, w.y, w.width, w.height, w.confidence"),
            try rows(of: "faces f JOIN pages p ON p.id = f.page_id",
                     columns: "p.name, f.position, f.x, f.y, f.width, f.height, f.confidence, f.neighbors, f.landmarks, f.has_smile"),
            try rows(of: "regions r JOIN pages p ON p.id = r.page_id",
                     columns: "p.name, r.position, r.kind, r.label, r.x, r.y, r.width, r.height, r.confidence"),
            try rows(of: "batch", columns: "key, value"),
        ]
    }

    /// Every row of `table` as text, columns in order, sorted: for comparing two indexes.
    func rows(of table: String, columns: String) throws -> [[String]] {
        let statement = try database.prepare("SELECT \(columns) FROM \(table)", operation: "read \(table)")
        var rows: [[String]] = []
        let count = statement.columnCount
        while try statement.step() {
            rows.append((0..<count).map { statement.optionalText($0) ?? "NULL" })
        }
        return rows.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
