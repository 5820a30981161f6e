import Foundation
import GlossContract
import GlossGeometry
import GlossReports
import Testing

/// What the page view renders for a reviewer: the selectable text layer, the face list, the
/// downloads and the info panel, the suspect notice.
struct PageViewTests {
    static func render(_ report: PageReport = SamplePage.report(), links: PageLinks = PageLinks(imagePath: "sample.png"),
                       resolution: Int? = nil) -> String {
        PageView(report: report, links: links, languages: ["eng", "deu"], resolution: resolution).render()
    }

    @Test func theTextLayerHasOneLineOfWordsPerLineStretchedToTheirBoxes() throws {
        let html = Self.render()
        ViewerTests.expectNoInlineCode(html)
        let start = try #require(html.range(of: "<g class=\"layer text\" aria-hidden=\"true\">"))
        let layer = String(html[start.upperBound...]).components(separatedBy: "</g>")[0]
        #expect(layer.components(separatedBy: "<text class=\"tl\">").count - 1 == 4, "one text element per line")
        #expect(layer.components(separatedBy: "<tspan class=\"tw\"").count - 1 == 8, "one tspan per word")
        // "Gloss" sits at x 40 on its line's baseline (46 at its left end, 47 at the right of a
        // 220 px line, taken at the word's middle), 80% as tall as its 20 px line, stretched to its 70 px box.
        #expect(layer.contains("<tspan class=\"tw\" data-i=\"0\" x=\"40\" y=\"46.2\" font-size=\"16\" textLength=\"70\" lengthAdjust=\"spacingAndGlyphs\">Gloss</tspan>"))
        #expect(layer.contains(">&amp;</tspan> <tspan"), "words of a line are separated by a space")
        #expect(layer.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</tspan>\n</text>"),
                "a line ends with a line break, so a copy keeps the lines")
        #expect(layer.contains("<tspan class=\"tw\" data-i=\"7\" x=\"140\""))
    }

    /// The sample page as a file that held it on its side (or upside down), read turned by
    /// `rotation`: its boxes and baselines where they lie in that file.
    static func turned(_ rotation: Int) -> PageReport {
        var report = SamplePage.report()
        let input = rotation % 180 == 0 ? PixelSize(width: report.width, height: report.height)
            : PixelSize(width: report.height, height: report.width)
        let turn = PageTransform(quarterTurns: rotation / 90, inputSize: input)
        func rect(_ box: PixelRect) -> PixelRect {
            let a = turn.inputPixel(ofPrepared: PixelPoint(x: Double(box.x), y: Double(box.y)))
            let b = turn.inputPixel(ofPrepared: PixelPoint(x: Double(box.maxX), y: Double(box.maxY)))
            return PixelRect(x: Int(min(a.x, b.x)), y: Int(min(a.y, b.y)), width: Int(abs(b.x - a.x)), height: Int(abs(b.y - a.y)))
        }
        (report.width, report.height) = (input.width, input.height)
        for index in report.words.indices { report.words[index].box = rect(report.words[index].box) }
        for index in report.lines.indices {
            report.lines[index].box = rect(report.lines[index].box)
            report.lines[index].baseline = report.lines[index].baseline.map {
                PageReport.PixelBaseline(from: turn.inputPixel(ofPrepared: $0.from), to: turn.inputPixel(ofPrepared: $0.to))
            }
        }
        var preparation = PagePreparation()
        preparation.rotation = rotation
        report.preparation = preparation
        return report
    }

    /// A page read turned shows its file as it came: its text is set upright, as read, and the
    /// layer turned onto the picture, so each word's glyphs run along its line (set in the
    /// file's pixels, a line running up the page gave glyphs as tall as the line is long).
    @Test func theTextLayerOfAPageReadTurnedRunsAlongItsLines() throws {
        let upright = Self.render()
        let gloss = "<tspan class=\"tw\" data-i=\"0\" x=\"40\" y=\"46.2\" font-size=\"16\" textLength=\"70\" lengthAdjust=\"spacingAndGlyphs\">Gloss</tspan>"
        #expect(upright.contains("<g class=\"layer text\" aria-hidden=\"true\">") && upright.contains(gloss))
        for (rotation, matrix) in [(90, "0 -1 1 0 0 600"), (180, "-1 0 0 -1 600 400"), (270, "0 1 -1 0 400 0")] {
            let html = Self.render(Self.turned(rotation))
            #expect(html.contains("<g class=\"layer text\" aria-hidden=\"true\" transform=\"matrix(\(matrix))\">"), "\(rotation)")
            #expect(html.contains(gloss), "\(rotation): the word set as on the upright page")
            // The boxes stay where the words are in the file.
            #expect(rotation != 90 || html.contains("id=\"w0\" data-i=\"0\" data-c=\"96.5\" x=\"30\" y=\"490\" width=\"20\" height=\"70\""))
        }
    }

    /// Proofreading: the page's id and version for the corrections the page view sends, the
    /// corrected words marked, who reviewed the page; none of it on a page that takes no corrections.
    @Test func aCorrectablePageCarriesItsIdVersionAndCorrections() {
        var report = SamplePage.report()
        report.words[1].correction = PageReport.Attribution(by: "Ana", at: "2026-12-02T13:00:00Z")
        report.reviewed = PageReport.Attribution(by: "Ana <b>", at: "2026-12-02T13:00:00Z")
        let plain = Self.render(report)
        #expect(!plain.contains("data-version") && !plain.contains("data-page"))
        let html = Self.render(report, links: PageLinks(imagePath: "sample.png", correction: .init(page: "a\"b", version: "0123456789abcdef")))
        #expect(html.contains("<body class=\"page-body\" data-page=\"a&quot;b\" data-version=\"0123456789abcdef\">"))
        #expect(html.contains(" corrected\" id=\"w1\"") && !html.contains(" corrected\" id=\"w0\""), "the corrected word's box is marked")
        #expect(html.contains("<span class=\"w corrected\" data-i=\"1\">"))
        #expect(!html.contains("<span class=\"w corrected\" data-i=\"0\">"))
        #expect(html.contains("<p class=\"reviewed\" id=\"reviewed\">Reviewed by Ana &lt;b&gt;, 2026-12-02T13:00:00Z</p>"))
    }

    @Test func aPageWithoutWordsHasNoTextLayer() {
        var report = SamplePage.report()
        report.words = []
        #expect(!Self.render(report).contains("layer text"))
    }

    @Test func facesAreListedWithCropsConfidenceAndLandmarksAndAreReachable() {
        let html = Self.render()
        #expect(!html.contains("tabindex=\"-1\" aria-label=\"Face"), "no face is out of the tab order")
        #expect(html.contains("<g class=\"face\" id=\"f0\" data-f=\"0\" data-c=\"87.5\" tabindex=\"0\" aria-label=\"Face 1, confidence 87.5%\">"))
        #expect(html.contains("<li class=\"face-item\" data-f=\"0\" data-c=\"87.5\"><button type=\"button\" class=\"face-button\" data-f=\"0\" aria-label=\"Face 1, confidence 87.5%, eyes, mouth (detected and estimated)\">"))
        #expect(html.contains("<svg class=\"crop\" viewBox=\"420 200 120 140\" aria-hidden=\"true\"><image href=\"sample.png\" x=\"0\" y=\"0\" width=\"600\" height=\"400\" preserveAspectRatio=\"none\"/>"),
                "the crop is the display image seen through the face's box")
        #expect(html.contains("<span class=\"face-c\">87.5%</span>"))
        var none = SamplePage.report()
        none.faces = []
        #expect(Self.render(none).contains("<p class=\"empty\">No faces were found.</p>"))
    }

    @Test func theInfoPanelLinksTheOutputsAndTheOriginal() {
        let links = PageLinks(imagePath: "p.png", outputs: ["pdf": "book.pdf", "json": "p.json", "hocr": "p.hocr", "txt": "p.txt"],
                              original: "../../in/a%20b.png")
        let html = Self.render(links: links, resolution: 300)
        #expect(html.contains("<a class=\"original\" href=\"../../in/a%20b.png\">scans/&lt;img src=x onerror=alert(1)&gt;.png</a>"))
        #expect(html.contains("<ul class=\"downloads\"><li><a href=\"p.json\" data-format=\"json\" download>JSON</a></li><li><a href=\"p.hocr\" data-format=\"hocr\" download>hOCR</a></li><li><a href=\"p.txt\" data-format=\"txt\" download>Plain text</a></li><li><a href=\"book.pdf\" data-format=\"pdf\" download>Searchable PDF</a></li></ul>"),
                "outputs in a fixed order, only those written")
        #expect(html.contains("<dt>Size</dt><dd>600 × 400 px</dd>"))
        #expect(html.contains("<dt>Resolution</dt><dd>300 ppi</dd>"))
        #expect(html.contains("<dt>Language</dt><dd>eng+deu</dd>"))
        #expect(html.contains("<details class=\"timing-details\"><summary>Timings</summary><dl class=\"timings\">"),
                "timings are folded away")
        let bare = Self.render()
        #expect(!bare.contains("class=\"downloads\"") && !bare.contains("Resolution") && !bare.contains("class=\"original\""))
    }

    @Test func aSuspectPageSaysHowMuchInkHasNoWords() {
        var report = SamplePage.report()
        #expect(!Self.render(report).contains("class=\"suspect\""))
        report.review = PageReview(suspect: false, uncoveredInk: 0.1)
        #expect(!Self.render(report).contains("class=\"suspect\""))
        report.review = PageReview(suspect: true, uncoveredInk: 0.374)
        #expect(Self.render(report).contains("<p class=\"suspect\" role=\"status\"><strong>Suspect:</strong> Inked areas without words (37% of ink). Text may be missing.</p>"))
        report.review = PageReview(suspect: true, uncoveredInk: 0.374, reasons: ["unread-lines", "readers-disagree"], unreadLines: 0.25)
        #expect(Self.render(report).contains("<strong>Suspect:</strong> Lines of text no reading covers (25% of the lines found);"
                                             + " the two readers read the same lines differently. Text may be missing.</p>"))
    }

    @Test func theOriginalIsLinkedRelativeToThePagesFolder() {
        #expect(PageLinks.link(to: "/data/in/scan 1#a.png", from: "/data/out/pages", workingDirectory: "/") == "../../in/scan%201%23a.png")
        #expect(PageLinks.link(to: "in/a.png", from: "out/pages", workingDirectory: "/work") == "../../in/a.png")
        #expect(PageLinks.link(to: "./in/../in/a.png", from: "/work/out/pages", workingDirectory: "/work") == "../../in/a.png")
        #expect(PageLinks.link(to: "/work/out/a.png", from: "/work/out/pages", workingDirectory: "/") == "../a.png")
        #expect(PageLinks.link(to: "Grüße.png", from: "/w/pages", workingDirectory: "/w") == "../Gr%C3%BC%C3%9Fe.png")
        #expect(PageLinks.link(to: "https://example.org/iiif/1/full/max/0/default.jpg", from: "/o/pages", workingDirectory: "/")
                == "https://example.org/iiif/1/full/max/0/default.jpg")
    }
}
