/// The index's tables, versioned through `PRAGMA user_version`: each migration takes a database
/// from the version before it to its own, in one transaction, so an index is always at one
/// version or the next, never between. New versions add migrations; old ones never change.
///
/// - `inputs`: one row per input file, with its content hash and the settings it was read with;
///   `position` is its place in the whole input list, so shards merge back into input order.
/// - `pages`: size, status, error, timings and outputs, kept small: ranking a common word joins
///   every matching page to its row, so the long text lives apart, in `page_texts`.
/// - `page_texts`: for pages that were read, the words joined by spaces and lines by newlines,
///   the text the full-text table indexes.
/// - `words`, `faces`: boxes in page pixels, top-left origin, as in the page JSON. `words.start`
///   is where the word begins in the page's text, in Unicode scalars, to map hits to boxes.
/// - `regions` (schema 2): what analyzers other than text and faces marked, by kind, with
///   an optional label and confidence.
/// - `page_text`: FTS5 over `page_texts` (external content: the text is stored once), and
///   `page_terms`, its tokens in order, which the report's search reads.
enum Schema {
    static let migrations: [String] = [
        """
        CREATE TABLE batch(
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE inputs(
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            position INTEGER NOT NULL,
            content_hash TEXT,
            settings_hash TEXT
        );
        CREATE TABLE pages(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            input_id INTEGER NOT NULL REFERENCES inputs(id),
            page_index INTEGER NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            status TEXT NOT NULL,
            error TEXT,
            mean_confidence REAL,
            timings TEXT NOT NULL,
            outputs TEXT NOT NULL,
            title TEXT NOT NULL,
            UNIQUE(input_id, page_index)
        );
        CREATE TABLE page_texts(
            page_id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
            text TEXT NOT NULL
        );
        CREATE TABLE words(
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            line INTEGER NOT NULL,
            text TEXT NOT NULL,
            start INTEGER NOT NULL,
            x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
            confidence REAL NOT NULL,
            PRIMARY KEY(page_id, position)
        ) WITHOUT ROWID;
        CREATE TABLE faces(
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
            confidence REAL NOT NULL,
            neighbors INTEGER NOT NULL,
            landmarks TEXT NOT NULL,
            has_smile INTEGER NOT NULL,
            PRIMARY KEY(page_id, position)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE page_text USING fts5(
            text, content='page_texts', content_rowid='page_id', tokenize='unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE page_terms USING fts5vocab(page_text, 'instance');
        """,
        """
        CREATE TABLE regions(
            page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL,
            label TEXT,
            x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
            confidence REAL,
            PRIMARY KEY(page_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX regions_by_kind ON regions(kind);
        """,
    ]

    /// Brings the database up to the newest version; refuses one written by a newer Gloss, and
    /// a database of another program's (`check`), which it would fill with Gloss's
    /// tables. The version is read again inside the transaction that migrates, so two
    /// processes opening an old index at once migrate it once.
    static func migrate(_ database: Database) throws {
        guard try check(database) < migrations.count else { return }
        try database.transaction("migrate the schema") {
            let version = try check(database)
            for (offset, migration) in migrations.enumerated().dropFirst(version) {
                try database.execute(migration, operation: "migrate to schema \(offset + 1)")
                try database.execute("PRAGMA user_version = \(offset + 1)", operation: "migrate to schema \(offset + 1)")
            }
        }
    }

    /// The database's schema version, after refusing one Gloss does not know: written by a
    /// newer Gloss, or another program's.
    @discardableResult
    static func check(_ database: Database) throws -> Int {
        let version = try database.userVersion
        guard version >= 0 else {
            throw IndexError(path: database.path, operation: "open",
                             message: "damaged: its schema version is \(version), below any Gloss writes", code: 0)
        }
        guard version <= migrations.count else {
            throw IndexError(path: database.path, operation: "open",
                             message: "written by a newer Gloss (schema \(version); this one knows \(migrations.count))",
                             code: 0)
        }
        if version == 0 {
            let tables = try database.prepare("SELECT count(*) FROM sqlite_master", operation: "read the schema")
            if try tables.step(), tables.int(0) > 0 {
                throw IndexError(path: database.path, operation: "open",
                                 message: "not an index of Gloss's: it holds another program's tables", code: 0)
            }
        }
        return version
    }
}
