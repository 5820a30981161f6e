// Gloss batch index: full-text search across every page, with the query language and ranking of
// the batch's SQLite index (`gloss search DIR "query"`), so the report and the command line list
// the same pages in the same order.
//
// The text is loaded only when someone searches, through <script> elements (fetch() of local
// files is refused under file://); each shard calls glossSearchShard(index, count, pages) with
// pages [htmlPath, title, text, terms]: `terms` are FTS5's own tokens of `text` (tokenizer
// `unicode61 remove_diacritics 2`), joined by spaces. The first shard says how many there are and
// the others are then requested at once, so the browser reads and parses them side by side; they
// may arrive in any order. Until all have arrived, the pages found so far are listed in page
// order; once all are in, they are ranked like FTS5's bm25() (it needs the whole batch's counts).
//
// A query is read as `gloss search` reads it (see `read` below): plain words and "quoted phrases",
// punctuation included, unless it uses FTS5's syntax on purpose. Such queries follow FTS5's syntax
// (https://www.sqlite.org/fts5.html, section 3): barewords and
// "quoted strings" are phrases, `+` joins phrases, `word*` and `"a b"*` are prefixes, `^word`
// must begin the text, AND, OR, NOT (upper case only) and parentheses, adjacent phrases are
// ANDed. Like FTS5 the implicit AND between adjacent phrases binds tighter than NOT, NOT tighter
// than AND, AND tighter than OR: `a NOT b c` is `a NOT (b AND c)`. A query FTS5 refuses is
// refused here too ("Query error: …") rather than guessed at. Not supported here, and reported as
// query errors: NEAR(...) groups and column filters (`col:`, `{a b}:`, `-col:`), which the
// command line may accept.
//
// Before any of it, a query goes through limitQuery, as in `gloss search`: repeats side by side
// dropped, at most 64 terms; a search still running after 2 s is stopped.
//
// window.glossSearch.evaluate(query) gives {error, timedOut, pages, scores, complete}: the matching pages
// as indexes in the batch's page order (shard by shard), best first. tests-browser/
// search_conformance.py checks it against SQLite itself.
//
// The page view loads this script too (before page.js), for the tokenizer and the parser only:
// window.glossQuery = {tokenize, parse, limit, read, prepare, occurrences, QueryError} lets a page
// opened from a result (`#q=query`) mark the words the query hits with the same rules (parse reads
// the query as typed, like the search box). Without the index's search box the script does
// nothing else; on the index it also sorts and filters the cards (at the end of this file).
(function () {
  "use strict";

  // Under `gloss serve`, the start-up address carries the write token (?token=...): it is kept
  // for this origin, so the page views opened from here can save corrections (page.js), and
  // taken out of the address bar.
  if (location.protocol !== "file:" && /[?&]token=/.test(location.search)) {
    try {
      localStorage.setItem("gloss.token", new URLSearchParams(location.search).get("token") || "");
      history.replaceState(null, "", location.pathname + location.hash);
    } catch (error) { /* no storage: the page views ask for nothing more */ }
  }

  var input = document.getElementById("search");
  var status = document.getElementById("search-status");
  var results = document.getElementById("results");
  var list = document.getElementById("result-list");
  var dataPath = document.body.getAttribute("data-search") || "data/";
  var pageSize = 100;

  var shards = [];         // by shard index: [{html, title, text, terms: [term, ...]}, ...]
  var shardCount = 0;      // known once the first shard has arrived
  var loaded = 0;          // shards arrived
  var requested = false;
  var missing = -1;        // the first shard that could not be loaded
  var scheduled = false;
  var shown = pageSize;
  var pagesCache = null;   // every page in order, once all shards are in

  // Tokenizer: unicode61 remove_diacritics 2 --------------------------------------------------
  // Code point by code point: a separator, or a token character folded (lower case, diacritics
  // removed) to one code point or to nothing. The table at the end of this file says which, as
  // measured on SQLite itself, so the browser's own Unicode version does not matter.
  var foldStarts = null;
  var foldKinds = null;
  var foldValues = null;

  function readFoldTable() {
    foldStarts = [];
    foldKinds = [];
    foldValues = [];
    unicode61Table().split(",").forEach(function (entry) {
      var parts = /^([0-9a-f]+)(s|d|a|=[0-9a-f]+|[+-][0-9a-f]+)?$/.exec(entry);
      var op = parts[2] || "+0";
      foldStarts.push(parseInt(parts[1], 16));
      foldKinds.push(op.charAt(0));
      foldValues.push(op.length > 1 ? parseInt(op.slice(1), 16) * (op.charAt(0) === "-" ? -1 : 1) : 0);
    });
  }

  // What code point `point` becomes in a token: -1 for a separator, 0 for nothing.
  function foldPoint(point) {
    if (!foldStarts) readFoldTable();
    var low = 0;
    var high = foldStarts.length - 1;
    while (low < high) {
      var middle = (low + high + 1) >> 1;
      if (foldStarts[middle] <= point) low = middle; else high = middle - 1;
    }
    switch (foldKinds[low]) {
      case "s": return -1;
      case "d": return 0;
      case "a": return (point - foldStarts[low]) % 2 === 0 ? point + 1 : point;
      case "=": return foldValues[low];
      default: return point + foldValues[low];
    }
  }

  // The tokens of `text` with where they are: [{term, start, end}] (UTF-16 offsets). A token
  // made only of diacritics folds to nothing and, as in FTS5, is no token at all.
  function tokenize(text) {
    var tokens = [];
    var term = "";
    var start = -1;
    for (var at = 0; at <= text.length; ) {
      var point = at < text.length ? text.codePointAt(at) : 32;
      var width = point > 0xffff ? 2 : 1;
      var folded = foldPoint(point);
      if (folded < 0) {
        if (start >= 0 && term) tokens.push({term: term, start: start, end: at});
        term = "";
        start = -1;
      } else {
        if (start < 0) start = at;
        if (folded > 0) term += String.fromCodePoint(folded);
      }
      at += width;
    }
    return tokens;
  }

  function terms(text) {
    return tokenize(text).map(function (token) { return token.term; });
  }

  // Query parser: FTS5's grammar (fts5parse.y) ------------------------------------------------
  // Lexing follows fts5ExprGetToken: whitespace is space, tab, CR and LF only; a bareword is a
  // run of ASCII letters, digits, "_", U+001A and any non-ASCII character, and goes through the
  // tokenizer like a quoted string (so `a_b` and `a—b` are the phrase "a b"); any other character
  // outside quotes is a syntax error.
  function QueryError(message) {
    this.message = message;
  }

  function isBareword(code) {
    return code >= 0x80 || code === 0x1a || code === 0x5f ||
      (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  }

  function lex(query) {
    var tokens = [];
    var at = 0;
    var singles = {"(": "LP", ")": "RP", "{": "LCP", "}": "RCP", ":": "COLON", ",": "COMMA",
                   "+": "PLUS", "*": "STAR", "-": "MINUS", "^": "CARET"};
    while (at < query.length) {
      var c = query.charAt(at);
      if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        at += 1;
      } else if (singles[c]) {
        tokens.push({type: singles[c], text: c});
        at += 1;
      } else if (c === "\"") {
        var text = "";
        var end = at + 1;
        for (;;) {
          if (end >= query.length) throw new QueryError("unterminated string");
          if (query.charAt(end) === "\"") {
            if (query.charAt(end + 1) !== "\"") break;
            end += 1;  // "" is a quote inside the string
          }
          text += query.charAt(end);
          end += 1;
        }
        tokens.push({type: "STRING", text: text, raw: query.slice(at, end + 1)});
        at = end + 1;
      } else if (isBareword(query.charCodeAt(at))) {
        var stop = at;
        while (stop < query.length && isBareword(query.charCodeAt(stop))) stop += 1;
        var word = query.slice(at, stop);
        var type = word === "AND" || word === "OR" || word === "NOT" ? word : "STRING";
        tokens.push({type: type, text: word, raw: word});
        at = stop;
      } else {
        throw new QueryError("syntax error near \"" + String.fromCodePoint(query.codePointAt(at)) + "\"");
      }
    }
    tokens.push({type: "EOF", text: ""});
    return tokens;
  }

  // Limits, as `gloss search` applies them before FTS5 sees a query (Sources/Index/
  // SearchQuery.swift; tests-browser/query_limits.json holds cases both must agree on). A phrase
  // repeated among the phrases next to it (FTS5's implicit AND: `the the the`) is the same
  // condition again and is dropped; FTS5's snippets take time in the square of the phrases. A
  // query still looking for more than maxTerms phrases is refused, not cut, since cutting a
  // boolean query changes what it finds. Phrases are compared as written, code unit by code
  // unit; in NEAR groups and column filters repeats are kept. Gives the query FTS5 is to run.
  var maxTerms = 64;
  // The deepest parentheses may nest (SearchQuery.maximumDepth): FTS5's parser overflows its
  // stack at about 95 levels, and parse() below descends a level of the JavaScript stack per
  // parenthesis, so both refuse a query past this depth, with the same message.
  var maxDepth = 32;

  function depthOf(tokens) {
    var depth = 0;
    var deepest = 0;
    tokens.forEach(function (token) {
      if (token.type === "LP") deepest = Math.max(deepest, ++depth);
      else if (token.type === "RP") depth = Math.max(0, depth - 1);
    });
    return deepest;
  }

  function limitQuery(query) {
    // FTS5 reads a leading * as its own test queries (*id, *reads), which ignore the rest.
    if (query.charAt(0) === "*") {
      throw new QueryError("a query cannot start with *; a prefix search puts it after the word, as in gloss*");
    }
    var tokens;
    try {
      tokens = lex(query);
    } catch (error) {
      if (error instanceof QueryError) return query;
      throw error;
    }
    tokens.pop();
    var depth = depthOf(tokens);
    if (depth > maxDepth) {
      throw new QueryError("it nests parentheses " + depth + " deep; at most " + maxDepth + " are allowed");
    }
    var special = {LCP: true, RCP: true, COLON: true, COMMA: true, MINUS: true};
    var plain = !tokens.some(function (token, i) {
      return special[token.type] || (token.type === "STRING" && i + 1 < tokens.length && tokens[i + 1].type === "LP");
    });
    var kept = [];
    var count = 0;
    var dropped = false;
    var run = Object.create(null);
    for (var at = 0; at < tokens.length; ) {
      var end = phraseEnd(tokens, at);
      if (end < 0) {
        run = Object.create(null);
        kept.push(tokens[at]);
        at += 1;
        continue;
      }
      var phrase = tokens.slice(at, end);
      var key = JSON.stringify(phrase.map(function (token) { return token.type === "STRING" ? [token.text] : token.type; }));
      if (plain && run[key]) {
        dropped = true;
      } else {
        run[key] = true;
        count += 1;
        kept.push.apply(kept, phrase);
      }
      at = end;
    }
    if (count > maxTerms) {
      throw new QueryError("it looks for " + count + " terms (words, phrases, prefixes); at most " + maxTerms +
                           " are allowed");
    }
    return dropped ? kept.map(function (token) { return token.raw || token.text; }).join(" ") : query;
  }

  // How a query is read, as `gloss search` reads it (QuerySyntax in Sources/Index/SearchQuery.swift;
  // tests-browser/query_rule.json holds cases both must agree on). A query is FTS5's syntax only
  // when it uses it on purpose: outside double quotes, AND, OR or NOT as a word of its own in
  // capitals, NEAR(, a * ending a word or a quoted phrase, or a ^ starting one. Words are what
  // lies between spaces,
  // double quotes and parentheses. Any other query is a list of phrases: each word and each
  // "quoted phrase" (an unclosed quote runs to the end) becomes one FTS5 string, so `don't`,
  // `12:30` or `harbour)` find what they say. With `fts` the query is FTS5's syntax as written.
  var separators = {" ": true, "\t": true, "\n": true, "\r": true, "(": true, ")": true};

  function isOperator(word, next) {
    return word === "AND" || word === "OR" || word === "NOT" || (word === "NEAR" && next === "(");
  }

  function isDeliberate(query) {
    var points = Array.from(query);
    var quoted = false;
    var word = "";
    function bareword(at) { return at < points.length && isBareword(points[at].codePointAt(0)); }
    for (var at = 0; at < points.length; at += 1) {
      var point = points[at];
      if (point === "\"") {
        if (!quoted && isOperator(word, point)) return true;
        // A * straight after a closing quote makes the phrase a prefix.
        if (quoted && points[at + 1] === "*" && !bareword(at + 2)) return true;
        quoted = !quoted;
        word = "";
      } else if (quoted) {
        continue;
      } else if (separators[point]) {
        if (isOperator(word, point)) return true;
        word = "";
      } else if (point === "*" && word && bareword(at - 1) && !bareword(at + 1)) {
        return true;
      } else if (point === "^" && !word && (bareword(at + 1) || points[at + 1] === "\"")) {
        return true;
      } else {
        word += point;
      }
    }
    return isOperator(word, null);
  }

  function phrases(query) {
    var found = [];
    var current = "";
    var quoted = false;
    function close() {
      if (current) found.push("\"" + current + "\"");
      current = "";
    }
    Array.from(query).forEach(function (point) {
      if (point === "\"") {
        close();
        quoted = !quoted;
      } else if (!quoted && separators[point]) {
        close();
      } else {
        current += point;
      }
    });
    close();
    return found.length ? found.join(" ") : "\"\"";
  }

  function read(query, fts) {
    return fts || isDeliberate(query) ? query : phrases(query);
  }

  // What FTS5 is given for what was typed: the query read, then limited.
  function prepare(query, fts) {
    return limitQuery(read(query, fts));
  }

  // Where the phrase starting at tokens[at] ends (`^`, strings joined by `+`, each perhaps with
  // `*`), or -1 when none starts there.
  function phraseEnd(tokens, at) {
    if (tokens[at].type === "CARET") at += 1;
    if (at >= tokens.length || tokens[at].type !== "STRING") return -1;
    for (;;) {
      at += 1;
      if (at < tokens.length && tokens[at].type === "STAR") at += 1;
      if (at + 1 >= tokens.length || tokens[at].type !== "PLUS" || tokens[at + 1].type !== "STRING") return at;
      at += 1;
    }
  }

  // The query as a tree: {type: "phrase", id, tokens: [{term, prefix}], first}, {type: "and" or
  // "or", children}, {type: "not", children: [kept, dropped]}. `phrases` lists the phrases in
  // FTS5's order (as they appear), which is the order bm25() sums them in. The limits above
  // are applied first, to the query as read (`fts`: FTS5's syntax as written).
  function parse(text, fts) {
    var query = prepare(text, fts);
    if (query.charAt(0) === "*") throw new QueryError("unknown special query: " + query.slice(1));
    var tokens = lex(query);
    var at = 0;
    var phrases = [];
    var nots = [];

    function peek() { return tokens[at].type; }
    function near(token) {
      return new QueryError(token.type === "EOF" ? "syntax error at the end of the query"
                                                 : "syntax error near \"" + token.text + "\"");
    }
    function expect(type) {
      if (peek() !== type) throw near(tokens[at]);
      return tokens[at++];
    }
    function columnFilter() {
      return new QueryError("column filters (\"" + tokens[at].text + "\") are not supported in the report's search");
    }

    function orExpression() {
      var node = andExpression();
      while (peek() === "OR") {
        at += 1;
        node = {type: "or", children: [node, andExpression()]};
      }
      return node;
    }
    function andExpression() {
      var node = notExpression();
      while (peek() === "AND") {
        at += 1;
        node = {type: "and", children: [node, notExpression()]};
      }
      return node;
    }
    function notExpression() {
      var node = primary();
      while (peek() === "NOT") {
        at += 1;
        node = {type: "not", children: [node, primary()]};
        nots.push(node);
      }
      return node;
    }
    function primary() {
      var type = peek();
      if (type === "LP") {
        at += 1;
        var inner = orExpression();
        expect("RP");
        return inner;
      }
      if (type === "STRING" || type === "CARET") return phraseList();
      if (type === "LCP" || type === "MINUS") throw columnFilter();
      throw near(tokens[at]);
    }
    // Adjacent phrases, ANDed. As in FTS5 (sqlite3Fts5ParseImplicitAnd), a phrase with no tokens
    // (say a bareword that is only punctuation, like "—") is left out of such a list; on its
    // own, or under AND, OR or NOT, it matches nothing.
    function phraseList() {
      var items = [];
      while (peek() === "STRING" || peek() === "CARET") items.push(phrase());
      var kept = items.filter(function (item) { return item.tokens.length > 0; });
      if (!kept.length) kept = [items[items.length - 1]];
      items.forEach(function (item) { if (kept.indexOf(item) < 0) phrases.splice(phrases.indexOf(item), 1); });
      return kept.length === 1 ? kept[0] : {type: "and", children: kept};
    }
    function phrase() {
      var first = false;
      if (peek() === "CARET") {
        first = true;
        at += 1;
      }
      var start = expect("STRING");
      if (peek() === "LP") {
        if (!first && start.raw === "NEAR") throw new QueryError("NEAR() is not supported in the report's search");
        throw near(start);
      }
      if (peek() === "COLON") throw columnFilter();
      var node = {type: "phrase", id: 0, tokens: [], first: first};
      for (;;) {
        terms(start.text).forEach(function (term) { node.tokens.push({term: term, prefix: false}); });
        if (peek() === "STAR") {
          at += 1;
          if (node.tokens.length) node.tokens[node.tokens.length - 1].prefix = true;
        }
        if (peek() !== "PLUS") break;
        at += 1;
        start = expect("STRING");
      }
      phrases.push(node);
      return node;
    }

    var root = orExpression();
    if (peek() !== "EOF") {
      if (peek() === "COLON" || peek() === "LCP" || peek() === "MINUS") throw columnFilter();
      throw near(tokens[at]);
    }
    phrases.forEach(function (node, index) { node.id = index; });
    return {root: root, phrases: phrases, nots: nots};
  }

  // Evaluation over the pages' terms ------------------------------------------------------------
  // Where a phrase occurs in a page: the term positions it starts at.
  function occurrences(node, termList) {
    var found = [];
    var words = node.tokens;
    if (!words.length) return found;
    var last = node.first ? Math.min(0, termList.length - words.length) : termList.length - words.length;
    for (var start = 0; start <= last; start += 1) {
      var match = true;
      for (var k = 0; k < words.length && match; k += 1) {
        var term = termList[start + k];
        match = words[k].prefix ? term.lastIndexOf(words[k].term, 0) === 0 : term === words[k].term;
      }
      if (match) found.push(start);
    }
    return found;
  }

  function matches(node, hits) {
    switch (node.type) {
      case "phrase": return hits[node.id].length > 0;
      case "and": return node.children.every(function (child) { return matches(child, hits); });
      case "or": return node.children.some(function (child) { return matches(child, hits); });
      default: return matches(node.children[0], hits) && !matches(node.children[1], hits);
    }
  }

  // The phrases whose hits count for a matching page: those in the parts of the query that
  // matched it. FTS5 reports a phrase's instances only while its iterator sits on the row, which
  // comes to this: all of an AND, the matching branches of an OR, the left side of a NOT.
  // One case differs, and is not copied: when the left side of a NOT matches no page at all, FTS5
  // never moves the right side's iterators past their first match, so the right side's phrases
  // also count on that one page if it matches through another branch of an OR (for example
  // `harbour OR (misspelt NOT quick)` scores "quick" on the first page with "quick"). The pages
  // found are the same; only that page's score differs. evaluate() says so in `caveat`.
  function counted(node, hits, into) {
    if (node.type === "phrase") {
      if (hits[node.id].length) into.push(node);
    } else if (node.type === "not") {
      counted(node.children[0], hits, into);
    } else {
      node.children.forEach(function (child) {
        if (matches(child, hits)) counted(child, hits, into);
      });
    }
    return into;
  }

  function allPages() {
    if (pagesCache) return pagesCache;
    var pages = [];
    shards.forEach(function (shard) { if (shard) pages.push.apply(pages, shard); });
    if (loaded === shardCount && shardCount > 0) pagesCache = pages;
    return pages;
  }

  // FTS5's bm25() with k1 = 1.2, b = 0.75 and one column, computed in the same order of
  // operations so that equal scores come out equal. `pagesWith[i]`: how many pages of the whole
  // batch have phrase i (FTS5 counts them with the phrase alone, whatever the rest of the query).
  function rank(query, found, pages, pagesWith) {
    var k1 = 1.2;
    var b = 0.75;
    var total = 0;
    pages.forEach(function (page) { total += page.terms.length; });
    var avgdl = total / pages.length;
    var idf = pagesWith.map(function (hit) {
      var value = Math.log((pages.length - hit + 0.5) / (hit + 0.5));
      return value <= 0 ? 1e-6 : value;
    });
    found.forEach(function (result) {
      var size = result.page.terms.length;
      var score = 0;
      var freq = query.phrases.map(function () { return 0; });
      result.counted.forEach(function (node) { freq[node.id] = result.hits[node.id].length; });
      for (var i = 0; i < freq.length; i += 1) {
        score += idf[i] * ((freq[i] * (k1 + 1.0)) / (freq[i] + k1 * (1 - b + b * size / avgdl)));
      }
      result.score = -1.0 * score;
    });
    found.sort(function (x, y) { return x.score - y.score || x.index - y.index; });
  }

  // The search runs in the page's own thread, which answers nothing else meanwhile: one still
  // running after this long (milliseconds) is stopped. `gloss search` allows 10 s; here no
  // query of the largest batches measured comes near (README, "Searching a batch").
  var searchTimeLimit = 2000;

  // Everything about a query: {error, timedOut, query, results: [{index, page, hits, counted,
  // score}], complete}. Listed in page order until every shard is in, ranked from then on.
  function search(text, timeLimit, fts) {
    var query;
    try {
      query = parse(text, fts);
    } catch (error) {
      // A RangeError is the stack running out, which the depth limit is there to prevent: a
      // query error all the same, never an exception that leaves the last result on screen.
      if (!(error instanceof QueryError) && !(error instanceof RangeError)) throw error;
      var message = error instanceof QueryError ? error.message : "the query is too complex to read";
      return {error: message, timedOut: false, query: null, results: [], complete: false, caveat: null};
    }
    var limit = timeLimit === undefined ? searchTimeLimit : timeLimit;
    var deadline = Date.now() + limit;
    var pages = allPages();
    var found = [];
    var pagesWith = query.phrases.map(function () { return 0; });
    var notsMatched = query.nots.map(function () { return false; });
    for (var index = 0; index < pages.length; index += 1) {
      if (Date.now() >= deadline) {
        return {error: "the search took longer than its limit of " + limit / 1000 + " s and was stopped",
                timedOut: true, query: query, results: [], complete: false, caveat: null};
      }
      var page = pages[index];
      var hits = query.phrases.map(function (node) { return occurrences(node, page.terms); });
      hits.forEach(function (starts, id) { if (starts.length) pagesWith[id] += 1; });
      query.nots.forEach(function (node, i) { notsMatched[i] = notsMatched[i] || matches(node.children[0], hits); });
      if (matches(query.root, hits)) {
        found.push({index: index, page: page, hits: hits, counted: counted(query.root, hits, []), score: null});
      }
    }
    var complete = shardCount > 0 && loaded === shardCount && missing < 0;
    if (complete && found.length) rank(query, found, pages, pagesWith);
    var caveat = notsMatched.indexOf(false) >= 0
      ? "the left side of a NOT matches no page: FTS5 may score one page higher than this" : null;
    return {error: null, timedOut: false, query: query, results: found, complete: complete, caveat: caveat};
  }

  // `timeLimit` (milliseconds) replaces the usual limit, for tests; `fts` reads the query as
  // FTS5's syntax as written.
  function evaluate(text, timeLimit, fts) {
    var outcome = search(text, timeLimit, fts);
    return {
      error: outcome.error,
      timedOut: outcome.timedOut,
      pages: outcome.results.map(function (result) { return result.index; }),
      scores: outcome.results.map(function (result) { return result.score; }),
      complete: outcome.complete,
      caveat: outcome.caveat
    };
  }

  // Loading -------------------------------------------------------------------------------------
  function shardName(index) {
    var digits = String(index);
    while (digits.length < 4) digits = "0" + digits;
    return dataPath + "search-" + digits + ".js";
  }

  function load(index) {
    var script = document.createElement("script");
    script.src = shardName(index);
    script.onerror = function () {
      if (missing < 0) missing = index;
      script.remove();
      schedule();
    };
    document.head.appendChild(script);
  }

  // A shard not there when asked (the batch was running) is asked for again by a later query,
  // at most every five seconds: it may have been written since.
  var retried = 0;
  function request() {
    if (requested && missing >= 0 && Date.now() - retried > 5000) {
      retried = Date.now();
      missing = -1;
      if (!shardCount) load(0);
      for (var index = 0; index < shardCount; index += 1) if (!shards[index]) load(index);
    }
    if (requested) return;
    requested = true;
    load(0);
  }

  window.glossSearchShard = function (index, count, entries) {
    if (shards[index]) return;
    if (!shardCount) {
      shardCount = count;
      for (var next = 1; next < count; next += 1) load(next);
    }
    shards[index] = entries.map(function (entry) {
      // Data written before the index had its terms: the same tokenizer gives the same terms.
      var termList = typeof entry[3] === "string" ? (entry[3] ? entry[3].split(" ") : []) : terms(entry[2]);
      return {html: entry[0], title: entry[1], text: entry[2], terms: termList};
    });
    loaded += 1;
    pagesCache = null;
    schedule();
  };

  window.glossSearch = {
    evaluate: evaluate,
    tokenize: terms,
    load: request,
    ready: function () { return shardCount > 0 && loaded === shardCount; }
  };

  window.glossQuery = {tokenize: terms, parse: parse, limit: limitQuery, read: read, prepare: prepare,
                       occurrences: occurrences, QueryError: QueryError};

  // Shards that arrive together are searched and listed once.
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(function () {
      scheduled = false;
      render();
    }, 0);
  }

  // Listing -------------------------------------------------------------------------------------
  // The text around the first hit, the hits marked; built as DOM nodes, never as markup. The
  // page's text is tokenized again only to find where its terms are in it; when that does not
  // line up with the index's terms, the hit terms are marked wherever they occur.
  function snippet(result) {
    var page = result.page;
    var tokens = tokenize(page.text);
    var aligned = tokens.length === page.terms.length && tokens.every(function (token, i) {
      return token.term === page.terms[i];
    });
    var marked = [];
    var hitTerms = {};
    result.counted.forEach(function (node) {
      result.hits[node.id].forEach(function (start) {
        for (var k = 0; k < node.tokens.length; k += 1) {
          marked[start + k] = true;
          hitTerms[page.terms[start + k]] = true;
        }
      });
    });
    if (!aligned) {
      marked = tokens.map(function (token) { return hitTerms.hasOwnProperty(token.term); });
    }
    var first = -1;
    for (var i = 0; i < tokens.length; i += 1) {
      if (marked[i]) { first = i; break; }
    }
    var text = page.text;
    var at = first >= 0 ? tokens[first].start : 0;
    var atEnd = first >= 0 ? tokens[first].end : 0;
    var start = Math.max(0, at - 60);
    var end = Math.min(text.length, atEnd + 100);
    var span = document.createElement("span");
    span.className = "snippet";
    function plain(from, to) {
      if (to > from) span.appendChild(document.createTextNode(text.slice(from, to).replace(/\s+/g, " ")));
    }
    if (start > 0) span.appendChild(document.createTextNode("…"));
    var last = start;
    tokens.forEach(function (token, index) {
      if (!marked[index] || token.start < start || token.end > end) return;
      plain(last, token.start);
      var mark = document.createElement("mark");
      mark.textContent = text.slice(token.start, token.end);
      span.appendChild(mark);
      last = token.end;
    });
    plain(last, end);
    if (end < text.length) span.appendChild(document.createTextNode("…"));
    return span;
  }

  function render() {
    var text = input.value;
    list.textContent = "";
    if (!text.trim()) {
      results.hidden = true;
      status.textContent = "";
      return;
    }
    results.hidden = false;
    var outcome = search(text);
    if (outcome.error) {
      status.textContent = (outcome.timedOut ? "Search stopped: " : "Query error: ") + outcome.error;
      return;
    }
    var found = outcome.results;
    var query = encodeURIComponent(text.trim());
    found.slice(0, shown).forEach(function (result) {
      var item = document.createElement("li");
      var title;
      if (result.page.html) {
        title = document.createElement("a");
        title.href = result.page.html + "#q=" + query;
      } else {
        title = document.createElement("span");
        title.className = "title";
      }
      title.textContent = result.page.title;
      item.appendChild(title);
      item.appendChild(snippet(result));
      list.appendChild(item);
    });
    if (found.length > shown) {
      var more = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Show " + Math.min(pageSize, found.length - shown) + " more of " + (found.length - shown);
      button.addEventListener("click", function () { shown += pageSize; render(); });
      more.appendChild(button);
      list.appendChild(more);
    }
    var summary = found.length === 1 ? "1 page" : found.length + " pages";
    if (missing >= 0) {
      status.textContent = "Search data not found (" + shardName(missing) + "); it is written when the batch finishes.";
    } else if (!outcome.complete) {
      status.textContent = summary + " so far, searching… (" + loaded + " of " + (shardCount || "?") + ")";
    } else {
      status.textContent = summary;
    }
    if (input) openFirstWhenDone();
  }

  // On a page view (no search box) only the tokenizer and parser above are wanted.
  if (!input) return;

  var timer = 0;
  // Enter goes to the first page found for the query as typed, once every shard is searched.
  var openFirst = false;
  function openFirstWhenDone() {
    if (!openFirst || !(missing >= 0 || (shardCount > 0 && loaded === shardCount))) return;
    openFirst = false;
    var first = list.querySelector("a");
    if (first) location.href = first.href;
  }
  input.addEventListener("input", function () {
    shown = pageSize;
    openFirst = false;
    request();
    clearTimeout(timer);
    timer = setTimeout(render, 120);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(timer);
      openFirst = true;
      request();
      render();
    } else if (event.key === "ArrowDown") {
      var link = list.querySelector("a");
      if (link) { event.preventDefault(); link.focus(); }
    } else if (event.key === "Escape") {
      input.value = "";
      render();
    }
  });
  input.form.addEventListener("submit", function (event) { event.preventDefault(); });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "/" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    event.preventDefault();
    input.focus();
  });

  // Sorting and filtering the cards ------------------------------------------------------------
  // Nothing runs at load: the cards' figures are read from their data- attributes (w words,
  // c mean confidence, f faces, d folder) on the first change. Sorted by folder, the cards stay
  // in their groups and those filtered out are hidden; sorted otherwise, the cards shown move
  // into one list (#arranged) in chunks like the groups', and move back when sorting by folder.
  var sortField = document.getElementById("sort");
  var showField = document.getElementById("show");
  var folderField = document.getElementById("folder");
  var groupsView = document.getElementById("groups");
  var arranged = document.getElementById("arranged");
  var shownStatus = document.getElementById("shown");
  var cards = null;
  var moved = false;

  function readCards() {
    cards = Array.prototype.map.call(groupsView.querySelectorAll(".card"), function (element, index) {
      var confidence = element.getAttribute("data-c");
      var name = element.querySelector(".name");
      return {
        element: element, home: element.parentNode, index: index,
        name: name ? name.textContent : "",
        words: +element.getAttribute("data-w") || 0,
        confidence: confidence === null ? null : +confidence,
        faces: +element.getAttribute("data-f") || 0,
        folder: element.getAttribute("data-d"),
        failed: !element.classList.contains("ok"),
        suspect: element.classList.contains("suspect"),
        // Decided by the triage (PageReview.lowConfidence): a photo's few garbage words are not.
        low: element.classList.contains("low")
      };
    });
  }

  function wanted(card, show, folder) {
    if (folder && card.folder !== folder) return false;
    switch (show) {
      case "failed": return card.failed;
      case "faces": return card.faces > 0;
      case "suspect": return card.suspect;
      case "low": return card.low;
      default: return true;
    }
  }

  var collator = typeof Intl !== "undefined" ? new Intl.Collator(undefined, {numeric: true, sensitivity: "base"}) : null;

  // Best first for "-field", lowest first otherwise; pages without a figure (not read, no
  // words) last either way; ties in input order.
  function compare(sort) {
    var descending = sort.charAt(0) === "-";
    var field = descending ? sort.slice(1) : sort;
    return function (a, b) {
      var order = 0;
      if (field === "name") {
        order = collator ? collator.compare(a.name, b.name) : (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      } else {
        var x = a[field];
        var y = b[field];
        if (x === null || y === null) order = x === null ? (y === null ? 0 : 1) : -1;
        else order = descending ? y - x : x - y;
      }
      return order || a.index - b.index;
    };
  }

  function chunk(count) {
    var grid = document.createElement("ol");
    grid.className = "grid chunk rows-" + Math.min(17, Math.ceil(count / 6));
    return grid;
  }

  function arrange() {
    if (!cards) readCards();
    var sort = sortField.value;
    var show = showField.value;
    var folder = folderField ? folderField.value : "";
    var kept = cards.filter(function (card) { return wanted(card, show, folder); });
    cards.forEach(function (card) { card.element.hidden = false; });
    if (sort) {
      kept.sort(compare(sort));
      arranged.textContent = "";
      for (var start = 0; start < kept.length; start += 100) {
        var grid = chunk(Math.min(100, kept.length - start));
        kept.slice(start, start + 100).forEach(function (card) { grid.appendChild(card.element); });
        arranged.appendChild(grid);
      }
      moved = true;
    } else {
      if (moved) {
        cards.forEach(function (card) { card.home.appendChild(card.element); });
        arranged.textContent = "";
        moved = false;
      }
      var keep = new Set(kept);
      cards.forEach(function (card) { card.element.hidden = !keep.has(card); });
      Array.prototype.forEach.call(groupsView.querySelectorAll(".chunk"), function (grid) {
        grid.hidden = !grid.querySelector(".card:not([hidden])");
      });
      Array.prototype.forEach.call(groupsView.querySelectorAll(".group"), function (group) {
        group.hidden = !group.querySelector(".chunk:not([hidden])");
      });
    }
    groupsView.hidden = !!sort;
    arranged.hidden = !sort;
    shownStatus.textContent = kept.length === cards.length ? "" :
      kept.length + " of " + cards.length + " pages" + (kept.length ? "" : ": none match");
  }

  if (sortField && showField && groupsView && arranged) {
    [sortField, showField, folderField].forEach(function (field) {
      if (field) field.addEventListener("change", arrange);
    });
    sortField.form.addEventListener("submit", function (event) { event.preventDefault(); });
    // A browser restoring the form's choices on going back shows the cards as chosen.
    window.addEventListener("pageshow", function () {
      if (sortField.value || showField.value || (folderField && folderField.value)) arrange();
    });
  }

  // Generated by tests-browser/unicode61_table.py from SQLite 3.40.1; do not edit.
  function unicode61Table() {
    return "0s,30,3as,41+20,5bs,61,7bs,aa,abs,b2,b4s,b5+307,b6s,b9,bbs,bc,bfs,c0=61,c6+20,c7-64,c8=65,cc=69," +
      "d0+20,d1-63,d3=6f,d7s,d8+20,d9=75,dd-64,de+20,df,e0=61,e6,e7-84,e8=65,ec=69,f0,f1-83,f3=6f,f7s,f" +
      "8,f9=75,fd-84,fe,ff-86,100=61,106=63,10e=64,110=111,112=65,11c=67,124=68,126=127,128=69,131,132=" +
      "133,134=6a,136=6b,138,139=6c,13fa,143=6e,149,14a=14b,14c=6f,152=153,154=72,15a=73,162=74,166=167" +
      ",168=75,174=77,176=79,179=7a,17f-10c,180,181+d2,182a,186+ce,187=188,189+cd,18b=18c,18d,18e+4f,18" +
      "f+ca,190+cb,191=192,193+cd,194+cf,195,196+d3,197+d1,198=199,19a,19c+d3,19d+d5,19e,19f+d6,1a0=6f," +
      "1a2a,1a6+da,1a7=1a8,1a9+da,1aa,1ac=1ad,1ae+da,1af=75,1b1+d9,1b3a,1b7+db,1b8=1b9,1ba,1bc=1bd,1be," +
      "1c4=1c6,1c7=1c9,1ca=1cc,1cd=61,1cf=69,1d1=6f,1d3=75,1dd,1de=61,1e0a,1e6=67,1e8=6b,1ea=6f,1ee=1ef" +
      ",1f0-186,1f1=1f3,1f4=67,1f6-61,1f7-38,1f8=6e,1fa=61,1fca,200=61,204=65,208=69,20c=6f,210=72,214=" +
      "75,218=73,21a=74,21c=21d,21e=68,220-82,221,222a,226=61,228=65,22a=6f,232=79,234,23a+2a2b,23b=23c" +
      ",23d-a3,23e+2a28,23f,241=242,243-c3,244+45,245+47,246a,250,2c2s,2c6,2d2s,2e0,2e5s,2ec,2eds,2ee,2" +
      "efs,300d,305s,306d,30ds,30fd,310s,311d,312s,31bd,31cs,323d,329s,32dd,32fs,330d,332s,370a,374,375" +
      "s,376=377,378,37es,37f,384s,386+26,387s,388+25,38b,38c+40,38d,38e+3f,390,391+20,3a2,3a3+20,3ac,3" +
      "c2=3c3,3c4,3cf+8,3d0-1e,3d1-19,3d2,3d5-f,3d6-16,3d7,3d8a,3f0-36,3f1-30,3f2,3f4-3c,3f5-40,3f6s,3f" +
      "7=3f8,3f9-7,3fa=3fb,3fc,3fd-82,400+50,410+20,430,460a,482s,48aa,4c0+f,4c1a,4cf,4d0a,528,531+30,5" +
      "57,55as,560,589s,58b,58fs,590,591s,5c8,5f3s,5f5,600s,605,606s,61c,61es,620,64bs,660,66as,66e,670" +
      "s,671,6d4s,6d5,6d6s,6e5,6e7s,6ee,6fds,6ff,700s,70e,70fs,710,711s,712,730s,74b,7a6s,7b1,7ebs,7f4," +
      "7f6s,7fa,816s,81a,81bs,824,825s,828,829s,82e,830s,83f,859s,85c,85es,85f,8e4s,8ff,900s,904,93as,9" +
      "3d,93es,950,951s,958,962s,966,970s,971,981s,984,9bcs,9bd,9bes,9c5,9c7s,9c9,9cbs,9ce,9d7s,9d8,9e2" +
      "s,9e4,9f2s,9f4,9fas,9fc,a01s,a04,a3cs,a3d,a3es,a43,a47s,a49,a4bs,a4e,a51s,a52,a70s,a72,a75s,a76," +
      "a81s,a84,abcs,abd,abes,ac6,ac7s,aca,acbs,ace,ae2s,ae4,af0s,af2,b01s,b04,b3cs,b3d,b3es,b45,b47s,b" +
      "49,b4bs,b4e,b56s,b58,b62s,b64,b70s,b71,b82s,b83,bbes,bc3,bc6s,bc9,bcas,bce,bd7s,bd8,bf3s,bfb,c01" +
      "s,c04,c3es,c45,c46s,c49,c4as,c4e,c55s,c57,c62s,c64,c7fs,c80,c82s,c84,cbcs,cbd,cbes,cc5,cc6s,cc9," +
      "ccas,cce,cd5s,cd7,ce2s,ce4,d02s,d04,d3es,d45,d46s,d49,d4as,d4e,d57s,d58,d62s,d64,d79s,d7a,d82s,d" +
      "84,dcas,dcb,dcfs,dd5,dd6s,dd7,dd8s,de0,df2s,df5,e31s,e32,e34s,e3b,e3fs,e40,e47s,e50,e5as,e5c,eb1" +
      "s,eb2,eb4s,eba,ebbs,ebd,ec8s,ece,f01s,f20,f34s,f40,f71s,f88,f8ds,f98,f99s,fbd,fbes,fcd,fces,fdb," +
      "102bs,103f,104as,1050,1056s,105a,105es,1061,1062s,1065,1067s,106e,1071s,1075,1082s,108e,108fs,10" +
      "90,109as,10a0+1c60,10c6,10c7+1c60,10c8,10cd+1c60,10ce,10fbs,10fc,135ds,1369,1390s,139a,1400s,140" +
      "1,166ds,166f,1680s,1681,169bs,169d,16ebs,16ee,1712s,1715,1732s,1737,1752s,1754,1772s,1774,17b4s," +
      "17d7,17d8s,17dc,17dds,17de,1800s,180f,18a9s,18aa,1920s,192c,1930s,193c,1940s,1941,1944s,1946,19b" +
      "0s,19c1,19c8s,19ca,19des,1a00,1a17s,1a1c,1a1es,1a20,1a55s,1a5f,1a60s,1a7d,1a7fs,1a80,1aa0s,1aa7," +
      "1aa8s,1aae,1b00s,1b05,1b34s,1b45,1b5as,1b7d,1b80s,1b83,1ba1s,1bae,1be6s,1bf4,1bfcs,1c00,1c24s,1c" +
      "38,1c3bs,1c40,1c7es,1c80,1cc0s,1cc8,1cd0s,1ce9,1ceds,1cee,1cf2s,1cf5,1dc0s,1de7,1dfcs,1e00=61,1e" +
      "02=62,1e08=63,1e0a=64,1e14=65,1e1e=66,1e20=67,1e22=68,1e2c=69,1e30=6b,1e36=6c,1e3e=6d,1e44=6e,1e" +
      "4c=6f,1e54=70,1e58=72,1e60=73,1e6a=74,1e72=75,1e7c=76,1e80=77,1e8a=78,1e8e=79,1e90=7a,1e96-1e2e," +
      "1e97-1e23,1e98-1e21,1e99-1e20,1e9a,1e9b-1e28,1e9c,1e9e-1dbf,1e9f,1ea0=61,1eb8=65,1ec8=69,1ecc=6f" +
      ",1ee4=75,1ef2=79,1efaa,1f00,1f08-8,1f10,1f18-8,1f1e,1f28-8,1f30,1f38-8,1f40,1f48-8,1f4e,1f59-8,1" +
      "f5a,1f5b-8,1f5c,1f5d-8,1f5e,1f5f-8,1f60,1f68-8,1f70,1f88-8,1f90,1f98-8,1fa0,1fa8-8,1fb0,1fb8-8,1" +
      "fba-4a,1fbc-9,1fbds,1fbe-1c05,1fbfs,1fc2,1fc8-56,1fcc-9,1fcds,1fd0,1fd8-8,1fda-64,1fdc,1fdds,1fe" +
      "0,1fe8-8,1fea-70,1fec-7,1feds,1ff0,1ff8-80,1ffa-7e,1ffc-9,1ffds,1fff,2000s,2065,206as,2070,207as" +
      ",207f,208as,208f,20a0s,20ba,20d0s,20f1,2100s,2102,2103s,2107,2108s,210a,2114s,2115,2116s,2119,21" +
      "1es,2124,2125s,2126-1d5d,2127s,2128,2129s,212a-20bf,212b-20ca,212c,212es,212f,2132+1c,2133,213as" +
      ",213c,2140s,2145,214as,214e,214fs,2150,2160+10,2170,2183=2184,2185,2190s,23f4,2400s,2427,2440s,2" +
      "44b,249cs,24ea,2500s,2700,2701s,2776,2794s,2b4d,2b50s,2b5a,2c00+30,2c2f,2c60=2c61,2c62-29f7,2c63" +
      "-ee6,2c64-29e7,2c65,2c67a,2c6d-2a1c,2c6e-29fd,2c6f-2a1f,2c70-2a1e,2c71,2c72=2c73,2c74,2c75=2c76," +
      "2c77,2c7e-2a3f,2c80a,2ce4,2ce5s,2ceba,2cefs,2cf2=2cf3,2cf4,2cf9s,2cfd,2cfes,2d00,2d70s,2d71,2d7f" +
      "s,2d80,2de0s,2e2f,2e30s,2e3c,2e80s,2e9a,2e9bs,2ef4,2f00s,2fd6,2ff0s,2ffc,3000s,3005,3008s,3021,3" +
      "02as,3031,3036s,3038,303ds,3040,3099s,309d,30a0s,30a1,30fbs,30fc,3190s,3192,3196s,31a0,31c0s,31e" +
      "4,3200s,321f,322as,3248,3250s,3251,3260s,3280,328as,32b1,32c0s,32ff,3300s,3400,4dc0s,4e00,a490s," +
      "a4c7,a4fes,a500,a60ds,a610,a640a,a66e,a66fs,a67f,a680a,a698,a69fs,a6a0,a6f0s,a6f8,a700s,a717,a72" +
      "0s,a722a,a730,a732a,a770,a779a,a77d-8a04,a77ea,a788,a789s,a78b=a78c,a78d-a528,a78e,a790a,a794,a7" +
      "a0a,a7aa-a544,a7ab,a802s,a803,a806s,a807,a80bs,a80c,a823s,a82c,a836s,a83a,a874s,a878,a880s,a882," +
      "a8b4s,a8c5,a8ces,a8d0,a8e0s,a8f2,a8f8s,a8fb,a926s,a930,a947s,a954,a95fs,a960,a980s,a984,a9b3s,a9" +
      "ce,a9des,a9e0,aa29s,aa37,aa43s,aa44,aa4cs,aa4e,aa5cs,aa60,aa77s,aa7a,aa7bs,aa7c,aab0s,aab1,aab2s" +
      ",aab5,aab7s,aab9,aabes,aac0,aac1s,aac2,aades,aae0,aaebs,aaf2,aaf5s,aaf7,abe3s,abee,d800s,e000,fb" +
      "1es,fb1f,fb29s,fb2a,fbb2s,fbc2,fd3es,fd40,fdfcs,fdfe,fe00s,fe1a,fe20s,fe27,fe30s,fe53,fe54s,fe67" +
      ",fe68s,fe6c,feffs,ff00,ff01s,ff10,ff1as,ff21+20,ff3bs,ff41,ff5bs,ff66,ffe0s,ffe7,ffe8s,ffef,fff9" +
      "s,10000,10100s,10103,10137s,10140,10179s,1018a,10190s,1019c,101d0s,101fe,1039fs,103a0,103d0s,103" +
      "d1,10400+28,10428,10857s,10858,1091fs,10920,1093fs,10940,10a01s,10a04,10a05s,10a07,10a0cs,10a10," +
      "10a38s,10a3b,10a3fs,10a40,10a50s,10a59,10a7fs,10a80,10b39s,10b40,11000s,11003,11038s,1104e,11080" +
      "s,11083,110b0s,110c2,11100s,11103,11127s,11135,11140s,11144,11180s,11183,111b3s,111c1,111c5s,111" +
      "c9,116abs,116b8,12470s,12474,16f51s,16f7f,16f8fs,16f93,1d000s,1d0f6,1d100s,1d127,1d129s,1d1de,1d" +
      "200s,1d246,1d300s,1d357,1d6c1s,1d6c2,1d6dbs,1d6dc,1d6fbs,1d6fc,1d715s,1d716,1d735s,1d736,1d74fs," +
      "1d750,1d76fs,1d770,1d789s,1d78a,1d7a9s,1d7aa,1d7c3s,1d7c4,1eef0s,1eef2,1f000s,1f02c,1f030s,1f094" +
      ",1f0a0s,1f0af,1f0b1s,1f0bf,1f0c1s,1f0d0,1f0d1s,1f0e0,1f110s,1f12f,1f130s,1f16c,1f170s,1f19b,1f1e" +
      "6s,1f203,1f210s,1f23b,1f240s,1f249,1f250s,1f252,1f300s,1f321,1f330s,1f336,1f337s,1f37d,1f380s,1f" +
      "394,1f3a0s,1f3c5,1f3c6s,1f3cb,1f3e0s,1f3f1,1f400s,1f43f,1f440s,1f441,1f442s,1f4f8,1f4f9s,1f4fd,1" +
      "f500s,1f53e,1f540s,1f544,1f550s,1f568,1f5fbs,1f641,1f645s,1f650,1f680s,1f6c6,1f700s,1f774,e0001s" +
      ",e0002,e0020s,e0080,e0100s,e01f0";
  }
})();
