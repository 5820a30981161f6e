import Foundation
import GlossContract
import GlossGeometry
import GlossHTTP
import GlossIndex
import GlossPipeline
@testable import GlossServe
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A batch folder of synthetic pages in a fresh temporary folder, removed with this value.
final class SyntheticBatch {
    let folder: String
    /// Each page's words, by page name.
    var words: [String: [PageReport.Word]] = [:]

    /// `pages` pages of the words `text` (the same on every page), each word 100 px apart.
    init(pages: Int, text: [String]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let index = try BatchIndex(folder: folder, create: true)
        for number in 0..<pages {
            var report = PageReport(source: "scans/page-\(number).png", pageIndex: 0, status: .ok, error: "")
            report.error = nil
            report.width = 1200
            report.height = 1600
            report.words = text.enumerated().map { position, word in
                PageReport.Word(text: word, confidence: 90,
                                box: PixelRect(x: 50 + position * 100, y: 70 + number, width: 80, height: 30), line: 0)
            }
            words["page-\(number)"] = report.words
            try index.record(IndexedPage(name: "page-\(number)", position: number, inputHash: nil, settingsHash: nil,
                                         outputs: [:], report: report))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }
}

/// A write route that answers what it was sent: the stand-in for the corrections API.
struct EchoRoute: WriteRoute {
    var path = "/api/echo"
    var methods: Set<String> = ["POST"]
    func respond(to request: HTTPRequest, in folder: String) -> HTTPResponse {
        HTTPResponse(status: 200, body: .bytes(request.body))
    }
}

@Suite struct BatchFilesTests {
    @Test func pathsOutOfTheBatchAreRefusedWithAReason() throws {
        let batch = try SyntheticBatch(pages: 1, text: ["a"])
        let outside = batch.folder + "-outside.txt"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: batch.folder + "/link.txt", withDestinationPath: outside)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: batch.folder + "/inside.txt"))
        try FileManager.default.createSymbolicLink(atPath: batch.folder + "/alias.txt", withDestinationPath: "inside.txt")
        let files = try BatchFiles(folder: batch.folder)

        #expect(try files.resolve("/inside.txt").get() == files.root + "/inside.txt")
        #expect(try files.resolve("/alias.txt").get() == files.root + "/inside.txt", "a link inside the batch is followed")
        for path in ["/../etc/passwd", "/a/../../x", "//etc/passwd", "/./inside.txt"] {
            guard case .failure(let refusal) = files.resolve(path) else { Issue.record("\(path) was served"); continue }
            #expect(refusal.status == 403 && !refusal.reason.isEmpty, "\(path)")
        }
        guard case .failure(let link) = files.resolve("/link.txt") else { Issue.record("a link out was served"); return }
        #expect(link.status == 403 && link.reason.contains("symbolic link"))
        guard case .failure(let missing) = files.resolve("/nothing.txt") else { Issue.record("a missing file was served"); return }
        #expect(missing.status == 404)
        // A named pipe someone left there is refused at once: opened blocking, it would wait for
        // a writer and hold the thread (and this test) for good.
        #expect(mkfifo(batch.folder + "/pipe", 0o644) == 0)
        #expect(files.response(for: "/pipe").status == 404)
    }
}

/// The served IIIF documents are kept for the last few URLs the server was named by: two
/// viewers naming it differently do not rebuild them in turn on every request.
@Suite struct IIIFDocumentsTests {
    @Test func documentsUnderAnotherURLLeaveTheFirstURLsKept() throws {
        let batch = try SyntheticBatch(pages: 1, text: ["a"])
        var report = PageReport(source: "scans/page-0.png", pageIndex: 0, status: .ok, error: "")
        report.error = nil
        (report.width, report.height) = (1200, 1600)
        func writePage() throws {
            try FileManager.default.createDirectory(atPath: batch.folder + "/pages", withIntermediateDirectories: true)
            try Data(try JSONOutput.encode(report)).write(to: URL(fileURLWithPath: batch.folder + "/pages/page-0.json"))
        }
        try writePage()
        let settings = String(decoding: try JSONOutput.encode(AnnotationSettings()), as: UTF8.self)
        let manifest = #"{"generator": "Gloss", "settings": \#(settings), "pages": [{"source": "scans/page-0.png", "pageIndex": 0,"#
            + #" "id": "page-0", "status": "ok", "words": 0, "faces": 0, "outputs": {"json": "pages/page-0.json"}}]}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: batch.folder + "/gloss.json"))
        let documents = IIIFDocuments(folder: batch.folder)
        func width(under base: String) throws -> Int? {
            let bytes = try #require(try documents.document("iiif/manifest.json", base: base, search: ("s", "a")).get())
            let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            return ((json["items"] as? [[String: Any]])?.first)?["width"] as? Int
        }
        #expect(try width(under: "http://localhost:8000/") == 1200)
        // The page changes without gloss.json changing: what is kept is served until it does.
        report.width = 1300
        try writePage()
        #expect(try width(under: "http://127.0.0.1:8000/") == 1300, "built for the new URL")
        #expect(try width(under: "http://localhost:8000/") == 1200, "the first URL's documents were kept")
        // gloss.json changed (a run, a merge): everything is built again.
        try Data((manifest + " ").utf8).write(to: URL(fileURLWithPath: batch.folder + "/gloss.json"))
        #expect(try width(under: "http://localhost:8000/") == 1300)
    }
}

@Suite struct BatchServerTests {
    static func get(_ server: BatchServer, _ path: String, query: [String: String] = [:]) -> HTTPResponse {
        server.respond(to: HTTPRequest(method: "GET", path: path, query: query, headers: ["host": "127.0.0.1:9"]))
    }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.bytes)) as? [String: Any])
    }

    @Test func aReadOnlyServerHasNoWriteRouteEvenWithOneRegistered() throws {
        let batch = try SyntheticBatch(pages: 1, text: ["a"])
        let server = try BatchServer(folder: batch.folder, publicURL: nil, token: nil, writeRoutes: [EchoRoute()])
        #expect(server.writeRoutes.isEmpty)
        let response = server.respond(to: HTTPRequest(method: "POST", path: "/api/echo", query: ["token": "x"], body: [1]))
        #expect(response.status == 405 && response.headers.contains { $0 == ("Allow", "GET, HEAD, OPTIONS") })
        #expect(String(decoding: response.bytes, as: UTF8.self).contains("read-only"))
    }

    @Test func aWriteNeedsTheToken() throws {
        let batch = try SyntheticBatch(pages: 1, text: ["a"])
        let token = WriteToken.random()
        #expect(token.value.count == 32 && token != WriteToken.random())
        let server = try BatchServer(folder: batch.folder, publicURL: nil, token: token, writeRoutes: [EchoRoute()])
        let without = server.respond(to: HTTPRequest(method: "POST", path: "/api/echo", body: [1, 2]))
        #expect(without.status == 401 && without.headers.contains { $0.name == "WWW-Authenticate" && $0.value.hasPrefix("Bearer") })
        let wrong = server.respond(to: HTTPRequest(method: "POST", path: "/api/echo", headers: ["authorization": "Bearer 00"]))
        #expect(wrong.status == 401)
        let with = server.respond(to: HTTPRequest(method: "POST", path: "/api/echo",
                                                  headers: ["authorization": "Bearer " + token.value], body: [1, 2]))
        #expect(with.status == 200 && with.bytes == [1, 2])
        let other = server.respond(to: HTTPRequest(method: "PUT", path: "/api/echo", headers: ["x-gloss-token": token.value]))
        #expect(other.status == 405 && other.headers.contains { $0 == ("Allow", "POST") }, "the route takes POST only")
        #expect(with.header("Access-Control-Allow-Origin") == nil, "no CORS on writes")
    }

    @Test func searchHitsAreTheWordsBoxesOnTheirCanvasesAndPage() throws {
        let batch = try SyntheticBatch(pages: 3, text: ["harbour", "lights", "harbour"])
        let server = try BatchServer(folder: batch.folder, publicURL: "https://archive.example/b", token: nil)
        var search = ContentSearch(folder: server.files.root, base: "https://archive.example/b/")
        search.pagesPerResponse = 2
        let first = try Self.json(HTTPResponse(status: 200, body: .bytes(try search.search(["q": "harbour"]).get())))
        let items = try #require(first["items"] as? [[String: Any]])
        #expect(items.count == 4, "two hits on each of the first two pages")
        var expected = Set<String>()
        for (name, words) in batch.words {
            for word in words where word.text == "harbour" {
                let box = word.box
                expected.insert("https://archive.example/b/iiif/canvas/\(name)#xywh=\(box.x),\(box.y),\(box.width),\(box.height)")
            }
        }
        let targets = Set(items.compactMap { $0["target"] as? String })
        #expect(targets.count == 4 && targets.isSubset(of: expected), "\(targets)")
        #expect(items.allSatisfy { $0["motivation"] as? String == "highlighting" })

        let part = try #require(first["partOf"] as? [String: Any])
        let last = try #require((part["last"] as? [String: Any])?["id"] as? String)
        #expect(last.hasSuffix("page=2&q=harbour"))
        let next = try #require((first["next"] as? [String: Any])?["id"] as? String)
        #expect(next == last && first["prev"] == nil)

        let second = try Self.json(HTTPResponse(status: 200, body: .bytes(try search.search(["q": "harbour", "page": "2"]).get())))
        let rest = Set((second["items"] as? [[String: Any]] ?? []).compactMap { $0["target"] as? String })
        #expect(rest.count == 2 && rest.isDisjoint(with: targets) && targets.union(rest) == expected, "every hit once")
        #expect(second["next"] == nil && (second["prev"] as? [String: Any])?["id"] as? String == first["id"] as? String)

        guard case .failure(let refusal) = search.search(["q": "harbour", "page": "0"]) else { Issue.record("page 0"); return }
        #expect(refusal.status == 400)
        // Pages whose first result's place overflows (a request any web page can make) are
        // refused, not a crash of the server.
        for far in ["\(Int.max / search.pagesPerResponse + 2)", "\(Int.max)", "\(Int.min)"] {
            guard case .failure(let refused) = search.search(["q": "harbour", "page": far]) else { Issue.record("page \(far)"); return }
            #expect(refused.status == 400)
        }
        // One far past the last result, short of that, has no hits.
        let past = try Self.json(HTTPResponse(status: 200, body: .bytes(try search.search(["q": "harbour", "page": "1000000"]).get())))
        #expect((past["items"] as? [Any])?.isEmpty == true)
        guard case .failure(let empty) = search.search([:]) else { Issue.record("no q"); return }
        #expect(empty.status == 400)
    }

    @Test func searchListsPagesInBatchOrderNotByRank() throws {
        // "late" is recorded first and says harbour most, so bm25 and rowid both put it first;
        // the batch's order (position) puts "early" first, as its canvas comes first.
        let batch = try SyntheticBatch(pages: 0, text: [])
        let index = try BatchIndex(folder: batch.folder, create: false)
        for (name, position, text) in [("late", 5, ["harbour", "harbour", "harbour"]),
                                       ("early", 0, ["harbour", "lights", "sea", "wind", "rain", "tide"])] {
            var report = PageReport(source: "scans/\(name).png", pageIndex: 0, status: .ok, error: "")
            report.error = nil
            report.width = 1200
            report.height = 1600
            report.words = text.enumerated().map { offset, word in
                PageReport.Word(text: word, confidence: 90, box: PixelRect(x: 50 + offset * 100, y: 70, width: 80, height: 30), line: 0)
            }
            try index.record(IndexedPage(name: name, position: position, inputHash: nil, settingsHash: nil,
                                         outputs: [:], report: report))
        }
        #expect(try index.search("harbour").map(\.name) == ["late", "early"], "bm25 ranks the denser page first")
        #expect(try index.search("harbour", order: .pageOrder).map(\.name) == ["early", "late"])
        let search = ContentSearch(folder: batch.folder, base: "https://archive.example/b/")
        let page = try Self.json(HTTPResponse(status: 200, body: .bytes(try search.search(["q": "harbour"]).get())))
        let targets = (page["items"] as? [[String: Any]] ?? []).compactMap { $0["target"] as? String }
        #expect(targets.count == 4 && targets.first?.contains("/canvas/early#") == true, "\(targets)")
    }

    @Test func searchesShareConnectionsYetSeeTheIndexAsItIsNow() throws {
        let batch = try SyntheticBatch(pages: 2, text: ["harbour"])
        let server = try BatchServer(folder: batch.folder, publicURL: "https://archive.example/b", token: nil)
        func hits(_ word: String) throws -> Int {
            let page = try Self.json(Self.get(server, "/iiif/search", query: ["q": word]))
            return (page["items"] as? [[String: Any]])?.count ?? -1
        }
        #expect(try hits("harbour") == 2)
        #expect(try hits("lights") == 0)

        // A page recorded while the server runs is found by the next search.
        var report = PageReport(source: "scans/late.png", pageIndex: 0, status: .ok, error: "")
        report.error = nil
        report.width = 1200
        report.height = 1600
        report.words = [PageReport.Word(text: "lights", confidence: 90, box: PixelRect(x: 5, y: 5, width: 80, height: 30), line: 0)]
        try BatchIndex(folder: batch.folder, create: false)
            .record(IndexedPage(name: "late", position: 9, inputHash: nil, settingsHash: nil, outputs: [:], report: report))
        #expect(try hits("lights") == 1)

        // An index rebuilt beside the old one and renamed over it is read, not the old file.
        let other = try SyntheticBatch(pages: 3, text: ["beacon"])
        let path = batch.folder + "/" + BatchIndex.fileName
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(rename(other.folder + "/" + BatchIndex.fileName, path) == 0)
        #expect(try hits("beacon") == 3)
        #expect(try hits("harbour") == 0)
    }

    @Test func autocompleteListsTermsWithThePagesHoldingThem() throws {
        let batch = try SyntheticBatch(pages: 3, text: ["Harbour", "harbours", "lights"])
        let response = Self.get(try BatchServer(folder: batch.folder, publicURL: nil, token: nil), "/iiif/autocomplete",
                                query: ["q": "HAR"])
        let page = try Self.json(response)
        #expect(page["type"] as? String == "TermPage")
        let items = try #require(page["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["value"] as? String } == ["harbour", "harbours"])
        #expect(items.allSatisfy { $0["total"] as? Int == 3 })
        #expect(response.header("Access-Control-Allow-Origin") == "*")
    }
}

@Suite struct HTTPServerTests {
    @Test func aServerOnAFreePortOfLoopbackAnswersAndStopsWhenReleased() async throws {
        let batch = try SyntheticBatch(pages: 1, text: ["a"])
        try Data("hello".utf8).write(to: URL(fileURLWithPath: batch.folder + "/hello.txt"))
        var options = HTTPServerOptions()
        options.port = 0
        #expect(options.address == "127.0.0.1", "loopback unless told otherwise")
        var server: HTTPServer? = try HTTPServer(options: options, handler: try BatchServer(folder: batch.folder, publicURL: nil, token: nil))
        let port = try #require(server?.port)
        #expect(port > 0)
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/hello.txt")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200 && String(decoding: data, as: UTF8.self) == "hello")
        #expect(http.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "*")
        server = nil
        await #expect(throws: (any Error).self) {
            _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/hello.txt")!)
        }
    }

    @Test func anAddressThatIsNotNumericIsRefused() throws {
        var options = HTTPServerOptions()
        options.address = "localhost"
        options.port = 0
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(options: options, handler: EchoHandler())
        }
    }
}

struct EchoHandler: HTTPHandler {
    func respond(to request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 200) }
}
