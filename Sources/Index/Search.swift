import Foundation
import GlossGeometry
import GlossReports

/// A page that matches a query, best first.
public struct SearchResult: Sendable, Equatable {
    /// A word the query matched on the page, where it is.
    public struct Hit: Sendable, Equatable {
        public var text: String
        public var box: PixelRect
    }

    public var source: String
    public var pageIndex: Int
    public var name: String
    public var htmlPath: String?
    /// FTS5's bm25: lower is better.
    public var score: Double
    /// The text around the best hits, with every matched term between `[` and `]`.
    public var snippet: String
    public var hits: [Hit]
}

/// A query FTS5 cannot read: the query, and SQLite's reason without its internals.
public struct QueryError: Error, Sendable, CustomStringConvertible {
    public var query: String
    public var reason: String
    public var description: String { "invalid query \"\(query)\": \(reason)" }
}

extension BatchIndex {
    /// Pages matching an FTS5 query (words, "phrases", prefix*, AND, OR, NOT, parentheses),
    /// ranked by bm25 and then in input order; with `minimumFaces`, only pages with that many.
    public func search(_ query: String, minimumFaces: Int = 0, limit: Int = 20) throws -> [SearchResult] {
        let hitStart = "\u{2}", hitEnd = "\u{3}"
        let statement = try database.prepare("""
            SELECT p.id, i.path, p.page_index, p.name, p.outputs, bm25(page_text),
                   snippet(page_text, 0, char(2), char(3), '…', 16), highlight(page_text, 0, char(2), char(3))
            FROM page_text JOIN pages p ON p.id = page_text.rowid JOIN inputs i ON i.id = p.input_id
            WHERE page_text MATCH ?1 AND (SELECT count(*) FROM faces f WHERE f.page_id = p.id) >= ?2
            ORDER BY bm25(page_text), i.position, p.page_index
            LIMIT ?3
            """, operation: "search")
        try statement.bind([.text(query), SQLValue(minimumFaces), SQLValue(max(0, limit))])
        var rows: [(id: Int, result: SearchResult, highlighted: String)] = []
        do {
            while try statement.step() {
                let outputs = (try? JSONDecoder().decode([String: String].self, from: Data(statement.text(4).utf8))) ?? [:]
                let snippet = statement.text(6).replacingOccurrences(of: hitStart, with: "[")
                    .replacingOccurrences(of: hitEnd, with: "]")
                rows.append((statement.int(0),
                             SearchResult(source: statement.text(1), pageIndex: statement.int(2), name: statement.text(3),
                                          htmlPath: outputs["html"], score: statement.double(5), snippet: snippet, hits: []),
                             statement.text(7)))
            }
        } catch let error as IndexError where Self.isQueryError(error) {
            throw QueryError(query: query, reason: Self.reason(error.message))
        }
        return try rows.map { row in
            var result = row.result
            result.hits = try hits(onPage: row.id, highlighted: row.highlighted, start: hitStart, end: hitEnd)
            return result
        }
    }

    /// The words under the marked ranges of `highlighted` (the page's indexed text with each
    /// matched token between `start` and `end`).
    private func hits(onPage page: Int, highlighted: String, start: String, end: String) throws -> [SearchResult.Hit] {
        var ranges: [Range<Int>] = []
        var offset = 0, opened: Int?
        for scalar in highlighted.unicodeScalars {
            if String(scalar) == start { opened = offset; continue }
            if String(scalar) == end, let from = opened { ranges.append(from..<offset); opened = nil; continue }
            offset += 1
        }
        guard !ranges.isEmpty else { return [] }
        let words = try database.prepare(
            "SELECT text, start, x, y, width, height FROM words WHERE page_id = ? ORDER BY position", operation: "search")
        try words.bind([SQLValue(page)])
        var hits: [SearchResult.Hit] = []
        while try words.step() {
            let text = words.text(0), from = words.int(1)
            let span = from..<(from + text.unicodeScalars.count)
            if ranges.contains(where: { $0.overlaps(span) }) {
                hits.append(SearchResult.Hit(text: text, box: PixelRect(x: words.int(2), y: words.int(3),
                                                                        width: words.int(4), height: words.int(5))))
            }
        }
        return hits
    }

    /// FTS5 reports a bad query as an ordinary SQL error: a syntax error, or an unknown column
    /// when a word is followed by a colon.
    private static func isQueryError(_ error: IndexError) -> Bool {
        error.message.hasPrefix("fts5:") || error.message.hasPrefix("no such column")
            || error.message.contains("unknown special query") || error.message.contains("malformed MATCH")
    }

    private static func reason(_ message: String) -> String {
        message.hasPrefix("fts5: ") ? String(message.dropFirst(6)) : message
    }
}
