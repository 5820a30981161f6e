import Foundation
import GlossPDFGraft
import GlossTestSupport
import Testing

/// The graft's parts on real PDFs, without reading any page: what libqpdf finds in them, the
/// refusals, removing invisible text, and where a layer page goes on a turned or cropped page.
struct PDFGraftTests {
    /// `pdf/text-layer.pdf`: a scan under an OCR tool's invisible text, then a page of vector
    /// text; `pdf/scanned.pdf`: two scans and no text.
    @Test func textKindsOfEachPage() throws {
        #expect(try PDFGraft.inspect(Fixtures.path("pdf/text-layer.pdf")).text == [.invisible, .visible])
        #expect(try PDFGraft.inspect(Fixtures.path("pdf/scanned.pdf")).text == [[], []])
        let turned = try PDFGraft.inspect(Fixtures.path("pdf/turned.pdf"))
        #expect(turned.pages.map(\.rotation) == [90, 0])
        #expect(turned.pages[0].cropBox == PDFRectangle(x0: 4, y0: 6, x1: 124.72, y1: 226.4))
        #expect(turned.pages[0].shownSize == (width: 220.4, height: 120.72))
        // A /Rotate that is no multiple of 90, or not a whole number, is read as Poppler reads
        // it, for Poppler draws the page that was read: the layer is placed on that page. Its
        // `pdfinfo` gives 135 for page 1, which its renderer draws unturned (GfxState turns by
        // 90, 180 and 270 only), and the inherited 90 for page 2's 90.0.
        let odd = try PDFGraft.inspect(Fixtures.path("pdf/odd-rotations.pdf")).pages.map(\.rotation)
        let poppler = try PDFStructure.run("pdfinfo", ["-f", "1", "-l", "3", Fixtures.path("pdf/odd-rotations.pdf")])
            .split(separator: "\n").filter { $0.contains(" rot:") }.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(odd == [0, 90, 270] && poppler == [135, 90, 270], "\(odd) against Poppler's \(poppler)")
    }

    /// An encrypted file (one Poppler reads: its user password is empty) and a signed one are
    /// refused with the file's name and why; their bytes are not touched.
    @Test func encryptedAndSignedDocumentsAreRefused() throws {
        for (name, cause) in [("bad/owner-encrypted.pdf", PDFGraftError.Cause.encrypted), ("bad/signed.pdf", .signed)] {
            let path = Fixtures.path(name)
            #expect(throws: PDFGraftError(path: path, cause: cause)) { try PDFGraft.inspect(path) }
            #expect(throws: PDFGraftError(path: path, cause: cause)) {
                try PDFGraft.graft(input: path, layer: nil, covers: [], stripping: [0], output: "/nonexistent/out.pdf")
            }
        }
        #expect(String(describing: PDFGraftError(path: "a.pdf", cause: .signed))
            == "a.pdf: signed: grafting a text layer would invalidate the document's signatures")
    }

    /// Removing the invisible text of page 1 leaves its scan and page 2's visible text: every
    /// image stream the same bytes, page 2's text as it was, `qpdf --check` clean.
    @Test func removingInvisibleTextKeepsTheRest() throws {
        let input = Fixtures.path("pdf/text-layer.pdf")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-strip-\(UUID().uuidString).pdf").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try PDFGraft.graft(input: input, layer: nil, covers: [], stripping: [0], output: output)
        #expect(try PDFGraft.inspect(output).text == [[], .visible])
        #expect(try PDFStructure(output).imageData == PDFStructure(input).imageData)
        #expect(try PDFStructure.run("pdftotext", ["-f", "1", "-l", "1", output, "-"]).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(try PDFStructure.run("pdftotext", ["-f", "2", "-l", "2", output, "-"])
            == PDFStructure.run("pdftotext", ["-f", "2", "-l", "2", input, "-"]))
        _ = try PDFStructure.run("qpdf", ["--check", output])
    }

    /// Nothing to add or remove: the output is the input's bytes.
    @Test func aGraftOfNothingCopiesTheFile() throws {
        let input = Fixtures.path("pdf/scanned.pdf")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-copy-\(UUID().uuidString).pdf").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try PDFGraft.graft(input: input, layer: nil, covers: [], stripping: [], output: output)
        #expect(FileManager.default.contents(atPath: output) == FileManager.default.contents(atPath: input))
    }

    /// The placement takes each corner of the page as shown to the crop box's corner a viewer
    /// shows there, for every rotation: shown bottom left is the crop box's corner that turns
    /// to the bottom left.
    @Test(arguments: [0, 90, 180, 270, -90, 450])
    func placementUndoesTheRotation(rotation: Int) {
        let crop = PDFRectangle(x0: 10, y0: 20, x1: 110, y1: 220)
        let page = PDFPageGeometry(cropBox: crop, rotation: rotation)
        let m = page.shownToUserSpace
        func place(_ u: Double, _ v: Double) -> [Double] { [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]] }
        let (w, h) = page.shownSize
        // The user-space corner shown at the bottom left, bottom right and top left, by rotation
        // (clockwise): at 90 the left edge is shown at the top.
        let expected: [Int: [[Double]]] = [
            0: [[10, 20], [110, 20], [10, 220]],
            90: [[110, 20], [110, 220], [10, 20]],
            180: [[110, 220], [10, 220], [110, 20]],
            270: [[10, 220], [10, 20], [110, 220]],
        ]
        #expect([place(0, 0), place(w, 0), place(0, h)] == expected[page.rotation])
        #expect(page.textLayerFrame(pixelWidth: Int(w * 3)).pointsPerPixel == w / Double(Int(w * 3)))
    }
}
