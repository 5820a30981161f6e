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
        #expect(html.contains("<h1 dir=\"auto\">bad.png · page 3</h1>"))
    }

    @Test func theIndexShowsLazyThumbnailsLabelledCountsAndDownloads() {
        let html = BatchIndexView(entries: [
            BatchIndexView.Entry(source: "/in/a.png", pageIndex: 0, status: .ok, error: nil, wordCount: 1, meanConfidence: 91.25,
                                 faceCount: 2, htmlPath: "pages/a.html", imagePath: "pages/a.png", suspect: true),
        ]).render()
        Self.expectNoInlineCode(html)
        #expect(html.contains("<img src=\"pages/a.png\" alt=\"\" width=\"320\" height=\"320\" loading=\"lazy\" decoding=\"async\">"))
        #expect(html.contains("<span>1 word</span><span>91% mean confidence</span><span>2 faces</span>"))
        #expect(html.contains("<li class=\"card ok suspect\" data-w=\"1\" data-f=\"2\" data-c=\"91.25\" data-d=\"0\">"))
        #expect(html.contains(">suspect</span>"))
        #expect(html.contains("<span class=\"name\" title=\"/in/a.png · page 1\">a.png</span>"), "a single page has no page number")
        #expect(html.contains("<a href=\"gloss.json\"") && html.contains("<a href=\"gloss.sqlite\""))
        #expect(html.contains("<body class=\"index-body\" data-search=\"data/\">"))
        #expect(!html.contains("<select id=\"folder\">"), "one folder needs no folder filter")
        #expect(!html.contains("Not read"))
        // Rounded down: a page of 84.96, under the low-confidence threshold of 85, does not read "85%".
        let low = BatchIndexView(entries: [
            BatchIndexView.Entry(source: "/in/b.png", pageIndex: 0, status: .ok, error: nil, wordCount: 40, meanConfidence: 84.96,
                                 faceCount: 0, htmlPath: "pages/b.html", lowConfidence: true),
        ]).render()
        #expect(low.contains("<span>84% mean confidence</span>"), "\(low)")
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

    @Test func pagesAreGroupedByFolderOrFileInChunksOfAHundred() {
        func entry(_ source: String, page: Int = 0) -> BatchIndexView.Entry {
            BatchIndexView.Entry(source: source, pageIndex: page, status: .ok, error: nil, wordCount: 1,
                                 meanConfidence: 90, faceCount: 0, htmlPath: "pages/p.html")
        }
        let entries = (0..<250).map { entry("/data/in/scans/p\($0).png") }
            + [entry("/data/in/photos/a.jpg"), entry("/data/in/scans/book.tif"), entry("/data/in/scans/book.tif", page: 1),
               entry("/data/in/scans/q.png")]
        let html = BatchIndexView(entries: entries).render()
        let headings = html.components(separatedBy: "<h3>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(headings == ["scans/ ", "photos/ ", "scans/book.tif "])
        #expect(html.contains("<h3>scans/ <span class=\"count\">251 pages</span></h3>"))
        let chunks = html.components(separatedBy: "<ol class=\"grid chunk ").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(chunks == ["rows-17", "rows-17", "rows-9", "rows-1", "rows-1"])
        #expect(html.components(separatedBy: "<li class=\"card").count - 1 == 254, "every page has its card")
        #expect(html.contains("<span class=\"path\">scans/<wbr></span>p7.png</span>"))
        #expect(html.contains("<span class=\"path\">scans/<wbr></span>book.tif · page 2</span>"))
        #expect(html.contains("<select id=\"folder\"><option value=\"\">All folders</option><option value=\"0\">scans/</option><option value=\"1\">photos/</option></select>"))
        #expect(html.contains("data-d=\"1\"><a href=\"pages/p.html\"><span class=\"thumb\"><span class=\"no-image\">no image</span></span><span class=\"name\" title=\"/data/in/photos/a.jpg · page 1\">"))
    }

    @Test func fiveThousandPagesRenderInChunks() {
        let entries = (0..<5_000).map {
            BatchIndexView.Entry(source: "/batch/folder\($0 / 1_000)/p\($0).png", pageIndex: 0, status: .ok, error: nil,
                                 wordCount: $0, meanConfidence: 90, faceCount: 0, htmlPath: "pages/p\($0).html",
                                 imagePath: "pages/p\($0).png")
        }
        let html = BatchIndexView(entries: entries).render()
        #expect(html.components(separatedBy: "<section class=\"group\">").count - 1 == 5)
        #expect(html.components(separatedBy: "<ol class=\"grid chunk rows-17\">").count - 1 == 50)
        #expect(html.components(separatedBy: "loading=\"lazy\"").count - 1 == 5_000)
    }

    @Test func sourcesAreNamedRelativeToTheFolderTheyShare() {
        let names = SourceNames(pages: [("/home/ana/scans/2024/a.png", 0), ("/home/ana/scans/b.tif", 0), ("/home/ana/scans/b.tif", 1),
                                        ("https://example.org/iiif/c.jpg?size=full#x", 0), ("/home/ana/scans/d.tif", 1)])
        #expect(names.name(of: "/home/ana/scans/2024/a.png") == "2024/a.png")
        #expect(names.title(source: "/home/ana/scans/2024/a.png", pageIndex: 0) == "2024/a.png")
        #expect(names.title(source: "/home/ana/scans/b.tif", pageIndex: 1) == "b.tif · page 2")
        #expect(names.title(source: "/home/ana/scans/d.tif", pageIndex: 1) == "d.tif · page 2", "a later page of a file is numbered")
        #expect(names.folder(of: "/home/ana/scans/b.tif") == "scans/")
        #expect(names.folder(of: "/home/ana/scans/2024/a.png") == "2024/")
        #expect(names.name(of: "https://example.org/iiif/c.jpg?size=full#x") == "example.org/iiif/c.jpg")
        #expect(names.folder(of: "https://example.org/iiif/c.jpg?size=full#x") == "example.org/iiif/")
        let one = SourceNames(pages: [("/tmp/in/only.png", 0)])
        #expect(one.title(source: "/tmp/in/only.png", pageIndex: 0) == "only.png")
        #expect(one.folder(of: "/tmp/in/only.png") == "in/")
        #expect(SourceNames(pages: [("/a.png", 0)]).folder(of: "/a.png") == "/")
        // An address is one whatever its scheme's case, as the fetcher reads it: it does not
        // join the files' shared folder, which stays scans/.
        let mixed = SourceNames(pages: [("/home/ana/scans/a.png", 0), ("/home/ana/scans/b.png", 0), ("HTTPS://example.org/x/c.jpg", 0)])
        #expect(mixed.name(of: "HTTPS://example.org/x/c.jpg") == "example.org/x/c.jpg")
        #expect(mixed.name(of: "/home/ana/scans/a.png") == "a.png")
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
