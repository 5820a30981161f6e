import Foundation
import GlossContract
import GlossReports
import Testing

/// The page view, index, search data and assets: safe against any text, and free of inline code
/// so the Content-Security-Policy can forbid it.
struct ViewerTests {
    static let hostile = [
        "</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\u{2028}\u{2029}",
        "\"'\\", "<!-- -->", "&amp;", "]]>", "\u{0}\u{1B}",
    ]

    /// Markup must not carry code: no inline script, no handler attribute, no javascript: URL.
    static func expectNoInlineCode(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.components(separatedBy: "<script").dropFirst().allSatisfy { $0.hasPrefix(" src=") },
                "every script element loads a file", sourceLocation: sourceLocation)
        #expect(!tags(of: html).contains { $0.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) != nil },
                "no handler attribute", sourceLocation: sourceLocation)
        #expect(!html.lowercased().contains("javascript:"), sourceLocation: sourceLocation)
        #expect(!html.contains("style=\""), "no style attribute", sourceLocation: sourceLocation)
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;none&#39;; script-src &#39;self&#39;;"),
                sourceLocation: sourceLocation)
    }

    /// Every start tag with its quoted attribute values removed: what is left are names.
    static func tags(of html: String) -> [String] {
        var tags: [String] = []
        var rest = html[...]
        while let open = rest.range(of: #"<[a-zA-Z][^>]*>"#, options: .regularExpression) {
            tags.append(String(rest[open]).replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression))
            rest = rest[open.upperBound...]
        }
        return tags
    }

    @Test func thePageViewHasLayersTextAndTimingsAndNoInlineCode() throws {
        let html = PageView(report: SamplePage.report(), links: PageLinks(imagePath: "sample.png")).render()
        Self.expectNoInlineCode(html)
        #expect(html.contains("<svg class=\"page\" id=\"page-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 600 400\""))
        #expect(html.contains("<image href=\"sample.png\" x=\"0\" y=\"0\" width=\"600\" height=\"400\" preserveAspectRatio=\"none\"/>"))
        for layer in ["words", "lines", "blocks", "faces"] { #expect(html.contains("<g class=\"layer \(layer)\">")) }
        #expect(html.contains("<circle class=\"landmark eye detected\" cx=\"455\" cy=\"250\""))
        #expect(html.contains("<circle class=\"landmark mouth estimated\""))
        #expect(html.contains("<span class=\"w\" data-i=\"3\">&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</span>"))
        #expect(html.contains("<dt>ocr</dt><dd>1234.6 ms</dd>"))
        #expect(html.contains("<script src=\"../data/pages.js\" defer></script>"))
        #expect(html.contains("<link rel=\"stylesheet\" href=\"../assets/gloss.css\">"))
        #expect(!html.contains("<img src=x"))
    }

    @Test func everyHostileStringIsEscapedInThePageAndTheIndex() {
        for text in Self.hostile {
            var report = SamplePage.report(source: text + ".png")
            report.words[0].text = text
            report.error = text
            report.status = .failed
            let page = PageView(report: report, links: PageLinks(imagePath: text + ".png", indexPath: text)).render()
            let index = BatchIndexView(entries: [
                BatchIndexView.Entry(source: text, pageIndex: 0, status: .failed, error: text, wordCount: 1,
                                     meanConfidence: 50, faceCount: 0, htmlPath: text, imagePath: text)
            ]).render()
            for html in [page, index] {
                Self.expectNoInlineCode(html)
                #expect(!html.contains("<img src=x"))
                #expect(!html.contains("</script><script>alert"))
                #expect(!html.contains("\u{0}"))
            }
        }
    }

    @Test func aFailedPageShowsItsErrorAndNoImage() {
        let failed = PageReport(source: "bad.png", pageIndex: 2, status: .timedOut, error: "bad.png page 3: took too long")
        let html = PageView(report: failed, links: PageLinks()).render()
        #expect(html.contains("<p class=\"error\" role=\"alert\"><strong>timedOut</strong> bad.png page 3: took too long</p>"))
        #expect(html.contains("<p class=\"empty\">No image.</p>"))
        #expect(html.contains("<h1>bad.png · page 3</h1>"))
    }

    @Test func theIndexShowsThumbnailsAndCounts() {
        let html = BatchIndexView(entries: [
            BatchIndexView.Entry(source: "a.png", pageIndex: 0, status: .ok, error: nil, wordCount: 1, meanConfidence: 91.25,
                                 faceCount: 2, htmlPath: "pages/a.html", imagePath: "pages/a.png"),
        ]).render()
        Self.expectNoInlineCode(html)
        #expect(html.contains("<img src=\"pages/a.png\" alt=\"\" loading=\"lazy\" decoding=\"async\">"))
        #expect(html.contains("<span>1 word</span><span>91.3%</span><span>2 faces</span>"))
        #expect(html.contains("<body class=\"index-body\" data-search=\"data/\">"))
        #expect(!html.contains("Not read"))
    }

    @Test func theTotalIsTheWallTimeWhenStagesOverlap() {
        var timings = StageTimings()
        timings.record("decode", .milliseconds(10))
        timings.record("ocr", .milliseconds(100))
        timings.record("faces", .milliseconds(80))
        var report = PageReport(source: "a.png", pageIndex: 0, status: .ok, error: "", timings: timings)
        report.error = nil
        #expect(PageView(report: report, imagePath: nil).render().contains("<dt>total</dt><dd>190 ms</dd>"))
        report.timeline = [StageSpan(stage: "decode", start: 0, end: 10), StageSpan(stage: "ocr", start: 10, end: 110),
                           StageSpan(stage: "faces", start: 10.5, end: 90.5)]
        #expect(PageView(report: report, imagePath: nil).render().contains("<dt>total</dt><dd>110 ms</dd>"))
    }

    @Test func aLongBatchIsShownInGroupsOfAHundred() {
        let entries = (0..<250).map {
            BatchIndexView.Entry(source: "p\($0).png", pageIndex: 0, status: .ok, error: nil, wordCount: 1,
                                 meanConfidence: 90, faceCount: 0, htmlPath: "pages/p\($0).html")
        }
        let html = BatchIndexView(entries: entries).render()
        #expect(html.components(separatedBy: "<div class=\"group\">").count - 1 == 3)
        #expect(html.contains("<h3>Pages 101–200</h3>") && html.contains("<h3>Pages 201–250</h3>"))
        #expect(html.components(separatedBy: "href=\"pages/p").count - 1 == 250, "every page has its card")
        let short = BatchIndexView(entries: Array(entries.prefix(100))).render()
        #expect(!short.contains("<h3>Pages"), "one group needs no heading")
    }

    // MARK: search data

    @Test func searchShardsAreValidScriptsWhateverTheText() throws {
        let pages = Self.hostile.enumerated().map { index, text in
            SearchablePage(htmlPath: index == 0 ? nil : "pages/\(index).html", title: text, text: "before " + text + " after",
                           terms: ["before", text, "after"])
        }
        let files = BatchData.files(for: [], searching: pages, shardSize: 40)
        #expect(files.first?.path == "data/pages.js")
        let shards = files.dropFirst()
        #expect(shards.map(\.path).first == "data/search-0000.js")
        #expect(shards.count > 1)
        var found: [String] = []
        for (index, shard) in shards.enumerated() {
            let script = String(decoding: shard.bytes, as: UTF8.self)
            // Nothing that could end a script element or a JavaScript line, raw.
            for raw in ["<", ">", "&", "'", "\u{2028}", "\u{2029}", "\u{0}"] { #expect(!script.contains(raw)) }
            let prefix = "glossSearchShard(\(index), \(shards.count), "
            #expect(script.hasPrefix(prefix) && script.hasSuffix(");\n"))
            // The arguments are JSON, so JSON's parser reads back exactly what was written.
            let json = script.dropFirst(prefix.count).dropLast(3)
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]])
            for entry in entries {
                #expect(entry.count == 4)
                found.append(entry[2] as? String ?? "?")
                found.append(entry[3] as? String ?? "?")
            }
            if index == 0 { #expect(entries.first?.first is NSNull, "a page without HTML has a null path") }
        }
        #expect(found == pages.flatMap { [$0.text, $0.terms.joined(separator: " ")] })
    }

    @Test func thePageOrderListsEveryPageInOrder() throws {
        let pages = [BatchPage(htmlPath: "pages/a.html", title: "a </script>"), BatchPage(htmlPath: "pages/b.html", title: "b")]
        let script = String(decoding: BatchData.files(for: pages, searching: [])[0].bytes, as: UTF8.self)
        #expect(script.hasPrefix("window.glossPages = ["))
        let json = script.dropFirst("window.glossPages = ".count).dropLast(2)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String]])
        #expect(entries == [["pages/a.html", "a </script>"], ["pages/b.html", "b"]])
        #expect(!script.contains("</script>"))
    }

    @Test func anEmptyBatchStillHasOneShard() {
        #expect(BatchData.files(for: [], searching: []).map(\.path) == ["data/pages.js", "data/search-0000.js"])
    }

    @Test func theAssetsAreTheScriptsAndStylesheetThePagesLinkTo() {
        let files = ReportAssets.files
        #expect(files.map(\.path) == ["assets/gloss.css", "assets/page.js", "assets/index.js"])
        #expect(files.allSatisfy { $0.bytes.count > 500 })
        let pageScript = String(decoding: files[1].bytes, as: UTF8.self)
        // The scripts build text with textContent, never with markup.
        #expect(!pageScript.contains("innerHTML") && !pageScript.contains("eval("))
        #expect(!String(decoding: files[2].bytes, as: UTF8.self).contains("innerHTML"))
    }
}
