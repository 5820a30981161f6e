import Foundation
import GlossContract
import GlossGeometry
import GlossHTTP
import GlossPipeline
import GlossServe
import Testing

/// The served corrections API on a real batch: `GET /api/status`, `GET /api/pages/ID` and
/// `POST /api/corrections` with its token, `If-Match` and every refusal, through the handler
/// `gloss serve` runs (the loopback server itself is tested by tests-iiif/test_serve.py).
@Suite(.serialized)
struct CorrectionRouteTests {
    static func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: ["host": "127.0.0.1:9"].merging(headers) { _, given in given }, body: body)
    }

    static func object(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.bytes)) as? [String: Any])
    }

    static func body(_ corrections: [Correction]) throws -> [UInt8] {
        try JSONOutput.encode(CorrectionFile(corrections: corrections), pretty: false)
    }

    @Test func aCorrectionIsAppliedOnlyWithTheTokenAndTheVersionItWasMadeOn() async throws {
        let batch = try CorrectionBatchTests.Batch(["text/sans.png"])
        let id = try batch.entry("text/sans.png").id
        let correctable = try await CorrectableBatch.open(batch.folder)
        let token = WriteToken.random()
        let server = try BatchServer(folder: batch.folder, publicURL: nil, token: token,
                                     writeRoutes: [CorrectionRoute(batch: correctable)])
        let auth = ["x-gloss-token": token.value]

        #expect(try Self.object(server.respond(to: Self.request("GET", "/api/status")))["writable"] as? Bool == true)
        let loaded = server.respond(to: Self.request("GET", "/api/pages/" + id))
        #expect(loaded.status == 200)
        let page = try Self.object(loaded)
        let version = try #require(page["version"] as? String)
        #expect(loaded.header("ETag") == "\"\(version)\"" && version.count == 16)
        let words = try #require((page["report"] as? [String: Any])?["words"] as? [[String: Any]])
        #expect(words.count > 5 && words[1]["text"] as? String == "quick", "the report is the page's JSON")
        #expect(server.respond(to: Self.request("GET", "/api/pages/nothing-here")).status == 404)

        let report = try batch.report(try batch.entry("text/sans.png"))
        let fix = try Correction.retype(1, to: "Quixotic", on: report, page: id, by: "Ana", at: CorrectionBatchTests.at)
        let post = { (headers: [String: String], corrections: [Correction]) throws -> HTTPResponse in
            server.respond(to: Self.request("POST", CorrectionRoute.routePath, headers: headers, body: try Self.body(corrections)))
        }
        #expect(try post([:], [fix]).status == 401, "no token")
        // One hex digit changed: the first, made a digit it is not.
        let wrong = (token.value.first == "0" ? "1" : "0") + token.value.dropFirst()
        #expect(try post(["x-gloss-token": wrong, "if-match": "\"\(version)\""], [fix]).status == 401, "a wrong token")
        #expect(try post(auth, [fix]).status == 428, "no If-Match: never a blind write")
        #expect(try post(auth.merging(["if-match": "\(version)"]) { $1 }, [fix]).status == 400, "an unquoted tag")
        let stale = try post(auth.merging(["if-match": "\"0123456789abcdef\""]) { $1 }, [fix])
        #expect(stale.status == 412)
        #expect(try Self.object(stale)["version"] as? String == version, "the refusal names the version to load")
        var elsewhere = fix
        elsewhere.page = "another-page"
        #expect(try post(auth.merging(["if-match": "\"\(version)\""]) { $1 }, [fix, elsewhere]).status == 400, "two pages")
        #expect(try batch.journal.isEmpty && (try batch.text(batch.entry("text/sans.png").outputs["txt"]!)).contains("quick"),
                "nothing refused was written")

        let applied = try post(auth.merging(["if-match": "W/\"\(version)\""]) { $1 }, [fix])
        #expect(applied.status == 200)
        let answer = try Self.object(applied)
        let newVersion = try #require(answer["version"] as? String)
        #expect(newVersion != version && applied.header("ETag") == "\"\(newVersion)\"")
        #expect((answer["rewritten"] as? [String])?.contains { $0.hasSuffix(".hocr") } == true)
        let entry = try batch.entry("text/sans.png")
        #expect(try batch.text(entry.outputs["hocr"]!).contains("Quixotic"))
        #expect(try batch.search("Quixotic").standardOutput.contains("Quixotic"), "the index finds the new word")
        #expect(try batch.search("quick").status == 1, "and no longer the old one")
        #expect(try batch.journal.count == 1)

        // A second tab still at the first version is refused, and its word gone is a conflict.
        #expect(try post(auth.merging(["if-match": "\"\(version)\""]) { $1 }, [fix]).status == 412)
        let gone = Correction(page: id, kind: .delete, word: 0,
                              old: [.init(text: "nowhere", box: PixelRect(x: 5, y: 5, width: 4, height: 4))], new: [],
                              by: "Ana", at: CorrectionBatchTests.at)
        let conflict = try post(auth.merging(["if-match": "\"\(newVersion)\""]) { $1 }, [gone])
        #expect(conflict.status == 409)
        #expect(String(decoding: conflict.bytes, as: UTF8.self).contains("nowhere"))
        #expect(server.respond(to: Self.request("POST", CorrectionRoute.routePath, headers: auth.merging(["if-match": "*"]) { $1 },
                                                body: Array("{\"corrections\": 3}".utf8))).status == 400)
        #expect(try batch.journal.count == 1)
    }

    @Test func aReadOnlyServerSaysSoAndHasNoCorrectionRoute() throws {
        let batch = try CorrectionBatchTests.Batch(["text/sans.png"])
        let server = try BatchServer(folder: batch.folder, publicURL: nil, token: nil)
        #expect(try Self.object(server.respond(to: Self.request("GET", "/api/status")))["writable"] as? Bool == false)
        #expect(server.respond(to: Self.request("GET", "/api/pages/" + (try batch.entry("text/sans.png").id))).status == 200)
        #expect(server.respond(to: Self.request("POST", CorrectionRoute.routePath, headers: ["if-match": "*"])).status == 405)
    }
}
