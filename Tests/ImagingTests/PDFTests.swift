import Foundation
import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

/// PDF input (`fixtures/make-pdf-fixtures.py`): each page rendered at the resolution it calls
/// for, its text layer read, and every broken PDF refused alone with its reason.
struct PDFTests {
    @Test func aScannedPDFsPagesAreRenderedAtTheScansResolution() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("pdf/scanned.pdf"))
        #expect(file.format == .pdf)
        #expect(file.pageCount == 2)
        let truths = try Fixtures.truth("text/sans.json") + Fixtures.truth("text/serif.json")
        for (index, truth) in truths.enumerated() {
            let page = try file.decodePage(index)
            #expect(page.size == PixelSize(width: truth.width, height: truth.height), "page \(index + 1)")
            #expect(page.raster.size == page.size)
            #expect(page.resolution == 300)
            #expect(try file.textLayer(ofPage: index) == nil, "a scan without a text layer")
        }
        // Grey when the page has no colour: sans.png is grey, serif.png dark blue on cream.
        #expect(try file.decodePage(0).raster.layout == .gray)
        #expect(try file.decodePage(1).raster.layout == .rgb)
    }

    /// The scan's pixels come back as they were embedded: the render is the image, not a resample.
    @Test func aScanPageRendersItsOwnPixels() throws {
        let original = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let rendered = try ImageFile(contentsOf: Fixtures.path("pdf/scanned.pdf")).decodePage(0).raster
        #expect(rendered.size == original.size)
        let difference = zip(rendered.pixels, original.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(original.pixels.count) < 2, "mean difference")
    }

    /// A page without a full-page image is drawn at 300 ppi, or at `pdfResolution`; a scan
    /// keeps its own resolution whatever that is set to.
    @Test(arguments: [nil, 100, 450])
    func aVectorPageIsDrawnAtThePDFResolution(resolution: Int?) throws {
        let file = try ImageFile(contentsOf: Fixtures.path("pdf/text-layer.pdf"),
                                 pdfResolution: resolution ?? ImageFile.defaultPDFResolution)
        let ppi = resolution ?? 300
        // The vector page is 4 x 2 inches.
        let page = try file.decodePage(1)
        #expect(page.size == PixelSize(width: 4 * ppi, height: 2 * ppi))
        #expect(page.resolution == ppi)
        #expect(file.pixelCount(ofPage: 1) == 8 * ppi * ppi)
        #expect(try file.decodePage(0).resolution == 300, "the scan page keeps its own")
        // Ink is drawn: some pixels are dark.
        #expect(page.raster.pixels.contains { $0 < 64 })
    }

    @Test func theTextLayerIsReadWithItsWordsOnTheirBoxes() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("pdf/text-layer.pdf"))
        let truth = try Fixtures.truth("text/sans.json")[0]
        let layer = try #require(try file.textLayer(ofPage: 0))
        let words = layer.lines.flatMap { $0 }
        #expect(words.map(\.text) == truth.words.map(\.text))
        let size = PixelSize(width: truth.width, height: truth.height)
        for (word, expected) in zip(words, truth.words) {
            let box = PixelRect(word.box, in: size)
            // Poppler places a word by its font's metrics, the truth by its ink: the centres agree.
            #expect(abs(Double(box.x + box.width / 2) - Double(expected.box.x + expected.box.width / 2)) < 6, "\(word.text)")
            #expect(abs(Double(box.y + box.height / 2) - Double(expected.box.y + expected.box.height / 2)) < 16, "\(word.text)")
        }
        let vector = try #require(try file.textLayer(ofPage: 1))
        #expect(vector.text.split(whereSeparator: \.isWhitespace).joined(separator: " ") == "Gloss reads the text layer of PDF pages 2026")
        #expect(vector.lines.map { $0.map(\.text).joined(separator: " ") } == ["Gloss reads the text layer", "of PDF pages 2026"])
    }

    /// Poppler's text wraps a right-to-left run in embedding marks (U+202B ... U+202C) that have
    /// no box: the layer drops the marks and keeps every word on its box (issue 26, case 13).
    @Test func aRightToLeftTextLayerKeepsItsWords() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("pdf/hebrew.pdf"))
        let layer = try #require(try file.textLayer(ofPage: 0))
        #expect(layer.lines.map { $0.map(\.text) } == [["\u{05E9}\u{05DC}\u{05D5}\u{05DD}"], ["Gloss"]], "\(layer.text.unicodeScalars.map(\.value))")
        #expect(!layer.text.unicodeScalars.contains(where: PDFTextLayer.isDirectionMark), "the marks are dropped")
        let word = try #require(layer.lines.first?.first)
        // The word is drawn 36 pt from the left of a 288 pt page, its top 80 pt from the bottom.
        #expect(word.box.x > 0.1 && word.box.x < 0.2 && word.box.width > 0.1, "\(word.box)")
        // Marks around a word, or before one, have no box: the five other characters have theirs.
        let marked = PDFTextLayer(text: "\u{202B}ab\u{202C} \u{200F}c\n", boxes: Array(repeating: (0, 0, 1, 1), count: 5),
                                  page: (10, 10))
        #expect(marked.lines.map { $0.map(\.text) } == [["ab", "c"]])
        // A font a hundred quintillion points tall, or one whose size overflows: the boxes are
        // cut to the page, never infinite or NaN.
        let tall = PDFTextLayer(text: "x y", boxes: [(10, -1e21, 20, 1e21), (0, 0, 0, 0), (.nan, 5, .infinity, -.infinity)],
                                page: (100, 200))
        #expect(tall.lines.flatMap { $0.map(\.box) } == [NormalizedRect(x: 0.1, y: 0, width: 0.1, height: 1),
                                                        NormalizedRect(x: 0, y: 0.975, width: 1, height: 0.025)])
    }

    /// Broken PDFs and what their error must say; all are refused on opening.
    @Test(arguments: [
        ("bad/encrypted.pdf", "encrypted: Gloss cannot read password-protected PDFs"),
        ("bad/truncated.pdf", "PDF document is damaged"),
        ("bad/garbage.pdf", "PDF document is damaged"),
        ("bad/zero-pages.pdf", "the document has no pages"),
        // Poppler takes no page count above the file's object count: the million is never believed.
        ("bad/million-pages.pdf", "the document has no pages"),
        ("bad/huge-page.pdf", "image is 60000x60000 = 3600000000 pixels, above the limit of 150000000"),
        // Sizes whose pixel count, or whose width alone, overflowed Int and trapped.
        ("bad/overflowing-page.pdf", "above the limit of 150000000"),
        ("bad/endless-page.pdf", "above the limit of 150000000"),
    ])
    func aBrokenPDFIsRefusedWithItsReason(fixture: String, reason: String) throws {
        let path = Fixtures.path(fixture)
        let error = try #require(throws: ImagingError.self) { try ImageFile(contentsOf: path) }
        #expect(error.path == path)
        #expect(error.description.contains(reason), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    /// The pixel limit holds for every page, before it is drawn, also for a later page.
    @Test func aPageAboveThePixelLimitIsRefusedBeforeItIsDrawn() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("pdf/text-layer.pdf"), pixelLimit: 600_000)
        #expect(try file.decodePage(0).size == PixelSize(width: 960, height: 528))
        let error = try #require(throws: ImagingError.self) { _ = try file.decodePage(1) }
        #expect(error.reason == .tooLarge(width: 1200, height: 600, limit: 600_000))
    }

    /// An image the page draws is held to the pixel limit by its declared size, before any of
    /// it is decoded: the 30000x30000 bomb is refused at once (issue 26, case 10), with both sizes.
    @Test(arguments: [150_000_000, 20_000_000])
    func anImageAboveThePixelLimitIsRefusedBeforeItIsDecoded(limit: Int) throws {
        let file = try ImageFile(contentsOf: Fixtures.path("bad/image-bomb.pdf"), pixelLimit: limit)
        let error = try #require(throws: ImagingError.self) { _ = try file.decodePage(0) }
        #expect(error.reason == .drawsTooLargeImage(width: 30000, height: 30000, limit: limit))
        #expect(error.description.contains("(see --max-pixels)"))
    }

    /// A scan's resolution comes from the size its image declares, not from decoding it, and a
    /// PDF read from memory is drawn as its file is.
    @Test func aScanIsPlannedFromItsImagesDeclaredSize() throws {
        let bytes = try #require(FileManager.contents(Fixtures.path("pdf/scanned.pdf")))
        let file = try ImageFile(bytes: bytes, path: "scanned.pdf")
        let page = try file.decodePage(0)
        #expect(page.size == PixelSize(width: 960, height: 528) && page.resolution == 300)
        #expect(file.pixelCount(ofPage: 0) == 960 * 528, "the plan it was drawn by is kept")
    }

    /// From memory (a download) as from the file, and a PDF header after leading bytes.
    @Test func aPDFInMemoryReadsLikeItsFile() throws {
        let bytes = try #require(FileManager.contents(Fixtures.path("pdf/scanned.pdf")))
        let file = try ImageFile(bytes: bytes, path: "scanned.pdf")
        #expect(file.pageCount == 2)
        #expect(try file.decodePage(1).size == PixelSize(width: 976, height: 528))
        let prefixed = try ImageFile(bytes: Array("junk before the header\n".utf8) + bytes, path: "prefixed.pdf")
        #expect(prefixed.format == .pdf)
    }

    /// Cut anywhere, a PDF fails with a typed error or reads: never a crash.
    @Test func survivesTruncationAtManyLengths() throws {
        let bytes = try #require(FileManager.contents(Fixtures.path("pdf/text-layer.pdf")))
        var opened = 0, tried = 0
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            tried += 1
            do {
                let file = try ImageFile(bytes: Array(bytes.prefix(length)), path: "cut.pdf")
                opened += 1
                for index in 0..<file.pageCount {
                    do { _ = try file.decodePage(index) } catch { #expect(error is ImagingError, "cut at \(length): \(error)") }
                    do { _ = try file.textLayer(ofPage: index) } catch { #expect(error is ImagingError, "cut at \(length): \(error)") }
                }
            } catch {
                #expect(error is ImagingError, "cut at \(length): \(error)")
            }
        }
        // Poppler mends a cut file from its objects: some lengths open, the shortest do not.
        #expect(opened > 0 && opened < tried, "\(opened) of \(tried) lengths opened")
    }
}

private extension FileManager {
    static func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map(Array.init) }
}
