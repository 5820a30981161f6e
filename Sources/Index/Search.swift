import Foundation
import GlossGeometry
import GlossContract

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

/// A query FTS5 cannot read, or one that looks for too many terms: the query, and the reason
/// (SQLite's without its internals).
public struct QueryError: Error, Sendable, CustomStringConvertible {
    public var query: String
    public var reason: String
    public var description: String { "invalid query \"\(abbreviated(query))\": \(reason)" }
}

/// A search stopped because it ran longer than its time limit.
public struct SearchTimeError: Error, Sendable, CustomStringConvertible {
    /// The database searched.
    public var path: String
    public var query: String
    public var limit: Duration
    public var description: String {
        "\(path): the search for \"\(abbreviated(query))\" took longer than its limit of "
            + "\(DecimalText.format(limit.secondsValue, maximumFractionDigits: 3)) s and was stopped"
    }
}

/// A query short enough for one line of an error message.
private func abbreviated(_ query: String) -> String {
    query.count <= 80 ? query : String(query.prefix(80)) + "…"
}

/// How a search orders the pages that match.
public enum SearchOrder: Sendable, Equatable {
    /// Best first by FTS5's bm25, ties in input order: what a reader typing a query wants
    /// (`gloss search`, the report's search box). bm25 is computed for every matching page
    /// before the first is known, so a word on many pages costs that many scores.
    case relevance
    /// In input order (the batch's canvases in the manifest), as IIIF Content Search lists
    /// hits: no score is computed, so a common word costs a sort of page numbers only.
    case pageOrder
}

extension BatchIndex {
    /// The most terms a query may look for (see `SearchQuery`): beyond it a query is refused.
    public static let maximumQueryTerms = SearchQuery.maximumTerms

    /// How long a search may run before it is stopped: over 250 times the slowest query of a
    /// 10,000-page batch (docs/search.md), so only a pathological query meets it.
    public static let defaultSearchTimeLimit = Duration.seconds(10)

    /// Pages matching a query, ranked by bm25 and then in input order; with `minimumFaces`, only
    /// pages with that many. The query is words and "phrases", punctuation and all, or FTS5's
    /// syntax (prefix*, AND, OR, NOT, NEAR, parentheses) when it uses it or `syntax` is `.fts`
    /// (see `QuerySyntax`).
    ///
    /// A term repeated next to itself counts once, and a query of more than `maximumQueryTerms`
    /// terms is a `QueryError`; a search still running after `timeLimit` is a `SearchTimeError`.
    /// `offset` skips that many pages of the ranking first, for a caller that pages through it.
    /// With `order` `.pageOrder` the pages come in input order and `score` is 0; without
    /// `snippets` each result's `snippet` is empty (its hits are found all the same).
    public func search(_ query: String, syntax: QuerySyntax = .automatic, minimumFaces: Int = 0, limit: Int = 20,
                       offset: Int = 0, order: SearchOrder = .relevance, snippets: Bool = true,
                       timeLimit: Duration = defaultSearchTimeLimit) throws -> [SearchResult] {
        let limited = try SearchQuery(query, syntax: syntax)
        do {
            return try database.withTimeLimit(timeLimit) {
                try search(original: query, fts: limited.text, minimumFaces: minimumFaces, limit: limit, offset: offset,
                           order: order, snippets: snippets)
            }
        } catch let error as IndexError where error.isInterruption {
            throw SearchTimeError(path: path, query: query, limit: timeLimit)
        }
    }

    /// How many pages match `query`, read as `search` reads it: for paging through its results.
    public func matchingPageCount(_ query: String, syntax: QuerySyntax = .automatic,
                                  timeLimit: Duration = defaultSearchTimeLimit) throws -> Int {
        let limited = try SearchQuery(query, syntax: syntax)
        do {
            return try database.withTimeLimit(timeLimit) {
                let count = try database.prepare("SELECT count(*) FROM page_text WHERE page_text MATCH ?1", operation: "search")
                try count.bind([.text(limited.text)])
                do {
                    return try count.step() ? count.int(0) : 0
                } catch let error as IndexError where error.isStatementError {
                    throw QueryError(query: query, reason: Self.reason(error.message))
                }
            }
        } catch let error as IndexError where error.isInterruption {
            throw SearchTimeError(path: path, query: query, limit: timeLimit)
        }
    }

    /// The indexed terms that start with `prefix` (folded as the index folds text: case and
    /// accents do not matter), in order, each with the number of pages holding it: what a
    /// search box completes.
    public func terms(startingWith prefix: String, limit: Int = 10) throws -> [(term: String, pages: Int)] {
        let folded = prefix.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        guard !folded.isEmpty else { return [] }
        // The 'row' view of the vocabulary (a term, its pages), made in this connection's own
        // temporary schema: the batch's file is not written.
        try database.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.page_rows USING fts5vocab(main, page_text, 'row')",
                             operation: "complete a term")
        let statement = try database.prepare(
            "SELECT term, doc FROM temp.page_rows WHERE term >= ?1 AND term < ?1 || char(1114111) ORDER BY term LIMIT ?2",
            operation: "complete a term")
        try statement.bind([.text(folded), SQLValue(max(0, limit))])
        var found: [(term: String, pages: Int)] = []
        while try statement.step() { found.append((statement.text(0), statement.int(1))) }
        return found
    }

    private func search(original query: String, fts: String, minimumFaces: Int, limit: Int, offset: Int,
                        order: SearchOrder, snippets: Bool) throws -> [SearchResult] {
        // Rank first, then make snippets for the pages shown only: a word on every page of a
        // large batch would otherwise have every page's snippet made and thrown away.
        let faces = minimumFaces > 0 ? "AND (SELECT count(*) FROM faces f WHERE f.page_id = p.id) >= \(minimumFaces)" : ""
        let (score, sort) = switch order {
        case .relevance: ("bm25(page_text)", "score, i.position, p.page_index")
        case .pageOrder: ("0.0", "i.position, p.page_index")
        }
        let ranking = try database.prepare("""
            SELECT p.id, i.path, p.page_index, p.name, p.outputs, \(score) AS score
            FROM page_text JOIN pages p ON p.id = page_text.rowid JOIN inputs i ON i.id = p.input_id
            WHERE page_text MATCH ?1 \(faces)
            ORDER BY \(sort)
            LIMIT ?2 OFFSET ?3
            """, operation: "search")
        try ranking.bind([.text(fts), SQLValue(max(0, limit)), SQLValue(max(0, offset))])
        var ranked: [(id: Int, result: SearchResult)] = []
        do {
            while try ranking.step() {
                let outputs = (try? JSONDecoder().decode([String: String].self, from: Data(ranking.text(4).utf8))) ?? [:]
                ranked.append((ranking.int(0),
                               SearchResult(source: ranking.text(1), pageIndex: ranking.int(2), name: ranking.text(3),
                                            htmlPath: outputs["html"], score: ranking.double(5), snippet: "", hits: [])))
            }
        } catch let error as IndexError where error.isStatementError {
            // FTS5 reports a bad query as a plain SQL error when the statement runs (it was
            // prepared, so it is the query): a syntax error, an unterminated string, an unknown
            // column when a word is followed by a colon.
            throw QueryError(query: query, reason: Self.reason(error.message))
        }
        let hitStart = "\u{2}", hitEnd = "\u{3}"
        let marking = try database.prepare("""
            SELECT \(snippets ? "snippet(page_text, 0, char(2), char(3), '…', 16)" : "''"), highlight(page_text, 0, char(2), char(3))
            FROM page_text WHERE page_text MATCH ?1 AND rowid = ?2
            """, operation: "search")
        let words = try database.prepare(
            "SELECT text, start, x, y, width, height FROM words WHERE page_id = ? ORDER BY position", operation: "search")
        return try ranked.map { page in
            var result = page.result
            try marking.bind([.text(fts), SQLValue(page.id)])
            if try marking.step() {
                result.snippet = marking.text(0).replacingOccurrences(of: hitStart, with: "[")
                    .replacingOccurrences(of: hitEnd, with: "]")
                result.hits = try hits(onPage: page.id, words: words, highlighted: marking.text(1), start: hitStart, end: hitEnd)
            }
            return result
        }
    }

    /// The words under the marked ranges of `highlighted` (the page's indexed text with each
    /// matched token between `start` and `end`).
    private func hits(
        onPage page: Int, words: Statement, highlighted: String, start: String, end: String
    ) throws -> [SearchResult.Hit] {
        var ranges: [Range<Int>] = []
        var offset = 0, opened: Int?
        let start = start.unicodeScalars.first, end = end.unicodeScalars.first
        for scalar in highlighted.unicodeScalars {
            if scalar == start { opened = offset; continue }
            if scalar == end, let from = opened { ranges.append(from..<offset); opened = nil; continue }
            offset += 1
        }
        guard !ranges.isEmpty else { return [] }
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

    private static func reason(_ message: String) -> String {
        message.hasPrefix("fts5: ") ? String(message.dropFirst(6)) : message
    }
}
