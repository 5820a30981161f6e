import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Inputs named on the command line that do not exist: a usage error, raised before anything
/// is written.
public struct MissingInputError: Error, CustomStringConvertible {
    public var paths: [String]

    public var description: String {
        let shown = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
        return "no such file or folder: \(shown)"
    }
}

/// Inputs that hold no page to read (an empty folder, a folder without images): the run
/// stops without making a batch.
public struct EmptyInputError: Error, CustomStringConvertible {
    public var inputs: [String]

    public var description: String {
        let shown = inputs.prefix(3).joined(separator: ", ") + (inputs.count > 3 ? " and \(inputs.count - 3) more" : "")
        return "nothing to read in \(shown): no image or PDF files (\(InputCollector.imageExtensions.sorted().joined(separator: ", ")))"
    }
}

extension InputCollector {
    /// Whether a local path names no file, folder or link at all (`http(s)` URLs are checked
    /// when they are fetched). A path that exists but cannot be read is a failed page instead,
    /// with the reason.
    public static func namesNothing(_ path: String) -> Bool {
        guard !RemoteFetcher.isRemote(path) else { return false }
        var info = stat()
        guard lstat(path, &info) != 0 else { return false }
        return errno == ENOENT || errno == ENOTDIR
    }
}

/// An output path that cannot be a batch folder: it, or a folder on the way to it, is a file.
/// A usage error, raised before anything is written.
public struct OutputFolderError: Error, Sendable, CustomStringConvertible {
    /// The path that is in the way, as given or as far as it went.
    public var path: String

    public var description: String { "\(path) is a file, not a folder: cannot write a batch there" }
}

/// What a run made of its output folder before it knew whether it had anything to read, so
/// that a run with nothing to read can take it away again.
struct OutputFolderCreation {
    /// The folders created, deepest first, and the lock file if this run made it.
    private var folders: [String] = []
    private var lockFile: String?

    /// What is missing of the way to `layout`'s pages folder; throws `OutputFolderError` when
    /// the nearest part of it that exists is not a folder.
    ///
    /// The paths are taken apart as text (`PathText`), not by Foundation's path helpers: on
    /// Linux `NSString.deletingLastPathComponent` traps on a one-letter relative path (`-o X`).
    init(layout: OutputLayout) throws {
        var missing: [String] = []
        var path: String? = PathText.trimmingSlashes(layout.pagesFolder)
        while let current = path {
            var info = stat()
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { throw OutputFolderError(path: current) }
                break
            }
            missing.append(current)
            path = PathText.parent(of: current)
        }
        folders = missing
        let lock = layout.folder + "/" + FolderLock.fileName
        lockFile = access(lock, F_OK) != 0 ? lock : nil
    }

    /// Removes the lock file and the folders this run created, if they are still empty.
    func undo() {
        if let lockFile { unlink(lockFile) }
        for folder in folders { rmdir(folder) }
    }
}

/// Paths taken apart as the text they are, the way the kernel reads them: components between
/// slashes, repeated and trailing slashes meaning nothing more.
enum PathText {
    /// `path` without trailing slashes, except a path of slashes only, which is `/`.
    static func trimmingSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    /// The folder `path` is in, as text: `a/b` for `a/b/c`, `/` for `/a`; nil for a single
    /// relative component (`X`, `.`), which is in the current folder, and for `/`.
    static func parent(of path: String) -> String? {
        let trimmed = trimmingSlashes(path)
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return nil }
        guard slash != trimmed.startIndex else { return "/" }
        return trimmingSlashes(String(trimmed[..<slash]))
    }
}
