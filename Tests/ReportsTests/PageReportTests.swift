import Foundation
import GlossContract
import GlossGeometry
import GlossReports
import Testing

struct PageReportTests {
    /// A 200x100 page with one line of two words, in the normalised currency.
    static let text: RecognizedText = {
        let size = PixelSize(width: 200, height: 100)
        func box(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> NormalizedRect {
            NormalizedRect(PixelRect(x: x, y: y, width: w, height: h), in: size)
        }
        let words = [
            RecognizedWord(text: "Hello", box: box(10, 20, 50, 15), confidence: 96.123),
            RecognizedWord(text: "</script><script>alert(1)</script>", box: box(70, 20, 100, 15), confidence: 42),
        ]
        let baseline = Baseline(start: NormalizedPoint(PixelPoint(x: 10, y: 33), in: size),
                                end: NormalizedPoint(PixelPoint(x: 170, y: 33), in: size))
        let line = TextLine(box: box(10, 20, 160, 15), baseline: baseline, words: words)
        let paragraph = TextParagraph(box: line.box, lines: [line])
        return RecognizedText(blocks: [TextBlock(box: line.box, paragraphs: [paragraph])])
    }()

    static func report() -> PageReport {
        var timings = StageTimings()
        timings.record("decode", .milliseconds(12))
        timings.record("ocr", .microseconds(4_210_540))
        return PageReport(source: "scans/a.png", pageIndex: 0, size: PixelSize(width: 200, height: 100),
                          text: text, timings: timings)
    }

    @Test func boxesArePagePixelsWithATopLeftOrigin() {
        let report = Self.report()
        #expect(report.words.map(\.box) == [PixelRect(x: 10, y: 20, width: 50, height: 15),
                                            PixelRect(x: 70, y: 20, width: 100, height: 15)])
        #expect(report.lines[0].baseline?.from == PixelPoint(x: 10, y: 33))
        #expect(report.words[0].confidence == 96.12)
        #expect(report.text == "Hello </script><script>alert(1)</script>")
    }

    @Test func jsonFollowsTheContract() throws {
        let bytes = try JSONOutput.encode(Self.report())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(Set(object.keys) == ["source", "pageIndex", "width", "height", "status", "error", "text",
                                     "words", "lines", "paragraphs", "blocks", "faces", "regions", "timings", "timeline"])
        #expect(object["error"] is NSNull)
        #expect(object["status"] as? String == "ok")
        let word = try #require((object["words"] as? [[String: Any]])?.first)
        #expect(word["box"] as? [String: Int] == ["x": 10, "y": 20, "width": 50, "height": 15])
        #expect(object["timings"] as? [String: Double] == ["decode": 12, "ocr": 4210.5])
        #expect(try JSONOutput.decode(PageReport.self, from: bytes) == Self.report())
    }

    @Test func aFailedPageSaysWhy() throws {
        let failed = PageReport(source: "bad.png", pageIndex: 0, status: .failed, error: "bad.png: file is empty")
        let object = try JSONSerialization.jsonObject(with: Data(try JSONOutput.encode(failed))) as? [String: Any]
        #expect(object?["status"] as? String == "failed")
        #expect(object?["error"] as? String == "bad.png: file is empty")
    }
}

struct HTMLTests {
    @Test(arguments: [
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("</script><script>alert(1)</script>", "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("\"quoted\" & 'single'", "&quot;quoted&quot; &amp; &#39;single&#39;"),
        ("bell\u{7}", "bell\u{FFFD}"),
        ("Grüße — 東京", "Grüße — 東京"),
    ])
    func escapesForTextAndAttributes(raw: String, escaped: String) {
        #expect(HTML(escaping: raw).rendered == escaped)
    }

    @Test func thePageViewDrawsEveryWordWhereItIsAndEscapesItsText() {
        var report = PageReportTests.report()
        report.source = "<img src=x onerror=alert(1)>.png"
        let html = PageView(report: report, imagePath: "a\".png").render()
        #expect(html.contains("viewBox=\"0 0 200 100\""))
        #expect(html.contains("<rect class=\"word high\" id=\"w0\" data-i=\"0\" data-c=\"96.12\" x=\"10\" y=\"20\" width=\"50\" height=\"15\" tabindex=\"0\" aria-label=\"Hello, 96.1%\"/>"))
        #expect(html.contains("<rect class=\"word low\" id=\"w1\" data-i=\"1\" data-c=\"42\" x=\"70\" y=\"20\" width=\"100\" height=\"15\""))
        #expect(html.contains("href=\"a&quot;.png\""))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;.png"))
        #expect(html.contains("Content-Security-Policy"))
    }

    @Test func theIndexListsFailuresWithTheirReason() {
        let entries = [
            BatchIndexView.Entry(source: "a.png", pageIndex: 0, status: .ok, error: nil, wordCount: 12,
                                 meanConfidence: 91.25, faceCount: 0, htmlPath: "pages/a.html"),
            BatchIndexView.Entry(source: "<b>.png", pageIndex: 0, status: .failed, error: "<b>.png: file is empty",
                                 wordCount: 0, meanConfidence: nil, faceCount: 0, htmlPath: nil),
        ]
        let html = BatchIndexView(entries: entries).render()
        #expect(html.contains("<a href=\"pages/a.html\"><span class=\"thumb\"><span class=\"no-image\">no image</span></span><span class=\"name\" title=\"a.png · page 1\">a.png</span></a>"))
        #expect(html.contains("<strong title=\"&lt;b&gt;.png · page 1\">&lt;b&gt;.png</strong>"))
        #expect(html.contains("&lt;b&gt;.png: file is empty"))
        #expect(html.contains("<h2>Not read (1)</h2>"))
        #expect(html.contains("2 pages · 1 not read · 12 words · 0 faces"))
        #expect(!html.contains("<b>"))
        // Pages a stop cancelled are counted apart in the list's heading too, as in the summary.
        let stopped = entries + ["c.png", "d.png"].map {
            BatchIndexView.Entry(source: $0, pageIndex: 0, status: .cancelled, error: "\($0): cancelled", wordCount: 0,
                                 meanConfidence: nil, faceCount: 0, htmlPath: nil)
        }
        let both = BatchIndexView(entries: stopped).render()
        #expect(both.contains("4 pages · 1 not read · 2 cancelled") && both.contains("<h2>Not read (1), cancelled (2)</h2>"))
        #expect(BatchIndexView(entries: Array(stopped.suffix(2))).render().contains("<h2>Cancelled (2)</h2>"))
    }
}
