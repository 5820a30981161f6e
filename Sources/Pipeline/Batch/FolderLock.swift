import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one writer of a batch folder: an exclusive `flock` on `DIR/gloss.lock`, held for as long
/// as this value lives.
///
/// Two runs writing one folder would each rewrite the manifest from what they alone read, and
/// the index would end up naming some pages and not others. The kernel drops the lock with the
/// process, so a run killed with `kill -9` leaves no stale lock; the file itself stays, holding
/// the last holder's pid for the message a second run prints. Readers (`gloss search`, the
/// report) never take it.
public final class FolderLock: Sendable {
    public static let fileName = "gloss.lock"

    private let descriptor: Int32

    /// Takes the lock on `folder`, which must exist. When another process holds it, throws
    /// `FolderLockError` naming that process, or, `waiting`, tries again every 200 ms until it
    /// is free, or the task is cancelled (a scheduler stopping a task that waits behind an
    /// earlier attempt of it): then the error says so.
    public static func acquire(_ folder: String, waiting: Bool = false) async throws -> FolderLock {
        while true {
            if let lock = try FolderLock(folder: folder) { return lock }
            guard waiting else { throw FolderLockError(folder: folder, holder: holder(of: folder)) }
            do {
                try await Task.sleep(for: .milliseconds(200))
            } catch {
                throw FolderLockError(folder: folder, holder: holder(of: folder), stoppedWaiting: true)
            }
        }
    }

    /// Whether a run holds `folder` now (without taking it): for checking a folder before
    /// reading it as finished, as a merge does with its shards.
    public static func isHeld(_ folder: String) -> Bool {
        let descriptor = open(folder + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // A shared lock conflicts only with a writer's exclusive one.
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else { return false }
        return errno == EWOULDBLOCK
    }

    /// A shared lock on `folder`, held for as long as the value lives, so that no run starts
    /// writing the folder while it is read whole (a merge reading a shard); throws when a run
    /// holds it now. Nil for a folder without a lock file, or whose file cannot be opened (a
    /// read-only copy): it is read without one.
    public static func reading(_ folder: String) throws(FolderLockError) -> FolderLock? {
        let descriptor = open(folder + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { throw FolderLockError(folder: folder, holder: holder(of: folder)) }
            return nil
        }
        return FolderLock(holding: descriptor)
    }

    private init(holding descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Nil when another process holds the lock.
    private init?(folder: String) throws {
        let path = folder + "/" + Self.fileName
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw OutputError(path: path, cause: systemError()) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno, cause = systemError()
                close(descriptor)
                if failure == EWOULDBLOCK { return nil }
                throw OutputError(path: path, cause: "cannot lock: " + cause)
            }
            // The file may have been replaced between open and flock (a folder swapped into
            // place); a lock on the old file would guard nothing, so try again on the new one.
            var held = stat(), named = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &named) == 0,
                  held.st_dev == named.st_dev, held.st_ino == named.st_ino else {
                close(descriptor)
                continue
            }
            let pid = Array("\(getpid())\n".utf8)
            guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, pid, pid.count, 0) == pid.count else {
                let cause = systemError()
                close(descriptor)
                throw OutputError(path: path, cause: cause)
            }
            self.descriptor = descriptor
            return
        }
    }

    deinit { close(descriptor) }

    /// The pid the holder wrote, if it wrote one yet.
    private static func holder(of folder: String) -> Int32? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName) else { return nil }
        return Int32(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Another run is writing the folder.
public struct FolderLockError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    /// The process holding the lock, as it wrote itself into the lock file.
    public var holder: Int32?
    /// Whether this run waited for the folder (`--wait`) and was stopped before it was free.
    public var stoppedWaiting = false

    public var description: String {
        let who = holder.map { "another gloss (pid \($0))" } ?? "another gloss"
        if stoppedWaiting { return "\(folder): stopped while waiting for \(who), which is writing this folder; nothing was read" }
        return "\(folder): \(who) is writing this folder; let it finish, or pass --wait to wait for it"
    }
}
