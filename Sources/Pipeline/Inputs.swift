import Foundation

/// Turns the paths a user names into the list of image files to read.
///
/// Files named explicitly are always tried (a wrong one is reported, not skipped); folders are
/// walked recursively for files with an image extension; `http://` and `https://` URLs are kept
/// as they are, for the fetch stage. The order is stable: as given, and
/// sorted within a folder, so page numbers and reports do not change between runs.
public enum InputCollector {
    public static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "tif", "tiff", "pnm", "pbm", "pgm", "ppm", "webp", "gif", "bmp", "jp2",
    ]

    public static func files(from paths: [String]) -> [String] {
        inputs(from: paths).map(\.path)
    }

    /// The files, each with its path relative to the root it was found under: a folder named
    /// by the user, the folder of a file named directly, or the URL itself. That relative path
    /// is what decides a file's shard, so every machine agrees wherever the collection is mounted.
    public static func inputs(from paths: [String]) -> [Input] {
        var seen = Set<String>()
        var files: [Input] = []
        func add(_ path: String, relativePath: String) {
            let key = URL(fileURLWithPath: path).standardizedFileURL.path
            if seen.insert(key).inserted { files.append(Input(path: path, relativePath: relativePath)) }
        }
        for path in paths {
            if RemoteFetcher.isRemote(path) {
                if seen.insert(path).inserted { files.append(Input(path: path, relativePath: path)) }
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                for relative in imagesBelow(path) {
                    add((path as NSString).appendingPathComponent(relative), relativePath: relative)
                }
            } else {
                add(path, relativePath: (path as NSString).lastPathComponent)
            }
        }
        return files
    }

    /// One image to read.
    public struct Input: Sendable, Equatable {
        public var path: String
        public var relativePath: String
    }

    /// Image files below `folder`, as paths relative to it, sorted.
    private static func imagesBelow(_ folder: String) -> [String] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let ext = (relative as NSString).pathExtension.lowercased()
            guard imageExtensions.contains(ext) else { continue }
            let path = (folder as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }
}

/// A stable, file-system-safe name for a page's outputs: the file's stem (letters, digits, dot,
/// dash, underscore), a short hash of the whole path so that equal stems in different folders
/// differ, and the page number for multi-page files. Derived names can never leave the output
/// folder.
public func pageIdentifier(source: String, pageIndex: Int, pageCount: Int) -> String {
    let stem = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
    let safe = String(stem.unicodeScalars.prefix(48).map { scalar -> Character in
        let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        return allowed ? Character(scalar) : "_"
    })
    let trimmed = safe.trimmingCharacters(in: CharacterSet(charactersIn: "."))
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across runs and machines
    for byte in source.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    let hex = String(hash >> 32, radix: 16)
    let suffix = pageCount > 1 ? "-p\(pageIndex + 1)" : ""
    return (trimmed.isEmpty ? "page" : trimmed) + "-" + String(repeating: "0", count: 8 - hex.count) + hex + suffix
}
