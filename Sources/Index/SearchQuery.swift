/// A query as FTS5 is given it: repeats dropped, and refused when it holds too many terms.
///
/// FTS5's `snippet()` compares every hit of every phrase with every other, so its time grows
/// with the square of the number of phrases: 2,000 copies of one word took 2.6 s, 20,000 several
/// minutes. A phrase repeated among the phrases next to it (`the the the`, FTS5's implicit AND)
/// is the same condition again, so it is dropped; what remains may name at most `maximumTerms`
/// phrases, or the query is refused, since dropping part of a boolean query would silently
/// change what it finds. `templates/index.js` applies the same rules (its `limitQuery`), so the
/// report's search and `gloss search` rank the same query the same way.
struct SearchQuery {
    /// The most terms (words, "phrases", prefix*) a query may look for, repeats side by side
    /// counted once.
    static let maximumTerms = 64
    /// The deepest parentheses may nest. FTS5's parser keeps a stack of 100 entries and refuses
    /// a query of about 95 levels ("parser stack overflow"); the report's search descends a
    /// level per parenthesis. Both refuse past this depth, with the same message.
    static let maximumDepth = 32

    /// What FTS5 runs: the query itself unless a repeat was dropped.
    let text: String

    /// Reads `query` by `syntax` (see `QuerySyntax`), drops repeats, and throws a `QueryError`
    /// when more than `maximumTerms` terms remain, or when it starts with `*`: FTS5 reads
    /// `*id` and `*reads` there as its own test queries, which match one row 0 and ignore the
    /// rest (`*id OR word` found nothing). A query in FTS5's syntax that FTS5 would refuse (a
    /// character it does not know, an unterminated string) is left as it is, for FTS5 to say why.
    init(_ typed: String, syntax: QuerySyntax = .automatic) throws {
        let query = syntax == .fts || Self.isDeliberate(typed) ? typed : Self.phrases(of: typed)
        if query.hasPrefix("*") {
            throw QueryError(query: typed, reason: "a query cannot start with *; a prefix search puts it after the word, as in gloss*")
        }
        guard let lexemes = Lexeme.split(query) else {
            text = query
            return
        }
        let depth = Self.depth(of: lexemes)
        guard depth <= Self.maximumDepth else {
            throw QueryError(query: typed, reason: "it nests parentheses \(depth) deep; at most \(Self.maximumDepth) are allowed")
        }
        // NEAR groups and column filters give a phrase's neighbours another meaning: repeats
        // there are kept, and only counted.
        let plain = !lexemes.indices.contains { index in
            lexemes[index].kind == .special
                || (lexemes[index].kind == .string && index + 1 < lexemes.count && lexemes[index + 1].kind == .leftParenthesis)
        }
        var kept: [Lexeme] = [], terms = 0, dropped = false
        var run: Set<Phrase> = []
        var index = 0
        while index < lexemes.count {
            guard let (phrase, end) = Phrase.read(lexemes, at: index) else {
                run = []
                kept.append(lexemes[index])
                index += 1
                continue
            }
            if plain && !run.insert(phrase).inserted {
                dropped = true
            } else {
                terms += 1
                kept += lexemes[index..<end]
            }
            index = end
        }
        guard terms <= Self.maximumTerms else {
            throw QueryError(query: typed, reason: "it looks for \(terms) terms (words, phrases, prefixes); "
                             + "at most \(Self.maximumTerms) are allowed")
        }
        text = dropped ? kept.map { String($0.raw) }.joined(separator: " ") : query
    }
}

/// How a query is read: what people type, or FTS5's own syntax.
///
/// `automatic` reads a query as FTS5 syntax only when it uses that syntax on purpose: outside
/// double quotes it holds `AND`, `OR` or `NOT` as a word of its own in capitals, `NEAR(`, a
/// `*` ending a word or a quoted phrase (a prefix, `qui*`, `"quick bro"*`), or a `^` starting
/// one (the page's first word, `^the`). Words are what lies between spaces, double quotes and
/// parentheses. Any other query is a list of phrases: each
/// word, and each "quoted phrase" (an unclosed quote runs to the end), is searched as the phrase
/// of its tokens, all of them on the page, so `don't`, `quick-brown`, `12:30`, `e-mail`,
/// `harbour)` and `Smith (1923)` find what they say rather than being refused or read as
/// column filters. `templates/index.js` (`window.glossQuery.read`) applies the same rule.
public enum QuerySyntax: Sendable {
    case automatic
    /// FTS5's query syntax as written: phrases, prefixes, AND/OR/NOT, NEAR, parentheses,
    /// `^`, `+` and column filters (`gloss search --fts`).
    case fts
}

extension SearchQuery {
    /// How deep the parentheses of `lexemes` nest (an unclosed one counts as open to the end).
    private static func depth(of lexemes: [Lexeme]) -> Int {
        var depth = 0, deepest = 0
        for lexeme in lexemes {
            if lexeme.kind == .leftParenthesis {
                depth += 1
                deepest = max(deepest, depth)
            } else if lexeme.raw == ")" {
                depth = max(0, depth - 1)
            }
        }
        return deepest
    }

    /// Whether `query` uses FTS5's syntax on purpose (see `QuerySyntax.automatic`).
    static func isDeliberate(_ query: String) -> Bool {
        let scalars = Array(query.unicodeScalars)
        var quoted = false, word: [Unicode.Scalar] = []
        /// Whether `word`, followed by `next`, is an operator.
        func isOperator(_ word: [Unicode.Scalar], before next: Unicode.Scalar?) -> Bool {
            let text = String(String.UnicodeScalarView(word))
            return text == "AND" || text == "OR" || text == "NOT" || (text == "NEAR" && next == "(")
        }
        func isBareword(at index: Int) -> Bool { index < scalars.count && Lexeme.isBareword(scalars[index]) }
        func isQuote(at index: Int) -> Bool { index < scalars.count && scalars[index] == "\"" }
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\"" {
                if !quoted && isOperator(word, before: scalar) { return true }
                // A `*` straight after a closing quote makes the phrase a prefix.
                if quoted && index + 1 < scalars.count && scalars[index + 1] == "*" && !isBareword(at: index + 2) {
                    return true
                }
                quoted.toggle()
                word = []
            } else if quoted {
                continue
            } else if Self.separators.contains(scalar) {
                if isOperator(word, before: scalar) { return true }
                word = []
            } else if scalar == "*", let last = word.last, Lexeme.isBareword(last), !isBareword(at: index + 1) {
                return true
            } else if scalar == "^", word.isEmpty, isBareword(at: index + 1) || isQuote(at: index + 1) {
                return true
            } else {
                word.append(scalar)
            }
        }
        return isOperator(word, before: nil)
    }

    /// `query` read as phrases: each word and each quoted phrase becomes one FTS5 string.
    static func phrases(of query: String) -> String {
        var phrases: [String] = [], current = "", quoted = false
        func close() {
            if !current.isEmpty { phrases.append("\"" + current + "\"") }
            current = ""
        }
        for scalar in query.unicodeScalars {
            if scalar == "\"" {
                close()
                quoted.toggle()
            } else if !quoted && Self.separators.contains(scalar) {
                close()
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        close()
        return phrases.isEmpty ? "\"\"" : phrases.joined(separator: " ")
    }

    /// What separates words outside quotes: FTS5's whitespace, and parentheses.
    private static let separators: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "(", ")"]
}

/// One of FTS5's query tokens (`fts5ExprGetToken`), as far as finding phrases needs them.
private struct Lexeme {
    enum Kind { case string, keyword, caret, star, plus, leftParenthesis, special, other }

    var kind: Kind
    /// As written, quotes included.
    var raw: Substring
    /// A string's text, its quotes removed, as bytes: two strings are the same when their
    /// bytes are (as in the browser, which compares code units, not canonical equivalence).
    var content: [UInt8] = []

    /// The tokens of `query`, or nil where FTS5 would refuse a character or an unterminated string.
    static func split(_ query: String) -> [Lexeme]? {
        let scalars = query.unicodeScalars
        var lexemes: [Lexeme] = []
        var at = scalars.startIndex
        while at < scalars.endIndex {
            let scalar = scalars[at]
            let next = scalars.index(after: at)
            if " \t\n\r".unicodeScalars.contains(scalar) {
                at = next
            } else if let kind = punctuation[scalar] {
                lexemes.append(Lexeme(kind: kind, raw: Substring(scalars[at..<next])))
                at = next
            } else if scalar == "\"" {
                var content = "", end = next
                while true {
                    guard end < scalars.endIndex else { return nil }
                    if scalars[end] == "\"" {
                        let after = scalars.index(after: end)
                        guard after < scalars.endIndex, scalars[after] == "\"" else { break }
                        end = after
                    }
                    content.unicodeScalars.append(scalars[end])
                    end = scalars.index(after: end)
                }
                end = scalars.index(after: end)
                lexemes.append(Lexeme(kind: .string, raw: Substring(scalars[at..<end]), content: Array(content.utf8)))
                at = end
            } else if isBareword(scalar) {
                var end = next
                while end < scalars.endIndex, isBareword(scalars[end]) { end = scalars.index(after: end) }
                let word = Substring(scalars[at..<end])
                let keyword = word == "AND" || word == "OR" || word == "NOT"
                lexemes.append(Lexeme(kind: keyword ? .keyword : .string, raw: word, content: Array(word.utf8)))
                at = end
            } else {
                return nil
            }
        }
        return lexemes
    }

    private static let punctuation: [Unicode.Scalar: Kind] = [
        "^": .caret, "*": .star, "+": .plus, "(": .leftParenthesis, ")": .other,
        "{": .special, "}": .special, ":": .special, ",": .special, "-": .special,
    ]

    /// FTS5's bareword characters: ASCII letters and digits, `_`, U+001A and anything beyond ASCII.
    static func isBareword(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 || scalar.value == 0x1A || scalar == "_"
            || ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar)
    }
}

/// A phrase as written: `^`, then strings joined by `+`, each perhaps a prefix (`*`). Two equal
/// phrases find the same words.
private struct Phrase: Hashable {
    var first: Bool
    var parts: [[UInt8]]
    var prefixes: [Bool]

    /// The phrase starting at `index` and the index after it, or nil when none starts there.
    static func read(_ lexemes: [Lexeme], at index: Int) -> (Phrase, end: Int)? {
        var at = index
        let first = lexemes[at].kind == .caret
        if first { at += 1 }
        guard at < lexemes.count, lexemes[at].kind == .string else { return nil }
        var phrase = Phrase(first: first, parts: [], prefixes: [])
        while true {
            phrase.parts.append(lexemes[at].content)
            at += 1
            let prefix = at < lexemes.count && lexemes[at].kind == .star
            phrase.prefixes.append(prefix)
            if prefix { at += 1 }
            guard at + 1 < lexemes.count, lexemes[at].kind == .plus, lexemes[at + 1].kind == .string else { break }
            at += 1
        }
        return (phrase, at)
    }
}
