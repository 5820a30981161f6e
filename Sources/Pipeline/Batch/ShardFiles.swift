import Foundation
import GlossIndex
import GlossReports

#if canImport(Glibc)
import Glibc
#endif

/// The files a merge takes from a batch folder (a shard, or the batch merged into): exactly the
/// regular files its pages list, and nothing else of its `pages/` and `documents/`.
///
/// A shard may come from anywhere, so nothing it names is trusted: every page id must be a name
/// `pageIdentifier` could have made; every file a page lists must be `pages/<name>` with such a
/// name, or, for its document's files (`DocumentFiles.keys`), a path below `documents/` whose
/// parts are plain names (no `..`, no `.`, no `/` at the start, no scheme); and each must be a
/// regular file, reached through real folders: no part of its path is followed if it is a
/// symbolic link (a link to `/etc/shadow`, or a `documents/` folder that links to `/etc`, refuses
/// the shard). A file is then opened the same way, and written only to the same path in the
/// merged batch, so nothing outside the shard is read and nothing outside the output written.
struct ShardFiles {
    /// The files, relative to the folder (`pages/<name>`, `documents/...`), sorted.
    private(set) var paths: [String]
    private let folder: String

    /// Whether `path`, the file a page lists under the manifest key `key`, is one a batch may
    /// list: `pages/<name>`, or `documents/...` for a document's file.
    static func isListable(_ path: String, as key: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard DocumentFiles.keys.contains(key) else {
            return parts.count == 2 && parts[0] == "pages" && PageName.isSafe(String(parts[1]))
        }
        return parts.count >= 2 && parts[0] == "documents"
            && parts.dropFirst().allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
    }

    /// Checks the pages `listed` of the batch in `folder` and the files they name; throws a
    /// `MergeError` naming the folder at the first that does not pass.
    init(of listed: [BatchIndex.ListedPage], in folder: String) throws {
        self.folder = folder
        var required = Set<String>(), optional = Set<String>()
        for page in listed {
            guard PageName.isSafe(page.name) else { throw MergeError(folder: folder, reason: Self.unsafeID(page.name)) }
            for (format, path) in page.outputs {
                guard Self.isListable(path, as: format) else {
                    let place = DocumentFiles.keys.contains(format) ? "its documents/ folder" : "its pages/ folder"
                    throw MergeError(folder: folder, reason: "its page \(page.name) lists \(path.debugDescription) as its"
                                     + " \(format) file, which is not a file of \(place)")
                }
                required.insert(path)
            }
            // A multi-page file's combined hOCR and ALTO are named as if it had one page: its id
            // without the page number. They are not listed, and may be absent (a page failed).
            let suffix = "-p\(page.pageIndex + 1)"
            if page.name.hasSuffix(suffix), page.name.count > suffix.count {
                let stem = page.name.dropLast(suffix.count)
                for format in OutputFormat.allCases where format.combines && format.isText {
                    optional.insert("pages/" + stem + "." + format.fileExtension)
                }
            }
        }
        try Self.checkFolder(folder)
        let folders = OpenedFolders(of: folder)
        for path in required.sorted() {
            try Self.check(path, in: folders, required: true)
        }
        var present = required
        for path in optional.subtracting(required).sorted() where try Self.check(path, in: folders, required: false) {
            present.insert(path)
        }
        paths = present.sorted()
    }

    /// Why a page id from a shard is refused.
    static func unsafeID(_ id: String) -> String {
        "its page id \(id.debugDescription) is not a name Gloss gives a page (letters, digits, '.', '-', '_'),"
            + " so nothing is merged from it"
    }

    /// `pages/` of `folder` is a folder, not a link to one.
    private static func checkFolder(_ folder: String) throws {
        var info = stat()
        guard lstat(folder + "/pages", &info) == 0 else {
            throw MergeError(folder: folder, reason: "its pages/ folder cannot be read: " + systemError())
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw MergeError(folder: folder, reason: "its pages/ is not a folder (a symbolic link or another kind of file)")
        }
    }

    /// Whether the file at `path` is there; throws when it is not a readable regular file, or
    /// is missing and `required`.
    @discardableResult
    private static func check(_ path: String, in folders: OpenedFolders, required: Bool) throws -> Bool {
        let folder = folders.root
        let (parent, name) = try folders.parent(of: path)
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT && !required { return false }
            throw MergeError(folder: folder, reason: "\(path), which its gloss.json lists, cannot be read: " + systemError())
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: throw MergeError(folder: folder, reason: "\(path) is a symbolic link; a merge takes only regular files")
        default: throw MergeError(folder: folder, reason: "\(path) is not a regular file")
        }
        guard faccessat(parent, name, R_OK, 0) == 0 else {
            throw MergeError(folder: folder, reason: "\(path), which its gloss.json lists, cannot be read: " + systemError())
        }
        return true
    }

    /// Puts every file into `destination` (a batch folder whose `pages/` exists), each as a hard
    /// link where the file system allows (page files are only ever replaced whole, never changed
    /// in place, so sharing them is safe), else as a copy. A file is opened without following a
    /// link, and the link made is checked to be that very file, so a shard changed while it is
    /// merged cannot slip a symbolic link in.
    func copy(into destination: String) throws {
        let folders = OpenedFolders(of: folder)
        var made = Set<String>()
        for path in paths {
            let (parent, name) = try folders.parent(of: path)
            let to = destination + "/" + path
            let target = (to as NSString).deletingLastPathComponent
            if made.insert(target).inserted { try AtomicFile.createDirectory(target) }
            let file = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard file >= 0 else { throw MergeError(folder: folder, reason: "\(path) cannot be opened: " + systemError()) }
            defer { close(file) }
            var info = stat()
            guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw MergeError(folder: folder, reason: "\(path) is not a regular file")
            }
            unlink(to)
            if linkat(parent, name, AT_FDCWD, to, 0) == 0 {
                var linked = stat()
                if lstat(to, &linked) == 0, linked.st_dev == info.st_dev, linked.st_ino == info.st_ino { continue }
                unlink(to)
                throw MergeError(folder: folder, reason: "\(path) changed while it was being merged")
            }
            try AtomicFile.write(try Self.contents(of: file, size: Int(info.st_size), path: path, in: folder), to: to)
        }
    }

    /// The bytes of an open file.
    private static func contents(of file: Int32, size: Int, path: String, in folder: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(size, 0))
        var count = 0
        while true {
            if count == bytes.count { bytes += [UInt8](repeating: 0, count: max(4096, bytes.count)) }
            let got = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw MergeError(folder: folder, reason: "\(path) cannot be read: " + systemError()) }
            if got == 0 { break }
            count += got
        }
        return Array(bytes.prefix(count))
    }
}

/// The folders of a batch folder, each opened once, part by part from the batch folder without
/// following a symbolic link (`O_NOFOLLOW` at every step), and closed together.
private final class OpenedFolders {
    let root: String
    /// Descriptors by path relative to `root` ("" for `root` itself).
    private var opened: [String: Int32] = [:]

    init(of root: String) { self.root = root }

    deinit { for descriptor in opened.values { close(descriptor) } }

    /// The folder holding `path` (relative to `root`) and the file's own name in it.
    func parent(of path: String) throws -> (descriptor: Int32, name: String) {
        var parts = path.split(separator: "/").map(String.init)
        let name = parts.removeLast()
        return (try folder(parts, on: path), name)
    }

    /// The folder `parts` below `root`, opened on the way to the file `path` (for the error).
    private func folder(_ parts: [String], on path: String) throws -> Int32 {
        let key = parts.joined(separator: "/")
        if let descriptor = opened[key] { return descriptor }
        let descriptor: Int32
        if parts.isEmpty {
            descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw MergeError(folder: root, reason: "it cannot be opened: " + systemError()) }
        } else {
            descriptor = openat(try folder(Array(parts.dropLast()), on: path), parts.last!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                let failure = errno
                let cause = failure == ELOOP || failure == ENOTDIR
                    ? "is a symbolic link or not a folder" : "cannot be opened: " + String(cString: strerror(failure))
                throw MergeError(folder: root, reason: key + "/, on the way to \(path), " + cause)
            }
        }
        opened[key] = descriptor
        return descriptor
    }
}
