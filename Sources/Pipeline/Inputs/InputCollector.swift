import Foundation
import GlossGeometry
import GlossImaging

#if canImport(Glibc)
import Glibc
#endif

/// Turns the paths a user names into the list of image files to read.
///
/// Files named explicitly are always tried (a wrong one is reported, not skipped); folders are
/// walked recursively for files with an image extension, following symbolic links but never
/// into a folder twice (a link loop ends there); `http://` and `https://` URLs are kept as they
/// are, for the fetch stage. A file named twice is read once. The order is stable: as given,
/// and sorted within a folder, so page numbers and reports do not change between runs.
///
/// A folder holding a Gloss batch (its `gloss.json` or `gloss.lock`) is not walked: its images
/// are a run's outputs, and an output folder inside an input folder would otherwise read its
/// own display copies again on every run.
public enum InputCollector {
    /// The file name endings a folder walk takes, from the table of input kinds (`ImageFormat`).
    public static let imageExtensions: Set<String> = ImageFormat.fileExtensions

    /// The files, each with its path relative to the root it was found under: a folder named
    /// by the user, the folder of a file named directly, or the URL itself. That relative path
    /// is what decides a file's shard, so every machine agrees wherever the collection is mounted.
    /// What a walk over the user's paths found: the inputs, and the batch folders it left out.
    public struct Walk: Sendable {
        public var inputs: [Input] = []
        public var batchFolders: [String] = []
        /// Folders that could not be opened or listed (a permission, a failing disk), each also
        /// an input with its `problem`: what was below them is unknown, not gone.
        public var unreadableFolders: [String] = []
    }

    /// The inputs below `paths`, and the batch folders skipped on the way.
    public static func walk(_ paths: [String]) -> Walk {
        var seen = Set<String>()
        var files: [Input] = []
        var batchFolders: [String] = []
        var unreadableFolders: [String] = []
        func add(_ path: String, relativePath: String, problem: String? = nil, byteCount: Int? = nil) {
            let key = URL(fileURLWithPath: path).standardizedFileURL.path
            guard seen.insert(key).inserted else { return }
            var input = Input(path: path, relativePath: relativePath, problem: problem)
            input.byteCount = byteCount
            files.append(input)
        }
        for path in paths {
            if RemoteFetcher.isRemote(path) {
                if seen.insert(path).inserted { files.append(Input(remote: path)) }
                continue
            }
            var info = stat()
            let examined = stat(path, &info) == 0
            if examined, info.st_mode & S_IFMT == S_IFDIR {
                let found = imagesBelow(path)
                func below(_ relative: String) -> String { relative.isEmpty ? path : (path as NSString).appendingPathComponent(relative) }
                for image in found.images {
                    add(below(image.relativePath), relativePath: image.relativePath.isEmpty ? "." : image.relativePath,
                        problem: image.problem, byteCount: image.byteCount)
                }
                batchFolders += found.batchFolders.map(below)
                unreadableFolders += found.unreadableFolders.map(below)
            } else {
                add(path, relativePath: (path as NSString).lastPathComponent,
                    byteCount: examined && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : nil)
            }
        }
        return Walk(inputs: files, batchFolders: batchFolders, unreadableFolders: unreadableFolders)
    }

    /// Whether `folder` holds a Gloss batch.
    static func holdsBatch(_ folder: String) -> Bool {
        ["gloss.json", FolderLock.fileName].contains { access(folder + "/" + $0, F_OK) == 0 }
    }

    /// One image to read.
    public struct Input: Sendable, Equatable {
        public var path: String
        public var relativePath: String
        /// Why the file cannot be read whatever it holds (its name is not UTF-8, so no path in
        /// a Swift string reaches it), or nil. `path` then shows the name's bytes escaped.
        public var problem: String?
        /// A URL's full form, to fetch it, when `path` is its redacted form (`RedactedURL`):
        /// kept in memory only, never shown or stored.
        var fetchURL: String?
        /// The file's bytes when the walk found a regular file, which stand for its cost
        /// (`FileQueue.largestFirst`); nil for a URL or a file it could not examine.
        public var byteCount: Int?

        public init(path: String, relativePath: String, problem: String? = nil) {
            self.path = path
            self.relativePath = relativePath
            self.problem = problem
        }

        /// A URL input, shown and stored redacted, fetched in full.
        public init(remote url: String) {
            let shown = RedactedURL.shown(url)
            self.init(path: shown, relativePath: shown)
            fetchURL = shown == url ? nil : url
        }
    }

    /// Image files below `folder`, as paths relative to it, sorted; the batch folders left
    /// out, and the folders that could not be read, relative to it too (empty for `folder`
    /// itself). A folder that cannot be read is also among the images, with its problem, so
    /// that the run reports it as it reports a file it cannot read.
    private static func imagesBelow(
        _ folder: String
    ) -> (images: [(relativePath: String, problem: String?, byteCount: Int?)], batchFolders: [String], unreadableFolders: [String]) {
        struct FolderID: Hashable {
            var device: UInt
            var inode: UInt
        }
        var visited = Set<FolderID>()
        var found: [(relativePath: String, problem: String?, byteCount: Int?)] = []
        var batchFolders: [String] = []
        var unreadable: [String] = []
        func cannotRead(_ relative: String, _ what: String) {
            let cause = systemError()
            found.append((String(relative.dropLast()), "\(what): \(cause); pages read from it before are kept", nil))
            unreadable.append(String(relative.dropLast()))
        }
        func walk(_ directory: String, relative: String) {
            var info = stat()
            guard stat(directory, &info) == 0,
                  visited.insert(FolderID(device: UInt(info.st_dev), inode: UInt(info.st_ino))).inserted else { return }
            guard !holdsBatch(directory) else {
                batchFolders.append(String(relative.dropLast()))
                return
            }
            guard let stream = opendir(directory) else { return cannotRead(relative, "cannot open the folder") }
            defer { closedir(stream) }
            while true {
                errno = 0
                guard let entry = readdir(stream) else {
                    if errno != 0 { cannotRead(relative, "cannot list the folder") }
                    break
                }
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard bytes != [0x2E], bytes != [0x2E, 0x2E] else { continue }
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    let shown = escaped(bytes)
                    if hasImageExtension(shown) {
                        found.append((relative + shown, "its name is not valid UTF-8; rename the file to read it", nil))
                    }
                    continue
                }
                let path = directory + "/" + name
                var entryInfo = stat()
                let examined = stat(path, &entryInfo) == 0
                if examined, entryInfo.st_mode & S_IFMT == S_IFDIR {
                    walk(path, relative: relative + name + "/")
                } else if !examined, entry.pointee.d_type == UInt8(DT_DIR), errno != ENOENT {
                    cannotRead(relative + name + "/", "cannot open the folder")  // listed, but not to be looked into
                } else if hasImageExtension(name) {
                    // Broken links too: reading says why.
                    let size = examined && entryInfo.st_mode & S_IFMT == S_IFREG ? Int(entryInfo.st_size) : nil
                    found.append((relative + name, nil, size))
                }
            }
        }
        walk(folder, relative: "")
        return (found.sorted { $0.relativePath < $1.relativePath }, batchFolders.sorted(), unreadable.sorted())
    }

    private static func hasImageExtension(_ name: String) -> Bool {
        imageExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// A file name's bytes as text: ASCII as it is, every other byte as `\xHH`.
    private static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x" + HexText.format($0, digits: 2, uppercase: true) }
            .joined()
    }
}

/// A stable, file-system-safe name for a page's outputs: the file's stem (ASCII letters,
/// digits, dot, dash, underscore; anything else `_`), 64 bits of the SHA-256 of the whole
/// source, and the page number for multi-page files. Derived names can never leave the output
/// folder.
///
/// The stem is only for people; the hash tells pages apart. Two sources get one id only if
/// their stems match and 64 bits of their digests do: among the 6 million pages of a large
/// archive, all sharing one stem, that happens with a chance of about n²/2⁶⁵ = 1 in a million
/// (32 bits made it several times). Non-ASCII letters become `_` (names then stay safe in
/// every file system, URL and archive tool, and are never normalised differently on another
/// system); the hash still tells `Zürich.png` from `Zurich.png`. Should two ids meet anyway, a
/// batch fails the second page and a merge refuses: neither replaces one page with another.
public func pageIdentifier(source: String, pageIndex: Int, pageCount: Int) -> String {
    let stem = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
    let safe = String(stem.unicodeScalars.prefix(48).map { scalar -> Character in
        PageName.allows(scalar) ? Character(scalar) : "_"
    })
    let trimmed = safe.trimmingCharacters(in: CharacterSet(charactersIn: "."))
    let hash = SHA256.hex(of: Array(source.utf8)).prefix(16)  // stable across runs and machines
    let suffix = pageCount > 1 ? "-p\(pageIndex + 1)" : ""
    return (trimmed.isEmpty ? "page" : trimmed) + "-" + hash + suffix
}

/// What a page id may be: one file-name component of the characters `pageIdentifier` makes,
/// not hidden. A merge checks every id a shard names against this before it writes a file.
public enum PageName {
    /// Ids are far shorter (48 of stem, 16 of hash and a page number); file names end at 255
    /// bytes, and a page's files add a suffix such as `-lines.json`.
    static let maximumLength = 160

    static func allows(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    /// Whether `name` is a safe page id, or a safe name of a file in `pages/`.
    public static func isSafe(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumLength && !name.hasPrefix(".") && name.unicodeScalars.allSatisfy(allows)
    }
}
