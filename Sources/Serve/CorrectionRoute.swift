import Foundation
import GlossContract
import GlossHTTP
import GlossPipeline

/// `POST /api/corrections`: a reviewer's corrections of one page, applied as `gloss correct`
/// applies a file (`Corrections.apply`: journal, page JSON, every file made from it, index),
/// against the version of the page the reviewer saw.
///
/// The body is `{"corrections": [...]}` (docs/corrections.md), all of one page. The version
/// goes in `If-Match` (`"<16 hex digits>"`, the page's `ETag`; `*` for whatever it is now):
///
/// | answer | when |
/// |---|---|
/// | 200 `{"page", "version", "rewritten", "notRewritten"}` and the new `ETag` | applied |
/// | 400 | the body is not corrections of one page, or one is not of its kind's shape |
/// | 404 | no such page in the batch |
/// | 409 | a word a correction takes is no longer on the page |
/// | 412 `{"error", "version"}` | the page changed since that version: load it again |
/// | 428 | no `If-Match`: a correction is never made blind |
/// | 500 | a file of the batch could not be read or written (named) |
///
/// The token and the size limit are checked before a route is reached (`BatchServer`,
/// `HTTPServerOptions.maximumBodyBytes`). Corrections apply one call at a time, on the server's
/// own threads, while the `CorrectableBatch` holds the batch's lock.
public struct CorrectionRoute: WriteRoute {
    public static let routePath = "/api/corrections"
    public var path: String { Self.routePath }
    public var methods: Set<String> { ["POST"] }
    public let batch: CorrectableBatch

    public init(batch: CorrectableBatch) {
        self.batch = batch
    }

    public func respond(to request: HTTPRequest, in folder: String) -> HTTPResponse {
        guard let condition = request.headers["if-match"]?.trimmingCharacters(in: .whitespaces), !condition.isEmpty else {
            return .error(428, "a correction needs If-Match with the version of the page it was made on (its ETag)")
        }
        let version: String?
        switch Self.version(ofCondition: condition) {
        case .some(let given): version = given
        case .none where condition == "*": version = nil
        case .none: return .error(400, "If-Match takes one version in quotes, as the page's ETag gives it, not \(condition)")
        }
        let file: CorrectionFile
        do { file = try JSONOutput.decode(CorrectionFile.self, from: request.body) } catch {
            return .error(400, "the body is not {\"corrections\": [...]} (docs/corrections.md): \(error)")
        }
        let pages = Set(file.corrections.map(\.page))
        guard let page = pages.first, pages.count == 1 else {
            return .error(400, pages.isEmpty ? "the body holds no correction" : "one call corrects one page; this one names \(pages.count)")
        }
        do {
            let applied = try Corrections.apply(file.corrections, to: page, batch: batch, version: version)
            return Self.json(200, Answer(page: applied.page, version: applied.version, rewritten: applied.rewritten,
                                         notRewritten: applied.notRewritten), etag: applied.version)
        } catch {
            return Self.response(to: error)
        }
    }

    /// The version an `If-Match` names: one entity tag, strong or weak; nil for anything else.
    static func version(ofCondition condition: String) -> String? {
        let tag = condition.hasPrefix("W/") ? String(condition.dropFirst(2)) : condition
        guard tag.count >= 2, tag.first == "\"", tag.last == "\"" else { return nil }
        let inner = tag.dropFirst().dropLast()
        guard !inner.isEmpty, !inner.contains("\"") else { return nil }
        return String(inner)
    }

    static func response(to error: CorrectionError) -> HTTPResponse {
        switch error {
        case .malformed: .error(400, error.description)
        case .unknownPage: .error(404, error.description)
        case .wordNotFound: .error(409, error.description)
        case .staleVersion(_, _, let current): json(412, Refusal(error: error.description, version: current), etag: current)
        case .file: .error(500, error.description)
        }
    }

    struct Answer: Encodable {
        var page: String
        var version: String
        var rewritten: [String]
        var notRewritten: [String]
    }

    struct Refusal: Encodable {
        var error: String
        var version: String
    }

    static func json(_ status: Int, _ value: some Encodable, etag: String? = nil) -> HTTPResponse {
        let body = (try? JSONOutput.encode(value, pretty: false)) ?? []
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
                                + (etag.map { [("ETag", "\"\($0)\"")] } ?? []),
                            body: .bytes(body))
    }
}

/// The reads that go with the corrections: whether this server takes them, and a page's JSON
/// with its version, for the page view to send its next correction against.
enum CorrectionReads {
    static let statusPath = "/api/status"
    static let pagesPrefix = "/api/pages/"

    /// `GET /api/status`: `{"writable": Bool}`, true when this server takes corrections.
    static func status(writable: Bool) -> HTTPResponse {
        CorrectionRoute.json(200, ["writable": writable])
    }

    /// `GET /api/pages/ID`: `{"page", "version", "report"}`, the report being the page's JSON as
    /// written, with the version as its `ETag`.
    static func page(_ path: String, in folder: String) -> HTTPResponse {
        let id = String(path.dropFirst(pagesPrefix.count))
        guard !id.isEmpty, !id.contains("/") else { return .error(404, "no page named by \(path)") }
        do {
            let (bytes, version) = try CorrectableBatch.pageJSON(id, in: folder)
            let head = try JSONOutput.encode(["page": id, "version": version], pretty: false)
            // {"page":...,"version":...} with the report's own bytes spliced in, as written.
            let body = Array(head.dropLast()) + Array(",\"report\":".utf8) + bytes + [UInt8(ascii: "}")]
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                                                       ("ETag", "\"\(version)\"")], body: .bytes(body))
        } catch let error as CorrectionError {
            return CorrectionRoute.response(to: error)
        } catch {
            return .error(500, "\(path): \(error)")
        }
    }
}
