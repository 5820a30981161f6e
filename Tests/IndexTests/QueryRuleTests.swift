import Foundation
import GlossContract
@testable import GlossIndex
import Testing

/// What people type is searched as they mean it: plain words and phrases with their
/// punctuation, and FTS5's syntax only where a query uses it on purpose or `--fts` asks for it.
@Suite struct QueryRuleTests {
    /// The cases `tests-browser/search_conformance.py` gives the report's search too.
    struct Shared: Decodable {
        var cases: [[String]]
    }

    static let shared: Shared = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let data = try! Data(contentsOf: url.appendingPathComponent("tests-browser/query_rule.json"))
        return try! JSONDecoder().decode(Shared.self, from: data)
    }()

    @Test func aQueryIsReadAsTheBrowserReadsIt() throws {
        #expect(Self.shared.cases.count > 40)
        for pair in Self.shared.cases {
            #expect(try SearchQuery(pair[0]).text == pair[1], "\(pair[0])")
        }
    }

    @Test func theFTSSyntaxTakesAQueryAsWritten() throws {
        for query in ["harbour", "don't", "quick-", "(staff", "title:harbour", "^the"] {
            #expect(try SearchQuery(query, syntax: .fts).text == query)
        }
    }

    @Test(arguments: [
        ("don't", [String]()),
        ("engineers.", ["b.png"]),
        ("(staff", ["b.png"]),
        ("harbour)", ["a.png", "c.png"]),
        ("\"new engineers", ["b.png"]),
        ("new-engineers", ["b.png"]),
        ("engineers-new", []),
        ("title:harbour", []),
        ("master, harbour.", ["a.png"]),
        ("naïve: notes", ["d.png"]),
        ("engineer*", ["b.png", "d.png"]),
        ("staff OR naive", ["b.png", "d.png"]),
        ("*", []),
    ])
    func plainWordsWithPunctuationFindTheirPages(query: String, expected: [String]) throws {
        let scratch = try ScratchIndex(archive)
        #expect(Set(try scratch.index.search(query).map(\.source)) == Set(expected), "\(query)")
    }

    @Test func aPlainQueryRanksAsItsWordsDo() throws {
        let scratch = try ScratchIndex(archive)
        #expect(try scratch.index.search("harbour!") == scratch.index.search("harbour"))
        #expect(try scratch.index.search("\"harbour master\"") == scratch.index.search("harbour-master"))
    }

    @Test(arguments: ["harbour AND", "quick-brown OR fox", "NOT"])
    func aDeliberateQueryFTS5RefusesIsStillRefused(query: String) throws {
        let scratch = try ScratchIndex(archive)
        #expect(throws: QueryError.self) { try scratch.index.search(query) }
    }

    @Test(arguments: ["don't", "quick-", "(staff", "title:harbour"])
    func underTheFTSSyntaxPunctuationIsFTS5s(query: String) throws {
        let scratch = try ScratchIndex(archive)
        #expect { try scratch.index.search(query, syntax: .fts) } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.query == query
        }
    }
}
