import Foundation
import GlossContract
@testable import GlossIndex
import Testing

/// Queries that would make FTS5 work for minutes: repeats dropped, too many terms refused, and
/// a search that still runs out of time stopped with an error of its own.
@Suite struct QueryLimitTests {
    /// The cases `tests-browser/search_conformance.py` gives the report's search too.
    struct Shared: Decodable {
        var maximumTerms: Int
        var maximumDepth: Int
        var cases: [[String?]]
    }

    static let shared: Shared = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let data = try! Data(contentsOf: url.appendingPathComponent("tests-browser/query_limits.json"))
        return try! JSONDecoder().decode(Shared.self, from: data)
    }()

    @Test func repeatsAreDroppedAndTooManyTermsRefusedAsInTheBrowser() throws {
        #expect(BatchIndex.maximumQueryTerms == Self.shared.maximumTerms)
        #expect(SearchQuery.maximumDepth == Self.shared.maximumDepth)
        for pair in Self.shared.cases {
            let query = try #require(pair[0])
            if let expected = pair[1] {
                #expect(try SearchQuery(query, syntax: .fts).text == expected, "\(query)")
            } else {
                #expect(throws: QueryError.self, "\(query)") { try SearchQuery(query, syntax: .fts) }
            }
        }
    }

    @Test func aWordRepeatedFindsAndRanksAsTheWordAlone() throws {
        let scratch = try ScratchIndex(archive)
        let once = try scratch.index.search("harbour")
        #expect(try scratch.index.search(Array(repeating: "harbour", count: 500).joined(separator: " ")) == once)
        #expect(try scratch.index.search("\"new engineers\" staff \"new engineers\"")
            == scratch.index.search("\"new engineers\" staff"))
    }

    @Test func aQueryOfMoreTermsThanTheMaximumIsRefusedSayingWhy() throws {
        let scratch = try ScratchIndex(archive)
        let words = (1...BatchIndex.maximumQueryTerms + 1).map { "word\($0)" }
        #expect(try scratch.index.search(words.dropLast().joined(separator: " OR ")).isEmpty)
        let query = words.joined(separator: " OR ")
        #expect { try scratch.index.search(query) } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.query == query && error.reason.contains("65 terms") && error.reason.contains("at most 64")
                && error.description.count < 200
        }
    }

    @Test(arguments: [33, 100, 10_000])
    func parenthesesNestedPastTheLimitAreRefusedAsInTheBrowser(depth: Int) throws {
        let scratch = try ScratchIndex(archive)
        func nested(_ depth: Int) -> String {
            String(repeating: "(", count: depth) + "harbour OR staff" + String(repeating: ")", count: depth)
        }
        #expect(try !scratch.index.search(nested(SearchQuery.maximumDepth)).isEmpty, "FTS5 takes the deepest allowed")
        let query = nested(depth)
        #expect { try scratch.index.search(query) } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.reason == "it nests parentheses \(depth) deep; at most 32 are allowed"
        }
    }

    @Test func aSearchPastItsTimeLimitIsStoppedWithAnErrorOfItsOwn() throws {
        // Enough pages that ranking them takes SQLite more steps than it runs between clock readings.
        let pages = (0..<300).map { page("p\($0).png", ["the harbour master number \($0)"]) }
        let scratch = try ScratchIndex(pages)
        #expect { try scratch.index.search("harbour", timeLimit: .zero) } throws: { error in
            guard let error = error as? SearchTimeError else { return false }
            return error.path == scratch.index.path && error.query == "harbour" && error.limit == .zero
                && error.description.contains("took longer than its limit of 0 s")
        }
        #expect(try scratch.index.search("harbour", limit: 500).count == 300, "the limit ends with the search")
    }
}
