import Foundation
import GlossContract
import GlossHTTP
import GlossPipeline
import GlossReports
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A route that changes the batch (`CorrectionRoute`: a correction, a page marked reviewed).
/// A write route is reached only on a server that is not `--read-only`, with the token, while
/// `serve` holds the batch's lock.
public protocol WriteRoute: Sendable {
    /// The path it answers, exactly (`/api/corrections`).
    var path: String { get }
    /// The methods it takes (`POST`, `PUT`, `DELETE`).
    var methods: Set<String> { get }
    func respond(to request: HTTPRequest, in folder: String) -> HTTPResponse
}

/// Who may write: the secret printed in the start-up URL, as Jupyter prints its token. A write
/// carries it as `Authorization: Bearer TOKEN`, `X-Gloss-Token: TOKEN` or `?token=TOKEN`.
public struct WriteToken: Sendable, Equatable {
    public let value: String

    public init(value: String) { self.value = value }

    /// 128 random bits from the system's generator (the kernel's `getrandom` on Linux), as hex.
    public static func random() -> WriteToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return WriteToken(value: bytes.map { String(format: "%02x", $0) }.joined())
    }

    /// Whether the request carries this token; compared in constant time.
    public func admits(_ request: HTTPRequest) -> Bool {
        let given = request.headers["authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            ?? request.headers["x-gloss-token"] ?? request.query["token"]
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(value.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// What `gloss serve` answers: the batch's files as they are, its IIIF manifest and annotation
/// pages with absolute ids under `base`, the Content Search service over its index, and, unless
/// read-only, the write routes behind the token.
///
/// Reads (GET, HEAD, OPTIONS) carry CORS headers so a viewer on another origin can load the
/// manifest and search it; writes carry none, so no other origin's page can read their answers,
/// and they need the token besides.
public struct BatchServer: HTTPHandler {
    public let files: BatchFiles
    /// The URL the batch is published under (`--public-url`), ending in a slash; nil for the
    /// address each request was sent to (its `Host`), as `http://HOST/`.
    public let publicURL: String?
    /// Nil: read-only, with no write route at all.
    public let token: WriteToken?
    public let writeRoutes: [any WriteRoute]
    private let documents: IIIFDocuments
    private let indexReaders: IndexReaders

    public init(folder: String, publicURL: String?, token: WriteToken?, writeRoutes: [any WriteRoute] = []) throws {
        files = try BatchFiles(folder: folder)
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.token = token
        self.writeRoutes = token == nil ? [] : writeRoutes
        documents = IIIFDocuments(folder: files.root)
        indexReaders = IndexReaders(folder: files.root)
    }

    /// The base URL ids are made under for this request.
    func base(for request: HTTPRequest) -> String? {
        if let publicURL { return publicURL }
        guard let host = request.headers["host"], !host.isEmpty,
              host.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }) else { return nil }
        return "http://" + host + "/"
    }

    static let corsHeaders: [(name: String, value: String)] = [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
        ("Access-Control-Allow-Headers", "Accept, Content-Type, Range"),
    ]

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        switch request.method {
        case "GET", "HEAD":
            var response = read(request)
            response.headers += Self.corsHeaders
            return response
        case "OPTIONS":
            return HTTPResponse(status: 204, headers: Self.corsHeaders + [("Access-Control-Max-Age", "600")])
        default:
            return write(request)
        }
    }

    private func read(_ request: HTTPRequest) -> HTTPResponse {
        func json(_ result: Result<[UInt8], BatchFiles.Refusal>, type: String = "application/json") -> HTTPResponse {
            switch result {
            case .success(let bytes): HTTPResponse(status: 200, headers: [("Content-Type", type)], body: .bytes(bytes))
            case .failure(let refusal): .error(refusal.status, refusal.reason)
            }
        }
        if request.path == CorrectionReads.statusPath {
            return CorrectionReads.status(writable: writeRoutes.contains { $0.path == CorrectionRoute.routePath })
        }
        if request.path.hasPrefix(CorrectionReads.pagesPrefix) {
            return CorrectionReads.page(request.path, in: files.root)
        }
        let isIIIF = request.path.hasPrefix("/" + IIIFPresentation.folder + "/")
        guard isIIIF else { return files.response(for: request.path) }
        guard let base = base(for: request) else {
            return .error(400, "the request names no Host, and the server was started without --public-url")
        }
        let search = ContentSearch(folder: files.root, base: base, readers: indexReaders)
        switch request.path {
        case ContentSearch.searchPath: return json(search.search(request.query), type: "application/ld+json")
        case ContentSearch.autocompletePath: return json(search.autocomplete(request.query), type: "application/ld+json")
        default:
            let path = String(request.path.dropFirst())
            switch documents.document(path, base: base, search: (search.serviceURL, search.autocompleteURL)) {
            case .success(let bytes?):
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/ld+json")], body: .bytes(bytes))
            case .success(nil):
                return files.response(for: request.path)
            case .failure(let refusal):
                return .error(refusal.status, refusal.reason)
            }
        }
    }

    private func write(_ request: HTTPRequest) -> HTTPResponse {
        // A 405 says what the path takes (`Allow`), a 401 how to authenticate (`WWW-Authenticate`),
        // as HTTP asks of them.
        func refused(_ status: Int, _ reason: String, _ header: (String, String)) -> HTTPResponse {
            var response = HTTPResponse.error(status, reason)
            response.headers.append(header)
            return response
        }
        guard let token else {
            return refused(405, "this server is read-only (--read-only): it has no write route", ("Allow", "GET, HEAD, OPTIONS"))
        }
        guard token.admits(request) else {
            return refused(401, "a write needs the token printed when gloss serve started (Authorization: Bearer TOKEN)",
                           ("WWW-Authenticate", "Bearer realm=\"gloss\""))
        }
        guard let route = writeRoutes.first(where: { $0.path == request.path }) else {
            return .error(404, "no write route at \(request.path)")
        }
        guard route.methods.contains(request.method) else {
            let methods = route.methods.sorted().joined(separator: ", ")
            return refused(405, "\(request.path) takes \(methods), not \(request.method)", ("Allow", methods))
        }
        return route.respond(to: request, in: files.root)
    }
}

/// The IIIF documents of the batch under the served URL, built from its page JSON files when
/// first asked for under a URL and again whenever `gloss.json` changes (a run finished, a
/// merge). The last few URLs' documents are kept (`keptBases`), so two viewers that name the
/// server differently (`localhost`, `127.0.0.1`) do not rebuild them in turn on every request.
final class IIIFDocuments: Sendable {
    let folder: String
    /// How many base URLs' documents are kept; the one asked for least recently goes first.
    static let keptBases = 4
    private struct Built: Sendable {
        var stamp: [Int]
        var base: String
        var files: [String: [UInt8]]
    }
    /// The documents built, the most recently asked for last.
    private let built = Mutex<[Built]>([])

    init(folder: String) {
        self.folder = folder
    }

    /// The document at `path` (relative to the batch, under `iiif/`) with ids under `base`; nil
    /// for a path that is not one, to be served as a file if there is one.
    func document(_ path: String, base: String,
                  search: (service: String, autocomplete: String)) -> Result<[UInt8]?, BatchFiles.Refusal> {
        let layout = OutputLayout(folder: folder)
        var status = stat()
        guard stat(layout.manifestPath, &status) == 0 else {
            return .failure(.init(status: 404, reason: "the batch has no gloss.json, so no manifest can be made"))
        }
        let stamp = [Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec), Int(status.st_size), Int(status.st_ino)]
        let cached = built.withLock { kept -> [String: [UInt8]]? in
            guard let index = kept.firstIndex(where: { $0.stamp == stamp && $0.base == base }) else { return nil }
            kept.append(kept.remove(at: index))
            return kept.last?.files
        }
        if let cached { return .success(cached[path]) }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: layout.manifestPath))
            let manifest = try JSONDecoder().decode(BatchManifest.self, from: data)
            let documents = try IIIFBatch.documents(of: manifest.pages, in: folder, base: base,
                                                    label: IIIFBatch.label(of: manifest.pages, folder: folder),
                                                    languages: manifest.settings.recognition.languages, search: search)
            let files = Dictionary(documents.map { ($0.path, $0.bytes) }, uniquingKeysWith: { _, last in last })
            built.withLock { kept in
                kept.removeAll { $0.stamp != stamp || $0.base == base }
                kept.append(Built(stamp: stamp, base: base, files: files))
                if kept.count > Self.keptBases { kept.removeFirst(kept.count - Self.keptBases) }
            }
            return .success(files[path])
        } catch {
            return .failure(.init(status: 500, reason: "\(layout.manifestPath) does not read: \(error)"))
        }
    }
}

/// A batch being served: the batch opened for corrections (its lock; none when read-only), the
/// token, and the running daemon, all released together when this value goes.
public final class ServedBatch {
    public let server: HTTPServer
    public let handler: BatchServer
    private let batch: CorrectableBatch?

    /// Serves `folder` with `options`. Unless `readOnly`, opens it for corrections first, which
    /// takes the folder's lock, so that no `annotate` or `merge` writes the folder while
    /// corrections may come (`ServeLockError` when one holds it), and makes a token for them.
    public init(folder: String, options: HTTPServerOptions, publicURL: String?, readOnly: Bool) async throws {
        guard FileManager.default.fileExists(atPath: folder + "/" + "gloss.sqlite") else {
            throw ServeError(folder: folder, reason: "no gloss.sqlite here: is it a batch that gloss annotate wrote?")
        }
        if readOnly {
            batch = nil
        } else {
            do {
                batch = try await CorrectableBatch.open(folder)
            } catch let error as FolderLockError {
                throw ServeLockError(folder: folder, holder: error.holder)
            }
        }
        handler = try BatchServer(folder: folder, publicURL: publicURL, token: readOnly ? nil : .random(),
                                  writeRoutes: batch.map { [CorrectionRoute(batch: $0)] } ?? [])
        server = try HTTPServer(options: options, handler: handler)
    }

    /// The URL to open: the batch's index, with the token when writes are possible.
    public var startURL: String {
        let host = server.address.contains(":") ? "[\(server.address)]" : server.address
        let root = handler.publicURL ?? "http://\(host):\(server.port)/"
        return root + (handler.token.map { "?token=" + $0.value } ?? "")
    }

    /// The manifest's URL, for a IIIF viewer.
    public var manifestURL: String {
        let host = server.address.contains(":") ? "[\(server.address)]" : server.address
        return (handler.publicURL ?? "http://\(host):\(server.port)/") + IIIFPresentation.manifestPath
    }
}

/// An `annotate` or `merge` holds the folder, so `serve` cannot take it for writes.
public struct ServeLockError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    public var holder: Int32?
    public var description: String {
        let who = holder.map { "another gloss (pid \($0))" } ?? "another gloss"
        return "\(folder): \(who), an annotate or merge, is writing this folder, and serve takes it for writes "
            + "(corrections); wait for it to finish, or serve it with --read-only"
    }
}
