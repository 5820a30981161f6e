import Foundation
import GlossGeometry
import GlossContract
import GlossIndex
import GlossPipeline
import GlossReports

/// `gloss search` and `gloss merge`: the batch's database from the command line.
extension GlossCommand {
    /// The most pages `search` lists unless `--limit` says otherwise.
    static let defaultSearchLimit = 20

    static let searchOptions: [OptionSpec] = [
        .flag("json", "print the results as JSON, for scripts"),
        .flag("fts", "read QUERY as FTS5 syntax as written, even when it looks like plain words"),
        .option("faces", value: "N", "only pages with at least N faces (with no QUERY: list those pages)"),
        .option("limit", short: "n", value: "N", "at most N pages", default: String(defaultSearchLimit)),
        .option("time-limit", value: "SECONDS", "stop a search still running after this long",
                default: secondsText(BatchIndex.defaultSearchTimeLimit)),
        helpOption,
    ]

    static let searchCommand = CommandSpec(
        usage: "gloss search DIR QUERY... [options]",
        summary: """
            Searches the text of a batch that 'gloss annotate' wrote into DIR. QUERY is words, all of
            which must occur, and "quoted phrases", punctuation included (don't, e-mail, 12:30 each
            find the phrase of their words); the words after DIR are one query, joined by spaces as
            if typed into the report's search box, so quotes are needed only for a phrase. It is read
            as an FTS5 query only when it uses FTS5's syntax on purpose: AND, OR or NOT in capitals,
            NEAR(, a * ending a word or a "phrase"* (prefix), or a ^ starting one (first word); then
            parentheses group, and words holding punctuation must be quoted. --fts reads every QUERY
            as FTS5 syntax (also + and column filters). Case and accents do not matter; a word
            repeated next to itself counts once, and a query may look for at most
            \(BatchIndex.maximumQueryTerms) terms. Pages are ranked by bm25. Exit status: 0 when
            something matched, 1 when nothing did, 2 when the search could not be made (a wrong
            command line or query, a missing or damaged database, the time limit).
            """,
        options: searchOptions)

    /// The query the words after DIR make: joined by single spaces, as the report's search box
    /// reads what is typed into it (the words between spaces); nil when there are none.
    static func searchQuery(_ words: some Collection<String>) -> String? {
        words.isEmpty ? nil : words.joined(separator: " ")
    }

    static func search(_ words: ArraySlice<String>) async throws -> Int32 {
        let arguments = try searchCommand.parse(words)
        if arguments.has("help") {
            print(searchCommand.help, terminator: "")
            return 0
        }
        let minimumFaces = try arguments.integer("faces", in: 0...100_000)
        let limit = try arguments.integer("limit", in: 1...1_000_000) ?? defaultSearchLimit
        let timeLimit = try arguments.seconds("time-limit") ?? BatchIndex.defaultSearchTimeLimit
        guard let folder = arguments.operands.first else { throw UsageError("search needs DIR") }
        let query = searchQuery(arguments.operands.dropFirst())
        guard query != nil || minimumFaces != nil else { throw UsageError("search needs a QUERY, or --faces N") }

        guard FileManager.default.fileExists(atPath: folder) else { throw UsageError("\(folder): no such batch folder") }
        let index = try BatchIndex.searching(folder)
        var results: [SearchOutput.Result]
        if let query {
            results = try index.search(query, syntax: arguments.has("fts") ? .fts : .automatic,
                                       minimumFaces: minimumFaces ?? 0, limit: limit, timeLimit: timeLimit)
                .map(SearchOutput.Result.init)
        } else {
            results = try index.pages(withAtLeastFaces: minimumFaces ?? 0).prefix(limit).map(SearchOutput.Result.init)
        }
        results = SearchOutput.ranked(results, in: folder)
        if arguments.has("json") {
            let output = SearchOutput(query: query, results: results)
            StandardStreams.writeOutput(try JSONOutput.encode(output) + [0x0A])
        } else if results.isEmpty {
            // On stderr, so that a script reading the results still reads none.
            let faces = minimumFaces.map { "at least " + BatchSummary.count($0, "face") }
            printError("gloss: " + (query.map { "no page matches '\($0)'" + (faces.map { " with " + $0 } ?? "") }
                                    ?? "no page has " + (faces ?? "")))
        } else {
            StandardStreams.writeOutput(Array(results.map(\.text).joined().utf8))
        }
        return results.isEmpty ? 1 : 0
    }

    static let mergeOptions: [OptionSpec] = [
        .option("output", short: "o", value: "DIR", "the batch to merge into (required; created if missing)"),
        .flag("wait", "when another gloss run is writing DIR, wait for it rather than stop"),
        .flag("quiet", short: "q", "print only errors"),
        helpOption,
    ]

    static let mergeCommand = CommandSpec(
        usage: "gloss merge SHARD... -o DIR",
        summary: """
            Merges the outputs of 'gloss annotate --shard K/N' runs into one batch in DIR: pages, index
            database, manifest and report. Merging a shard again changes nothing.
            """,
        options: mergeOptions)

    static func merge(_ words: ArraySlice<String>) async throws -> Int32 {
        let arguments = try mergeCommand.parse(words)
        if arguments.has("help") {
            print(mergeCommand.help, terminator: "")
            return 0
        }
        guard let output = arguments.value("output") else { throw UsageError("merge needs -o DIR") }
        guard !arguments.operands.isEmpty else { throw UsageError("merge needs at least one SHARD folder") }
        let manifest = try await BatchMerge.merge(arguments.operands, into: output, waiting: arguments.has("wait"))
        if !arguments.has("quiet") {
            printError("gloss: \(BatchSummary.count(manifest.pages.count, "page")) from "
                       + "\(BatchSummary.count(arguments.operands.count, "shard")), "
                       + "\(manifest.failedCount) not read; report: \(output)/index.html")
        }
        // As annotate's: 1 when a page of the merged batch was not read.
        return manifest.failedCount > 0 ? 1 : 0
    }
}

/// What `gloss search --json` prints.
struct SearchOutput: Encodable {
    struct Hit: Encodable {
        var text: String
        var box: PixelRect
    }

    struct Result: Encodable {
        /// From 1, best first.
        var rank = 0
        /// The page's HTML as a path from where `gloss search` ran (the batch folder joined
        /// on), to open; nil when the batch wrote no HTML.
        var file: String?
        var source: String
        /// From 1, as people count pages.
        var page: Int
        var id: String
        var html: String?
        var score: Double?
        var snippet: String?
        var hits: [Hit]?
        var faces: Int?

        init(_ result: SearchResult) {
            source = result.source
            page = result.pageIndex + 1
            id = result.name
            html = result.htmlPath
            score = result.score
            snippet = result.snippet
            hits = result.hits.map { Hit(text: $0.text, box: $0.box) }
        }

        init(_ page: IndexedPageSummary) {
            source = page.source
            self.page = page.pageIndex + 1
            id = page.name
            html = page.outputs["html"]
            faces = page.faceCount
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rank, forKey: .rank)
            if let file { try container.encode(file, forKey: .file) } else { try container.encodeNil(forKey: .file) }
            try container.encode(source, forKey: .source)
            try container.encode(page, forKey: .page)
            try container.encode(id, forKey: .id)
            // Scripts can rely on `html` being present, null when the batch wrote no HTML.
            if let html { try container.encode(html, forKey: .html) } else { try container.encodeNil(forKey: .html) }
            try container.encodeIfPresent(score, forKey: .score)
            try container.encodeIfPresent(snippet, forKey: .snippet)
            try container.encodeIfPresent(hits, forKey: .hits)
            try container.encodeIfPresent(faces, forKey: .faces)
        }

        private enum CodingKeys: String, CodingKey { case rank, file, source, page, id, html, score, snippet, hits, faces }

        /// A few lines a page for people: the rank and the file to open, with the page it shows;
        /// then the snippet (or the face count) and where the words are.
        var text: String {
            var head = "\(rank). " + (file.map { "\($0)  (\(source), page \(page))" } ?? "\(source), page \(page)")
            if let faces { head += "  \(faces) \(faces == 1 ? "face" : "faces")" }
            var lines = [head]
            if let snippet { lines.append("    " + snippet.replacingOccurrences(of: "\n", with: " ")) }
            if let hits, !hits.isEmpty {
                lines.append("    at " + hits.prefix(8).map { "\($0.text) \($0.box.x),\($0.box.y) \($0.box.width)x\($0.box.height)" }
                    .joined(separator: "; ") + (hits.count > 8 ? "; and \(hits.count - 8) more" : ""))
            }
            // Each line is escaped whole: a source's name or a word cannot start a line of its own.
            return lines.map { TerminalText.escaping($0) + "\n" }.joined()
        }
    }

    var query: String?
    var results: [Result]

    /// `results` in their order, numbered from 1, each with its page file under `folder`.
    static func ranked(_ results: [Result], in folder: String) -> [Result] {
        results.enumerated().map { position, result in
            var ranked = result
            ranked.rank = position + 1
            ranked.file = result.html.map { (folder as NSString).appendingPathComponent($0) }
            return ranked
        }
    }
}
