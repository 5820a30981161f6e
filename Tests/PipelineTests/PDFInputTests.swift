import Foundation
import GlossContract
import GlossGeometry
import GlossPipeline
import GlossTestSupport
import Testing

/// PDF inputs through the `gloss` binary: each page a page of the batch, read by OCR or kept
/// from its text layer (`--skip-text`), broken PDFs failing alone, and a second run skipping
/// the pages the first finished.
@Suite(.serialized)
struct PDFInputTests {
    static func manifest(_ folder: String) throws -> BatchManifest {
        try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/gloss.json"))))
    }

    static func report(_ entry: ManifestEntry, in folder: String) throws -> PageReport {
        try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + entry.outputs["json"]!))))
    }

    static let bad = ["encrypted", "truncated", "garbage", "zero-pages", "huge-page", "million-pages"]

    /// One batch of the two good PDFs, every bad one and a PNG, in every format the issue names;
    /// then the same run again.
    @Test func aBatchOfPDFsAndImagesEndToEnd() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let inputs = [Fixtures.path("pdf/scanned.pdf"), Fixtures.path("pdf/text-layer.pdf"), Fixtures.path("text/mono.png")]
            + Self.bad.map { Fixtures.path("bad/\($0).pdf") }
        let run = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces", "--format", "html,json,pdf,iiif", "--iiif-base", "https://archive.example/b/"])
        #expect(run.status == 1, "some inputs are broken")

        // Each broken PDF: one line naming it, and one failed page.
        // (A good PDF that cannot be PDF/A-2b is grafted without the claim and says so: not a failure.)
        let errorLines = Gloss.problems(in: run.standardError).filter { !$0.contains(": not made PDF/A-2b: ") }
        #expect(errorLines.count == Self.bad.count, "\(run.standardError)")
        for name in Self.bad {
            #expect(errorLines.filter { $0.contains("bad/\(name).pdf:") }.count == 1, "\(name): \(run.standardError)")
        }
        #expect(errorLines.contains { $0.contains("encrypted.pdf: encrypted: Gloss cannot read password-protected PDFs") })
        #expect(errorLines.contains { $0.contains("huge-page.pdf: image is 60000x60000") })

        let manifest = try Self.manifest(output)
        let pages = manifest.pages
        #expect(pages.count == 5 + Self.bad.count)
        #expect(pages.filter { $0.status == .ok }.count == 5)
        #expect(pages.filter { $0.status == .failed }.map { ($0.source as NSString).lastPathComponent }.sorted()
            == Self.bad.map { $0 + ".pdf" }.sorted())

        // The scanned PDF: its pages at the scans' size, read by OCR as well as the PNGs are.
        let scanned = pages.filter { $0.source.hasSuffix("scanned.pdf") }.sorted { $0.pageIndex < $1.pageIndex }
        #expect(scanned.count == 2)
        let truths = try Fixtures.truth("text/sans.json") + Fixtures.truth("text/serif.json")
        for (entry, truth) in zip(scanned, truths) {
            let report = try Self.report(entry, in: output)
            #expect(report.size == .init(width: truth.width, height: truth.height))
            #expect(report.existingText == nil)
            #expect(report.timings["ocr"] != nil)
            let accuracy = characterAccuracy(report.text, expected: truth.text)
            #expect(accuracy > 0.95, "page \(entry.pageIndex + 1): \(accuracy)")
            #expect(Set(entry.outputs.keys) == ["json", "html", "image", "thumbnail", "pdf", "document"])
        }

        // The PDF with a text layer: reported, and read by OCR all the same (no --skip-text).
        let layered = pages.filter { $0.source.hasSuffix("text-layer.pdf") }.sorted { $0.pageIndex < $1.pageIndex }
        let first = try Self.report(layered[0], in: output), second = try Self.report(layered[1], in: output)
        #expect(first.existingText?.contains("Seven cargo ships") == true)
        #expect(first.timings["ocr"] != nil)
        #expect(second.existingText?.contains("Gloss reads the text layer") == true)
        #expect(second.size == .init(width: 1200, height: 600), "a page of vector text at 300 ppi")

        // The searchable PDF of a PDF input: its pages back, with a text layer of what was read.
        let pdf = try #require(scanned[0].outputs["pdf"])
        let info = try Tool.run("pdfinfo", [output + "/" + pdf])
        #expect(info.contains("Pages:           2\n"), "\(info)")
        let text = try Tool.run("pdftotext", [output + "/" + pdf, "-"])
        #expect(text.contains("harbour") && text.contains("Rivers"), "\(text)")

        // The index names the PDF's pages by its file; the IIIF manifest has a canvas for each.
        let search = try Gloss.run(["search", output, "harbour"])
        #expect(search.status == 0)
        #expect(search.standardOutput.contains("scanned.pdf"), "\(search.standardOutput)")
        let iiif = try String(contentsOfFile: output + "/iiif/manifest.json", encoding: .utf8)
        #expect(iiif.contains("scanned.pdf"))

        // Again: every finished page skipped, the broken ones read again and failing again.
        let rerun = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces", "--format", "html,json,pdf,iiif", "--iiif-base", "https://archive.example/b/"])
        #expect(rerun.status == 1)
        #expect(!rerun.standardError.contains("gloss: ok "), "\(rerun.standardError)")
        #expect(try Self.manifest(output).pages.filter { $0.status == .ok }.count == 5)
    }

    /// `--skip-text`: a page with a text layer keeps its words and boxes, and no OCR runs on it.
    @Test func skipTextKeepsTheTextLayerAndRunsNoOCR() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", Fixtures.path("pdf/text-layer.pdf"), Fixtures.path("pdf/scanned.pdf"),
                                 "-o", output, "--no-faces", "--format", "json,hocr,pdf", "--skip-text"])
        #expect(run.status == 0, "\(run.standardError)")
        let pages = try Self.manifest(output).pages
        let layered = pages.filter { $0.source.hasSuffix("text-layer.pdf") }.sorted { $0.pageIndex < $1.pageIndex }
        let first = try Self.report(layered[0], in: output)
        let truth = try Fixtures.truth("text/sans.json")[0]
        #expect(first.words.map(\.text) == truth.words.map(\.text))
        #expect(first.words.allSatisfy { $0.confidence == 100 })
        for (word, expected) in zip(first.words, truth.words) {
            let centre = (x: word.box.x + word.box.width / 2, y: word.box.y + word.box.height / 2)
            #expect(centre.x > expected.box.x && centre.x < expected.box.x + expected.box.width, "\(word.text)")
            #expect(centre.y > expected.box.y - 8 && centre.y < expected.box.y + expected.box.height + 8, "\(word.text)")
        }
        #expect(first.timings["ocr"] == nil, "\(first.timings)")
        let second = try Self.report(layered[1], in: output)
        #expect(second.lines.map(\.text) == ["Gloss reads the text layer", "of PDF pages 2026"])
        #expect(second.timings["ocr"] == nil)

        // The kept words reach the other outputs: hOCR and the searchable PDF.
        let hocr = try String(contentsOfFile: output + "/" + layered[0].outputs["hocr"]!, encoding: .utf8)
        #expect(hocr.contains(">harbour<"))
        let text = try Tool.run("pdftotext", [output + "/" + layered[0].outputs["pdf"]!, "-"])
        #expect(text.contains("Gloss reads the text layer"), "\(text)")

        // A scanned page has no text layer: OCR reads it as before.
        let scan = try Self.report(pages.first { $0.source.hasSuffix("scanned.pdf") }!, in: output)
        #expect(scan.timings["ocr"] != nil)
        #expect(scan.words.count > 30)

        // --skip-text is in the fingerprint: without it, the pages are read again.
        let again = try Gloss.run(["annotate", Fixtures.path("pdf/text-layer.pdf"), "-o", output, "--no-faces",
                                   "--format", "json,hocr,pdf"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardError.contains("gloss: ok "), "\(again.standardError)")
    }

    /// `--skip-text` keeps a right-to-left text layer: the Hebrew word is one word, not OCR's guess.
    @Test func skipTextKeepsARightToLeftTextLayer() throws {
        let run = try Gloss.run(["ocr", Fixtures.path("pdf/hebrew.pdf"), "--skip-text"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONOutput.decode(PageReport.self, from: Array(run.standardOutput.utf8))
        #expect(report.words.map(\.text) == ["\u{05E9}\u{05DC}\u{05D5}\u{05DD}", "Gloss"], "\(report.text)")
        #expect(report.timings["ocr"] == nil, "\(report.timings)")
    }

    /// `--pdf-resolution` sets the vector page's size, and joins the fingerprint.
    @Test func thePDFResolutionSetsAVectorPagesSize() throws {
        let run = try Gloss.run(["ocr", Fixtures.path("pdf/text-layer.pdf"), "--page", "2", "--pdf-resolution", "150"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONOutput.decode(PageReport.self, from: Array(run.standardOutput.utf8))
        #expect(report.size == .init(width: 600, height: 300))
        #expect(report.existingText?.contains("of PDF pages 2026") == true)
        #expect(characterAccuracy(report.text, expected: "Gloss reads the text layer\nof PDF pages 2026") > 0.9, "\(report.text)")
        let bad = try Gloss.run(["ocr", Fixtures.path("pdf/text-layer.pdf"), "--pdf-resolution", "0"])
        #expect(bad.status == 2)
    }
}
