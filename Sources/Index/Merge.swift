import Foundation

extension BatchIndex {
    /// The names of the index's pages, once SQLite's integrity check has found nothing wrong
    /// with it: what a shard must pass before anything is merged from it. Reads only.
    public func verifiedPageNames() throws -> Set<String> {
        let check = try database.prepare("PRAGMA integrity_check", operation: "check the index")
        var problems: [String] = []
        while try check.step() {
            if check.text(0) != "ok" { problems.append(check.text(0)) }
        }
        guard problems.isEmpty else {
            throw IndexError(path: path, operation: "check the index", message: "damaged: " + problems.prefix(3).joined(separator: "; "),
                             code: 0)
        }
        let names = try database.prepare("SELECT name FROM pages", operation: "list the pages")
        var result = Set<String>()
        while try names.step() { result.insert(names.text(0)) }
        return result
    }

    /// A page as a merge checks it: its name, source, page number and files, as the index has them.
    public struct ListedPage: Sendable, Equatable {
        public var name: String
        public var source: String
        public var pageIndex: Int
        public var outputs: [String: String]
    }

    /// Every page of the index, without its words: what a merge checks before it copies a file.
    /// An `outputs` that does not decode lists no files.
    public func listedPages() throws -> [ListedPage] {
        let statement = try database.prepare("""
            SELECT p.name, i.path, p.page_index, p.outputs FROM pages p JOIN inputs i ON i.id = p.input_id
            ORDER BY i.position, p.page_index
            """, operation: "list the pages")
        var pages: [ListedPage] = []
        while try statement.step() {
            let outputs = (try? JSONDecoder().decode([String: String].self, from: Data(statement.text(3).utf8))) ?? [:]
            pages.append(ListedPage(name: statement.text(0), source: statement.text(1), pageIndex: statement.int(2),
                                    outputs: outputs))
        }
        return pages
    }

    /// Writes a compact copy of the whole index to `path` (which must not exist yet), consistent
    /// even while a writer is at work: how a merge starts from a batch that already holds pages.
    public func copy(to path: String) throws {
        try database.prepare("VACUUM INTO ?", operation: "copy to \(path)").run([.text(path)])
    }

    /// Takes every input and page of the index at `path` into this one, replacing pages it
    /// already holds under the same name and source: merging the same shard twice changes
    /// nothing. A name this index gives another source is refused (`PageNameClash`).
    /// One transaction: the merged index has all of the shard or none of it. The shard is
    /// attached for reading only (immutable on a read-only mount), so nothing is written to it.
    public func merge(from path: String) throws {
        let operation = "merge \(path)"
        try database.prepare("ATTACH DATABASE ? AS shard", operation: operation).run([.text(Database.readingURI(path, immutable: Database.Access.reading(path) == .readOnlyMedia))])
        defer { try? database.execute("DETACH DATABASE shard", operation: operation) }
        let version = try database.prepare("PRAGMA shard.user_version", operation: operation)
        guard try version.step(), version.int(0) == Schema.migrations.count else {
            throw IndexError(path: path, operation: operation, message: "its schema is not this Gloss's (open it with this Gloss first)",
                             code: 0)
        }
        try database.transaction(operation) {
            // A name of the shard that this index gives another source is two pages, not one.
            let clash = try database.prepare("""
                SELECT sp.name, si.path, mi.path FROM shard.pages sp JOIN shard.inputs si ON si.id = sp.input_id
                    JOIN main.pages mp ON mp.name = sp.name JOIN main.inputs mi ON mi.id = mp.input_id
                WHERE si.path != mi.path LIMIT 1
                """, operation: operation)
            if try clash.step() { throw PageNameClash(name: clash.text(0), source: clash.text(1), other: clash.text(2)) }
            try database.execute("""
                INSERT INTO batch(key, value) SELECT key, value FROM shard.batch WHERE true
                    ON CONFLICT(key) DO NOTHING;
                INSERT INTO inputs(path, position, content_hash, settings_hash)
                    SELECT path, position, content_hash, settings_hash FROM shard.inputs WHERE true
                    ON CONFLICT(path) DO UPDATE SET position = excluded.position, content_hash = excluded.content_hash,
                        settings_hash = excluded.settings_hash;
                """, operation: operation)
            try removePages(where: """
                name IN (SELECT name FROM shard.pages) OR EXISTS (
                    SELECT 1 FROM shard.pages sp JOIN shard.inputs si ON si.id = sp.input_id
                    WHERE si.path = (SELECT path FROM main.inputs WHERE id = pages.input_id) AND sp.page_index = pages.page_index)
                """, [])
            try database.execute("""
                INSERT INTO pages(name, input_id, page_index, width, height, status, error, mean_confidence, timings,
                                  outputs, title)
                    SELECT sp.name, (SELECT id FROM main.inputs WHERE path = si.path), sp.page_index, sp.width, sp.height,
                           sp.status, sp.error, sp.mean_confidence, sp.timings, sp.outputs, sp.title
                    FROM shard.pages sp JOIN shard.inputs si ON si.id = sp.input_id
                    ORDER BY si.position, sp.page_index;
                INSERT INTO words(page_id, position, line, text, start, x, y, width, height, confidence)
                    SELECT mp.id, w.position, w.line, w.text, w.start, w.x, w.y, w.width, w.height, w.confidence
                    FROM shard.words w JOIN shard.pages sp ON sp.id = w.page_id JOIN main.pages mp ON mp.name = sp.name;
                INSERT INTO faces(page_id, position, x, y, width, height, confidence, neighbors, landmarks, has_smile)
                    SELECT mp.id, f.position, f.x, f.y, f.width, f.height, f.confidence, f.neighbors, f.landmarks, f.has_smile
                    FROM shard.faces f JOIN shard.pages sp ON sp.id = f.page_id JOIN main.pages mp ON mp.name = sp.name;
                INSERT INTO regions(page_id, position, kind, label, x, y, width, height, confidence)
                    SELECT mp.id, r.position, r.kind, r.label, r.x, r.y, r.width, r.height, r.confidence
                    FROM shard.regions r JOIN shard.pages sp ON sp.id = r.page_id JOIN main.pages mp ON mp.name = sp.name;
                INSERT INTO page_texts(page_id, text)
                    SELECT mp.id, t.text FROM shard.page_texts t JOIN shard.pages sp ON sp.id = t.page_id
                    JOIN main.pages mp ON mp.name = sp.name;
                INSERT INTO page_text(rowid, text)
                    SELECT t.page_id, t.text FROM main.page_texts t
                    WHERE t.page_id IN (SELECT mp.id FROM main.pages mp WHERE mp.name IN (SELECT name FROM shard.pages));
                """, operation: operation)
        }
    }
}
