import Foundation
import GlossContract

#if canImport(Glibc)
import Glibc
#endif

/// A damaged database is never worth keeping: the page JSON files hold everything it does, so a
/// batch that finds its database damaged builds it again from them rather than failing, or
/// worse, going on with an index that cannot find what the report lists.
extension BatchIndex {
    /// What is wrong with the database of the batch in `folder`: nil when it is whole or there
    /// is none yet; else why it cannot be used (not a database, empty, or what SQLite's
    /// `PRAGMA quick_check` found, which reads every page of the file but checks no index
    /// against its table: 1.5 s for `IndexBench`'s 10,000 pages, 168 MB). Errors other than
    /// damage, such as a folder that cannot be read, are thrown.
    public static func damage(in folder: String) throws -> String? {
        let path = folder + "/" + fileName
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        guard status.st_size > 0 else { return "the file is empty (0 bytes)" }
        do {
            let database = try Database(path: path, access: .readWrite)
            let check = try database.prepare("PRAGMA quick_check", operation: "check the index")
            var problems: [String] = []
            while try check.step() {
                // A row may hold several lines, headed by which schema they are about.
                problems += check.text(0).split(separator: "\n").map(String.init)
                    .filter { $0 != "ok" && !$0.hasPrefix("*** in database") }
            }
            guard !problems.isEmpty else { return nil }
            return problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
        } catch let error as IndexError where error.isDamage {
            return error.message
        }
    }

    /// Replaces the database of the batch in `folder` with one holding `pages`, and returns how
    /// many it holds. The new database is written beside the old under a temporary name
    /// (`TemporaryName`, which the next run removes if this one is killed) and renamed over it, so a
    /// reader sees the old file or the whole new one.
    @discardableResult
    public static func rebuild(in folder: String, from pages: some Sequence<IndexedPage>) throws -> Int {
        let path = folder + "/" + fileName
        let temporary = TemporaryName.beside(path)
        do {
            let count = try write(pages, to: temporary)
            // The old file's write-ahead log and shared memory belong to it: left beside the
            // new file, SQLite would replay them into it.
            for suffix in ["-wal", "-shm"] where unlink(path + suffix) != 0 && errno != ENOENT {
                throw IndexError(path: path + suffix, operation: "rebuild", message: String(cString: strerror(errno)), code: 0)
            }
            guard rename(temporary, path) == 0 else {
                throw IndexError(path: path, operation: "rebuild", message: String(cString: strerror(errno)), code: 0)
            }
            return count
        } catch {
            for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
            throw error
        }
    }

    /// A new database at `path` holding `pages`, written in one transaction and closed with
    /// its write-ahead log folded in, so the file alone is the whole database.
    private static func write(_ pages: some Sequence<IndexedPage>, to path: String) throws -> Int {
        let index = try BatchIndex(path: path)
        let count = try index.database.transaction("rebuild") {
            var count = 0
            for page in pages {
                try index.insert(page)
                count += 1
            }
            return count
        }
        try index.database.execute("PRAGMA journal_mode = DELETE", operation: "rebuild")
        return count
    }
}
