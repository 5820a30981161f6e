import Foundation
import GlossHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The files of a batch folder, served as they are, and nothing outside it.
///
/// A request path is refused before the file system sees it when a segment is `..` or `.`, is
/// empty (`//etc/passwd`), or holds a NUL; then the file's real path (every symbolic link
/// followed) must still lie in the batch's real folder, so a link that points out of it is
/// refused too. Only regular files are sent; a folder sends its `index.html`.
public struct BatchFiles: Sendable {
    /// The batch folder's real path, without a trailing slash.
    public let root: String

    public init(folder: String) throws {
        guard let resolved = realpath(folder, nil) else {
            throw ServeError(folder: folder, reason: "no such folder")
        }
        root = String(cString: resolved)
        free(resolved)
    }

    /// Why a path is not served, as its status and a reason.
    public struct Refusal: Error, Sendable, Equatable {
        public var status: Int
        public var reason: String
    }

    /// The real path of the file `path` names (a URL path, starting with `/`), or why not.
    public func resolve(_ path: String) -> Result<String, Refusal> {
        guard path.hasPrefix("/") else { return .failure(Refusal(status: 400, reason: "the path must start with /")) }
        guard !path.contains("\0") else { return .failure(Refusal(status: 400, reason: "the path holds a NUL byte")) }
        var segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.last == "" { segments.removeLast() }
        for segment in segments {
            switch segment {
            case "..": return .failure(Refusal(status: 403, reason: "'..' would leave the batch folder"))
            case ".": return .failure(Refusal(status: 403, reason: "'.' is not a name in the batch folder"))
            case "": return .failure(Refusal(status: 403, reason: "an empty segment (an absolute path) is not a name in the batch folder"))
            default: continue
            }
        }
        var candidate = ([root] + segments).joined(separator: "/")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate, isDirectory: &isFolder), isFolder.boolValue {
            candidate += "/index.html"
        }
        guard let resolved = realpath(candidate, nil) else {
            return .failure(Refusal(status: 404, reason: "\(path) is not a file of the batch"))
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        // Compared byte for byte: `hasPrefix` takes canonically equal names as one, and a
        // sibling folder named with a decomposed accent is not the batch's.
        guard real.utf8.starts(with: (root + "/").utf8) else {
            return .failure(Refusal(status: 403, reason: "\(path) is a symbolic link out of the batch folder"))
        }
        return .success(real)
    }

    /// The response for a GET of `path`: the file, opened without following a link again (the
    /// checked real path is opened), with its type; or the refusal as a status and reason.
    public func response(for path: String) -> HTTPResponse {
        switch resolve(path) {
        case .failure(let refusal):
            return .error(refusal.status, refusal.reason)
        case .success(let real):
            // Non-blocking: opening a named pipe someone left in the folder would otherwise wait
            // for a writer, and hold one of the server's threads for good.
            let descriptor = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return .error(404, "\(path) cannot be opened") }
            var status = stat()
            guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                return .error(404, "\(path) is not a regular file")
            }
            // `no-cache`: a correction writes the page's files again, so a browser asks each time.
            return HTTPResponse(status: 200, headers: [("Content-Type", Self.mediaType(of: real)), ("Cache-Control", "no-cache")],
                                body: .file(descriptor: descriptor, size: UInt64(status.st_size)))
        }
    }

    /// The media type of the files a batch holds, by extension; bytes otherwise.
    static func mediaType(of path: String) -> String {
        let name = path.lowercased()
        if name.hasSuffix(".alto.xml") { return "application/xml" }
        switch (name as NSString).pathExtension {
        case "html", "hocr": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "txt", "tsv": return name.hasSuffix(".tsv") ? "text/tab-separated-values; charset=utf-8" : "text/plain; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "pdf": return "application/pdf"
        case "sqlite": return "application/vnd.sqlite3"
        default: return "application/octet-stream"
        }
    }
}

/// `gloss serve` cannot serve a folder: which, and why.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    public var reason: String
    public var description: String { "\(folder): \(reason)" }
}
