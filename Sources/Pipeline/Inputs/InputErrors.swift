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

/// What a run made of its output folder before it knew whether it had anything to read, so
/// that a run with nothing to read can take it away again.
struct OutputFolderCreation {
    /// The folders created, deepest first, and the lock file if this run made it.
    private var folders: [String] = []
    private var lockFile: String?

    init(layout: OutputLayout) {
        var path = (layout.pagesFolder as NSString).standardizingPath
        var missing: [String] = []
        while !path.isEmpty, path != "/", access(path, F_OK) != 0 {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
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
