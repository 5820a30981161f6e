import Foundation
import GlossContract
import GlossPDFGraft
import GlossPipeline
import GlossTestSupport
import Testing

/// A PDF input's searchable PDF through the `gloss` binary: the input with Gloss's text layer
/// grafted on. Checked with qpdf and poppler-utils on real PDFs: OCRmyPDF's test resources
/// (a JPEG scan, a JBIG2 page, a CCITT page) and fixtures of Gloss's own (a turned and cropped
/// page, bookmarks and annotations over a vector page, an encrypted and a signed file).
@Suite(.serialized)
struct PDFGraftCommandTests {
    static let grafted = ["ocrmypdf/c02-22.pdf", "ocrmypdf/jbig2.pdf", "ocrmypdf/ccitt.pdf", "pdf/turned.pdf", "pdf/open-save.pdf",
                          "pdf/outline-annotation.pdf"]

    /// One batch of every fixture; the checks below read it.
    @Test func theInputKeptWithGlossTextLayer() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let refused = ["bad/owner-encrypted.pdf", "bad/signed.pdf"]
        let run = try Gloss.run(["annotate"] + (Self.grafted + refused).map(Fixtures.path)
            + ["-o", output, "--no-faces", "--format", "json,pdf,txt", "--quiet"])
        #expect(run.status == 1, "the encrypted and signed files fail")
        // An input that cannot be PDF/A-2b (Helvetica not embedded) is grafted without the claim, and says so.
        let problems = Gloss.problems(in: run.standardError).filter { !$0.contains(": not made PDF/A-2b: ") }
        #expect(problems.contains { $0.contains("owner-encrypted.pdf: encrypted: Gloss does not graft a text layer onto an encrypted PDF") },
                "\(run.standardError)")
        #expect(problems.contains { $0.contains("signed.pdf: signed: grafting a text layer would invalidate") }, "\(run.standardError)")
        #expect(problems.allSatisfy { $0.contains("owner-encrypted.pdf") || $0.contains("signed.pdf") }, "\(run.standardError)")

        let manifest = try PDFInputTests.manifest(output)
        for name in Self.grafted {
            let input = Fixtures.path(name)
            let entries = manifest.pages.filter { $0.source == input }.sorted { $0.pageIndex < $1.pageIndex }
            #expect(!entries.isEmpty && entries.allSatisfy { $0.status == .ok }, "\(name)")
            let documentLink = try #require(entries.first?.outputs["document"])
            // documents/ mirrors the inputs below their common folder, fixtures/.
            #expect(documentLink == "documents/" + name)
            let document = output + "/" + documentLink
            let reports = try entries.map { try PDFInputTests.report($0, in: output) }

            // The input as it was: every stream's bytes (images, the pages' own content, fonts)
            // are in the output, the annotations and bookmarks too; qpdf finds no fault. The XMP
            // metadata is written anew when the output is made PDF/A-2b.
            let before = try PDFStructure(input), after = try PDFStructure(document)
            #expect(Set(before.contentDataBesideMetadata).subtracting(after.contentData).isEmpty, "\(name)")
            #expect(after.imageData == before.imageData, "\(name)")
            #expect(after.annotationSubtypes == before.annotationSubtypes, "\(name)")
            #expect(after.bookmarkTitles == before.bookmarkTitles, "\(name)")
            _ = try PDFStructure.run("qpdf", ["--check", document])

            // Gloss's words, each within 3 pixels of its box at the page's resolution.
            // pdftotext -cropbox: points from the shown crop box's top left, as Gloss's pixels are.
            let pages = try PDFCommandTests.words(inPDF: document, options: ["-bbox", "-cropbox"])
            #expect(pages.count == reports.count)
            let inspected = try PDFGraft.inspect(input)
            for (report, page) in zip(reports, pages) where !inspected.text[report.pageIndex].contains(.visible) {
                // pdftotext's page width is the unturned crop box's: the scale comes from the page as shown.
                let scale = Double(report.width) / inspected.pages[report.pageIndex].shownSize.width
                let words = report.words.filter { !$0.text.isEmpty }
                let placed = words.filter { word in
                    page.words.contains { found in
                        found.text == word.text && abs(found.xMin * scale - Double(word.box.x)) <= 3
                            && abs(found.xMax * scale - Double(word.box.maxX)) <= 3
                            && found.yMin * scale <= Double(word.box.y) + 3 && found.yMax * scale >= Double(word.box.maxY) - 3
                    }
                }
                #expect(words.count > 3, "\(name) page \(report.pageIndex + 1)")
                // (A page of visible text is left out: pdftotext drops text drawn again over the
                // same text, as it does fake bold; the modes' test finds the layer there.)
                #expect(placed.count == words.count,
                        "\(name) page \(report.pageIndex + 1): \(Set(words.map { $0.text }).subtracting(placed.map { $0.text }).sorted())")
            }

            // pages/<id>.pdf is the same file; the text beside it has every page, split by form feeds.
            #expect(FileManager.default.contents(atPath: output + "/" + entries[0].outputs["pdf"]!) == FileManager.default.contents(atPath: document))
            let text = try String(contentsOfFile: output + "/" + entries[0].outputs["documentText"]!, encoding: .utf8)
            #expect(text.components(separatedBy: "\u{0C}").count == entries.count)
            #expect(text.components(separatedBy: "\u{0C}").map { $0.trimmingCharacters(in: .newlines) } == reports.map { $0.text })
        }
        // The turned page is shown as it was: pdftoppm draws the same pixels.
        let turned = output + "/documents/pdf/turned.pdf"
        for page in ["1", "2"] {
            let drawn = try [Fixtures.path("pdf/turned.pdf"), turned].enumerated().map { index, path in
                let root = scratch.path + "/drawn-\(index)-\(page)"
                _ = try PDFStructure.run("pdftoppm", ["-r", "50", "-gray", "-singlefile", "-f", page, "-l", page, path, root])
                return try #require(FileManager.default.contents(atPath: root + ".pgm"))
            }
            #expect(drawn[0] == drawn[1], "page \(page)")
        }
    }

    /// Each `--pdf-mode` on the three kinds of page: pixels alone (`pdf/scanned.pdf`), a scan
    /// under an OCR tool's invisible text and a page of visible vector text (`pdf/text-layer.pdf`).
    @Test(arguments: PDFMode.allCases)
    func pdfModes(mode: PDFMode) throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let inputs = ["pdf/text-layer.pdf", "pdf/scanned.pdf"].map(Fixtures.path)
        let run = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces", "--format", "json,pdf", "--quiet",
                                                         "--pdf-mode", mode.rawValue])
        #expect(run.status == 0, "\(run.standardError)")
        let manifest = try PDFInputTests.manifest(output)
        func pages(of input: String) throws -> [(report: PageReport, document: String)] {
            try manifest.pages.filter { $0.source == input }.sorted { $0.pageIndex < $1.pageIndex }.map {
                (try PDFInputTests.report($0, in: output), output + "/" + $0.outputs["document"]!)
            }
        }
        func wordCount(_ path: String, page: Int) throws -> Int {
            try PDFStructure.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", path, "-"]).split(whereSeparator: \.isWhitespace).count
        }
        func text(_ path: String, page: Int) throws -> String {
            try PDFStructure.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", path, "-"])
        }
        let layered = try pages(of: inputs[0]), scans = try pages(of: inputs[1])
        let source = inputs[0], document = layered[0].document
        let (oldOCR, vector) = (layered[0].report, layered[1].report)
        let shown = try PDFGraft.inspect(document).text

        // Pixels alone: read and searchable in every mode, one word of the PDF per word read.
        for (index, scan) in scans.enumerated() {
            #expect(scan.report.timings["ocr"] != nil)
            #expect(try wordCount(scan.document, page: index + 1) == scan.report.words.count)
        }
        switch mode {
        case .skip:
            // Both pages keep their text and are not read: the document's pages are the input's.
            #expect(oldOCR.timings["ocr"] == nil && vector.timings["ocr"] == nil)
            #expect(try text(document, page: 1) == text(source, page: 1))
            #expect(try text(document, page: 2) == text(source, page: 2))
            #expect(shown == [.invisible, .visible])
        case .redo:
            // The old invisible text is replaced by Gloss's reading; the visible text is kept, unread.
            #expect(oldOCR.timings["ocr"] != nil && vector.timings["ocr"] == nil)
            #expect(try wordCount(document, page: 1) == oldOCR.words.count)
            #expect(try text(document, page: 2) == text(source, page: 2))
            #expect(shown == [.invisible, .visible], "Gloss's layer on page 1, none on page 2")
        case .force:
            // Every page read: the old invisible text replaced, the visible text kept under the new layer.
            #expect(oldOCR.timings["ocr"] != nil && vector.timings["ocr"] != nil)
            #expect(try wordCount(document, page: 1) == oldOCR.words.count)
            #expect(shown == [.invisible, [.visible, .invisible]], "Gloss's layer on both pages")
            #expect(try text(document, page: 2) == text(source, page: 2), "pdftotext drops text drawn over the same text")
        }
    }
}
