import Foundation
import GlossContract
import GlossGeometry
import GlossIndex
import GlossReports

/// IIIF Content Search 2.0 answered from the batch's index (`gloss.sqlite`), as the
/// specification writes it (iiif.io/api/search/2.0):
///
/// - `iiif/search?q=…` is an AnnotationPage of `highlighting` annotations, one per word the
///   query matched, each with the word as a `TextualBody` and the word's box on its page as
///   the target, `<canvas>#xywh=x,y,w,h` (a canvas's pixels are its page's);
/// - results come in the batch's page order (its canvases' order in the manifest), not ranked:
///   the specification lists a resource's hits in order, and skipping bm25 makes a common
///   word as cheap as a rare one;
/// - results are paged by the pages they fall on, `pagesPerResponse` pages a response: a page
///   has `partOf` (the AnnotationCollection with `first` and `last`), `next` and `prev` where
///   there are such pages, and `startIndex` is left out, since a page's hits are counted only
///   when it is shown;
/// - `iiif/autocomplete?q=…` is a TermPage of the indexed terms starting with `q`, each with the
///   number of pages that hold it (`total`);
/// - parameters the service does not implement (`motivation`, `date`, `user`) are listed in
///   `ignored`, as the specification requires.
public struct ContentSearch: Sendable {
    public static let searchPath = "/iiif/search"
    public static let autocompletePath = "/iiif/autocomplete"
    static let context = "http://iiif.io/api/search/2/context.json"
    static let unimplemented = ["motivation", "date", "user"]

    /// The batch folder whose index answers.
    public var folder: String
    /// The connections to its index, shared by the requests of one server.
    let readers: IndexReaders
    /// The batch's published URL, ending in a slash.
    public var base: String
    /// How many matching pages one response covers.
    public var pagesPerResponse = 10
    /// The most terms an autocomplete response lists.
    public var completions = 20

    public init(folder: String, base: String) {
        self.init(folder: folder, base: base, readers: IndexReaders(folder: folder))
    }

    init(folder: String, base: String, readers: IndexReaders) {
        self.folder = folder
        self.base = base
        self.readers = readers
    }

    public var serviceURL: String { base + Self.searchPath.dropFirst() }
    public var autocompleteURL: String { base + Self.autocompletePath.dropFirst() }

    /// The response to a search request's query arguments: JSON, or an error status and reason.
    public func search(_ arguments: [String: String]) -> Result<[UInt8], BatchFiles.Refusal> {
        guard let query = arguments["q"]?.trimmingCharacters(in: .whitespaces), !query.isEmpty else {
            return .failure(.init(status: 400, reason: "a search needs q, the words to find"))
        }
        let page = Int(arguments["page"] ?? "1") ?? 0
        // The first result's place, which a page far past any batch's results must not overflow.
        guard page >= 1, case (let offset, false) = (page - 1).multipliedReportingOverflow(by: pagesPerResponse) else {
            return .failure(.init(status: 400, reason: "page is a number from 1"))
        }
        do {
            let (total, results) = try readers.reading { index in
                (try index.matchingPageCount(query),
                 try index.search(query, limit: pagesPerResponse, offset: offset, order: .pageOrder, snippets: false))
            }
            let pages = max(1, (total + pagesPerResponse - 1) / pagesPerResponse)
            return .success(try response(query: query, page: page, pages: pages, results: results,
                                         ignored: Self.unimplemented.filter { arguments[$0] != nil }))
        } catch let error as QueryError {
            return .failure(.init(status: 400, reason: error.description))
        } catch let error as SearchTimeError {
            return .failure(.init(status: 503, reason: error.description))
        } catch {
            return .failure(.init(status: 500, reason: "the index cannot be searched: \(error)"))
        }
    }

    /// The response to an autocomplete request.
    public func autocomplete(_ arguments: [String: String]) -> Result<[UInt8], BatchFiles.Refusal> {
        guard let prefix = arguments["q"]?.trimmingCharacters(in: .whitespaces), !prefix.isEmpty else {
            return .failure(.init(status: 400, reason: "autocomplete needs q, the start of a word"))
        }
        let minimum = Int(arguments["min"] ?? "1") ?? 1
        do {
            let terms = try readers.reading { try $0.terms(startingWith: prefix, limit: completions) }
                .filter { $0.pages >= minimum }
            var members: [String: JSONValue] = [
                "@context": .string(Self.context),
                "id": .string(autocompleteURL + "?" + Self.queryString(["q": prefix])),
                "type": "TermPage",
                "items": .array(terms.map { .object(["value": .string($0.term), "total": .int($0.pages)]) }),
            ]
            let ignored = Self.unimplemented.filter { arguments[$0] != nil }
            if !ignored.isEmpty { members["ignored"] = .array(ignored.map { .string($0) }) }
            return .success(try JSONOutput.encode(JSONValue.object(members), pretty: false))
        } catch {
            return .failure(.init(status: 500, reason: "the index cannot be read: \(error)"))
        }
    }

    func response(query: String, page: Int, pages: Int, results: [SearchResult], ignored: [String]) throws -> [UInt8] {
        func pageURL(_ number: Int) -> String { serviceURL + "?" + Self.queryString(["q": query, "page": String(number)]) }
        func reference(_ number: Int) -> JSONValue { .object(["id": .string(pageURL(number)), "type": "AnnotationPage"]) }
        let id = pageURL(page)
        var items: [JSONValue] = []
        for result in results {
            let canvas = base + IIIFPresentation.folder + "/canvas/" + result.name
            for (number, hit) in result.hits.enumerated() {
                let box = hit.box
                items.append(.object([
                    "id": .string(id + "#" + result.name + "-" + String(number + 1)),
                    "type": "Annotation",
                    "motivation": "highlighting",
                    "body": .object(["type": "TextualBody", "value": .string(hit.text), "format": "text/plain"]),
                    "target": .string(canvas + "#xywh=\(box.x),\(box.y),\(box.width),\(box.height)"),
                ]))
            }
        }
        var members: [String: JSONValue] = [
            "@context": .string(Self.context),
            "id": .string(id),
            "type": "AnnotationPage",
            "partOf": .object([
                "id": .string(serviceURL + "?" + Self.queryString(["q": query])),
                "type": "AnnotationCollection",
                "first": reference(1),
                "last": reference(pages),
            ]),
            "items": .array(items),
        ]
        if page < pages { members["next"] = reference(page + 1) }
        if page > 1 { members["prev"] = reference(min(page - 1, pages)) }
        if !ignored.isEmpty { members["ignored"] = .array(ignored.map { .string($0) }) }
        return try JSONOutput.encode(JSONValue.object(members), pretty: false)
    }

    /// `name=value&…` sorted by name, each percent-encoded as a query's part.
    static func queryString(_ arguments: [String: String]) -> String {
        arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\(PageLinks.percentEncoded($0.value))" }.joined(separator: "&")
    }
}
