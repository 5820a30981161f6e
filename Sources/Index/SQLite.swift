import CSQLite
import Foundation
import GlossGeometry

#if canImport(Glibc)
import Glibc
#endif

/// What went wrong with a batch's index: which database, doing what, and SQLite's own words.
public struct IndexError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// What Gloss was doing: "open", "migrate", "record a page", "search"...
    public var operation: String
    public var message: String
    /// SQLite's extended result code, 0 when the error is Gloss's own.
    public var code: Int32

    public var description: String { "\(path): index: cannot \(operation): \(message)" }

    /// SQLite's plain `SQLITE_ERROR`: an SQL statement that is wrong in itself (for a search,
    /// the query), not I/O, corruption or a busy database, which have codes of their own.
    public var isStatementError: Bool { code & 0xFF == SQLITE_ERROR }

    /// The file is damaged or is not a database at all: what a rebuild from the page JSON
    /// files repairs, unlike a full disk or a missing permission.
    public var isDamage: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }

    /// SQLite stopped a statement because the time it was given ran out.
    var isInterruption: Bool { code & 0xFF == SQLITE_INTERRUPT }
}

/// One SQLite connection, owned here and closed when the owner goes away.
///
/// Internal to the index module: SQL never leaves it. Not `Sendable`: a connection is used by
/// one owner at a time (the batch recorder's thread, or a command).
final class Database {
    let path: String
    private let handle: OpaquePointer

    /// How a database is opened.
    enum Access {
        case create, readWrite
        /// Reading only, on media that can be written: SQLite still sees what a writer has
        /// committed to the write-ahead log and not yet to the file.
        case readOnly
        /// A finished database on media that cannot be written (an archive's read-only copy):
        /// opened immutable, since WAL mode would need to write its shared-memory file.
        case readOnlyMedia

        /// How to read the database at `path`: immutable when its folder cannot be written, on
        /// read-only media or for want of the right (a batch of another user's), where reading
        /// in WAL mode could not make its shared-memory file. Not while a run writes that other
        /// user's batch (it holds the folder's `gloss.lock`): an immutable file that changes
        /// reads wrong, and the run's write-ahead log and shared memory are there to read with.
        static func reading(_ path: String) -> Access {
            let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
            let refusal = access(folder, W_OK) == 0 ? nil : errno
            return reading(writeRefusal: refusal, beingWritten: { isBeingWritten(folder) })
        }

        /// The choice, from why the folder cannot be written (nil: it can) and whether a run
        /// writes it now (asked only where it matters).
        static func reading(writeRefusal: Int32?, beingWritten: () -> Bool) -> Access {
            switch writeRefusal {
            case EROFS?: .readOnlyMedia
            case EACCES?: beingWritten() ? .readOnly : .readOnlyMedia
            default: .readOnly
            }
        }

        /// Whether a run holds the batch folder's lock (`FolderLock`, in the pipeline) now.
        private static func isBeingWritten(_ folder: String) -> Bool {
            let descriptor = open(folder + "/gloss.lock", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
        }
    }

    /// Opens the database at `path`, writable ones in WAL mode so readers never block the one
    /// writer, with foreign keys enforced.
    init(path: String, access: Access) throws {
        self.path = path
        var connection: OpaquePointer?
        // URIs are understood on every connection, so that one can attach another database
        // immutable (a shard being merged); a plain path that happens to start with "file:" is
        // then named as "./file:..." so it is not taken for one.
        let flags: Int32 = switch access {
        case .create: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI
        case .readOnly, .readOnlyMedia: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        let name = access == .readOnlyMedia ? Self.readingURI(path, immutable: true) : path.hasPrefix("file:") ? "./" + path : path
        let code = sqlite3_open_v2(name, &connection, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { Self.message(of: $0, code: code) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(connection)
            throw IndexError(path: path, operation: "open", message: message, code: code)
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        // A reader waits for a writer's checkpoint rather than failing at once.
        sqlite3_busy_timeout(handle, 5_000)
        guard access == .create || access == .readWrite else { return }
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
                    operation: "open")
    }

    /// `file:` URI of `path` for reading only (`immutable=1` or `mode=ro`), its reserved
    /// characters percent-encoded.
    static func readingURI(_ path: String, immutable: Bool) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let encoded = absolute.utf8.map { byte -> String in
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "/-._~".utf8.contains(byte)
            return plain ? String(UnicodeScalar(byte)) : "%" + HexText.format(byte, digits: 2, uppercase: true)
        }.joined()
        return "file:" + encoded + (immutable ? "?immutable=1" : "?mode=ro")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Every SQLite result code goes through here: anything but success becomes an `IndexError`.
    @discardableResult
    func check(_ code: Int32, _ operation: String) throws -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return code
        default:
            let code = sqlite3_extended_errcode(handle)
            throw IndexError(path: path, operation: operation, message: Self.message(of: handle, code: code), code: code)
        }
    }

    /// SQLite's words for the last error on `connection`, except where the system's say more:
    /// a full disk, which SQLite calls "database or disk is full" (or, growing its shared-memory
    /// file, "disk I/O error"), is "No space left on device", as every other file Gloss writes
    /// says it; another I/O error is named by its `errno` too.
    static func message(of connection: OpaquePointer, code: Int32) -> String {
        let systemCode = sqlite3_system_errno(connection)
        if code & 0xFF == SQLITE_FULL { return String(cString: strerror(ENOSPC)) }
        guard code & 0xFF == SQLITE_IOERR, systemCode != 0 else { return String(cString: sqlite3_errmsg(connection)) }
        if systemCode == ENOSPC || systemCode == EDQUOT { return String(cString: strerror(systemCode)) }
        return String(cString: sqlite3_errmsg(connection)) + " (" + String(cString: strerror(systemCode)) + ")"
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String, operation: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), operation)
    }

    func prepare(_ sql: String, operation: String) throws -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil), operation)
        return Statement(statement!, database: self, operation: operation)
    }

    /// Runs `body` in one transaction: all of it is written, or none of it.
    func transaction<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE", operation: operation)
        do {
            let result = try body()
            try execute("COMMIT", operation: operation)
            return result
        } catch {
            try? execute("ROLLBACK", operation: operation)
            throw error
        }
    }

    var userVersion: Int {
        get throws {
            let statement = try prepare("PRAGMA user_version", operation: "read the schema version")
            return try statement.step() ? statement.int(0) : 0
        }
    }

    var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` with every statement it runs stopped once `limit` has passed: SQLite then
    /// fails the statement with `SQLITE_INTERRUPT`, which `check` turns into an `IndexError`.
    /// SQLite asks between steps of its virtual machine, so one long function call (a snippet)
    /// finishes before the statement stops.
    func withTimeLimit<T>(_ limit: Duration, _ body: () throws -> T) throws -> T {
        let deadline = Deadline(ContinuousClock.now.advanced(by: limit))
        return try withExtendedLifetime(deadline) {
            sqlite3_progress_handler(handle, Self.stepsBetweenClockReadings, { context in
                Unmanaged<Deadline>.fromOpaque(context!).takeUnretainedValue().hasPassed ? 1 : 0
            }, Unmanaged.passUnretained(deadline).toOpaque())
            defer { sqlite3_progress_handler(handle, 0, nil, nil) }
            return try body()
        }
    }

    /// A clock reading every thousand virtual machine steps costs well under a percent of a
    /// search, and stops one within microseconds of its limit.
    private static let stepsBetweenClockReadings: Int32 = 1_000

    private final class Deadline {
        let instant: ContinuousClock.Instant
        init(_ instant: ContinuousClock.Instant) { self.instant = instant }
        var hasPassed: Bool { ContinuousClock.now >= instant }
    }
}

/// A value SQLite stores.
enum SQLValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null
}

/// One prepared statement, finalised when it goes away.
final class Statement {
    private let handle: OpaquePointer
    private let database: Database
    private let operation: String

    fileprivate init(_ handle: OpaquePointer, database: Database, operation: String) {
        self.handle = handle
        self.database = database
        self.operation = operation
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the parameters in order, after clearing what the last run left.
    @discardableResult
    func bind(_ values: [SQLValue]) throws -> Statement {
        try database.check(sqlite3_reset(handle), operation)
        try database.check(sqlite3_clear_bindings(handle), operation)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): try database.check(sqlite3_bind_int64(handle, index, number), operation)
            case .real(let number): try database.check(sqlite3_bind_double(handle, index, number), operation)
            case .text(let text): try database.check(sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), gloss_sqlite_transient()), operation)
            case .null: try database.check(sqlite3_bind_null(handle, index), operation)
            }
        }
        return self
    }

    /// Advances to the next row; false when there are no more.
    func step() throws -> Bool {
        try database.check(sqlite3_step(handle), operation) == SQLITE_ROW
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}

extension SQLValue {
    init(_ text: String?) { self = text.map { .text($0) } ?? .null }
    init(_ number: Int) { self = .integer(Int64(number)) }
    init(_ number: Double?) { self = number.map { .real($0) } ?? .null }
}
