import Foundation
import GlossIndex
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Read connections to the batch's index, kept open between requests and lent to one request
/// at a time.
///
/// Opening the index for every search read the schema and every page SQLite touched from the
/// file again, since a new connection starts with an empty page cache: on the 10,000-page bench
/// batch that was most of a search's time. A connection is reused only while the index is the
/// same file (device and inode): a batch whose index was rebuilt (written beside and renamed
/// over) is opened afresh, and the old connections are closed.
final class IndexReaders: Sendable {
    /// One connection; the pool hands it to one request at a time, so it is never used by two
    /// threads at once.
    private final class Connection: @unchecked Sendable {
        let index: BatchIndex
        let file: FileIdentity
        init(index: BatchIndex, file: FileIdentity) {
            self.index = index
            self.file = file
        }
    }

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private let folder: String
    /// The most connections kept idle: one per server thread is enough, a few more are closed.
    private let keep: Int
    private let idle = Mutex<[Connection]>([])

    init(folder: String, keep: Int = 8) {
        self.folder = folder
        self.keep = keep
    }

    /// Runs `body` with a connection to the index as it is now.
    func reading<Value>(_ body: (BatchIndex) throws -> Value) throws -> Value {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection.index)
    }

    private func borrow() throws -> Connection {
        let current = identity()
        let reused = idle.withLock { idle -> Connection? in
            idle.removeAll { $0.file != current }
            return idle.popLast()
        }
        if let reused { return reused }
        let index = try BatchIndex(finished: folder)
        // Stated before opening: if the file was replaced in between, the next borrow finds the
        // identity changed and opens again.
        return Connection(index: index, file: current ?? FileIdentity(device: 0, inode: 0))
    }

    private func giveBack(_ connection: Connection) {
        idle.withLock { idle in
            if idle.count < keep { idle.append(connection) }
        }
    }

    /// The index file's device and inode; nil when it cannot be stated (opening then says why).
    private func identity() -> FileIdentity? {
        var status = stat()
        guard stat(folder + "/" + BatchIndex.fileName, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
