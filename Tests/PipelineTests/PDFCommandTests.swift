import Foundation
import GlossContract
import GlossImaging
import GlossPipeline
import GlossTestSupport
import Testing

/// `--format pdf` through the `gloss` binary, the PDFs read back with poppler's tools
/// (`pdfinfo`, `pdftotext`, `pdfimages`, `pdftoppm`; Debian's poppler-utils): the pages, their
/// sizes, every word on its box, and the JPEGs embedded unchanged and upright.
@Suite(.serialized)
struct PDFCommandTests {
    /// Four fixtures that state 300 ppi, then one stating the placeholder 96 and one stating none.
    static let inputs = ["text/two-pages.tif", "text/sans.png", "text/upright.jpg", "text/rotated.jpg", "odd/ppi-96.png", "odd/ppi-none.png"]

    /// One run, which every check below reads: reading the four files takes a few seconds.
    @Test func searchablePDFsOfATIFFAPNGAndJPEGs() throws {
        let batch = try Batch()
        try oneSearchablePDFPerInputNamedLikeItsCombinedDocument(batch)
        try pagesHaveTheImagesSizeAtItsResolution(batch)
        try everyWordIsFoundInOrderOnItsBox(batch)
        try everyLineReadsWholeAsAViewerGroupsIt(batch)
        try jpegsAreEmbeddedAsTheyAre(batch)
        try aJPEGWithExifOrientationIsShownUpright(batch)
        try aPNGIsEmbeddedAsItsPixels(batch)
    }

    final class Batch {
        let scratch: ScratchFolder
        let manifest: BatchManifest

        init() throws {
            scratch = try ScratchFolder()
            let run = try Gloss.run(["annotate"] + PDFCommandTests.inputs.map(Fixtures.path) + [
                "-o", scratch.path, "--no-faces", "--format", "json,pdf", "--quiet",
            ])
            #expect(run.status == 0, "\(run.standardError)")
            manifest = try JSONOutput.decode(
                BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/gloss.json"))))
        }

        func report(_ entry: ManifestEntry) throws -> PageReport {
            try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/" + entry.outputs["json"]!))))
        }

        /// The pages of each input, by the PDF they point to, in input order.
        func documents() throws -> [(pdf: String, pages: [PageReport])] {
            var documents: [(pdf: String, pages: [PageReport])] = []
            for entry in manifest.pages {
                let pdf = try #require(entry.outputs["pdf"], "\(entry.source) names no PDF")
                if documents.last?.pdf == pdf { documents[documents.count - 1].pages.append(try report(entry)) } else {
                    documents.append((pdf, [try report(entry)]))
                }
            }
            return documents
        }
    }

    func oneSearchablePDFPerInputNamedLikeItsCombinedDocument(_ batch: Batch) throws {
        #expect(batch.manifest.pages.count == 7)
        let documents = try batch.documents()
        #expect(documents.map(\.pages.count) == [2, 1, 1, 1, 1, 1])
        for entry in batch.manifest.pages {
            // `document`: the input's searchable PDF in documents/ (docs/pdf.md).
            #expect(Set(entry.outputs.keys) == ["json", "pdf", "document"])
            let single = entry.id.replacingOccurrences(of: "-p\(entry.pageIndex + 1)", with: "")
            #expect(entry.outputs["pdf"] == "pages/\(single).pdf")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: batch.scratch.path + "/pages")
        #expect(files.filter { $0.hasSuffix(".pdf") }.count == 6)
        #expect(files.filter { $0.contains(".tmp-") }.isEmpty)
    }

    func pagesHaveTheImagesSizeAtItsResolution(_ batch: Batch) throws {
        for (pdf, pages) in try batch.documents() {
            let info = try Tool.run("pdfinfo", ["-f", "1", "-l", "99", batch.scratch.path + "/" + pdf])
            #expect(info.contains("Pages:           \(pages.count)\n"), "\(info)")
            let sizes = info.split(separator: "\n").filter { $0.hasPrefix("Page ") && $0.contains(" size: ") }.map {
                $0.split(separator: " ").compactMap { Double($0) }.dropFirst()
            }
            #expect(sizes.count == pages.count)
            for (size, page) in zip(sizes, pages) {
                // 300 ppi as stated; 96 ppi is not believed, and neither is no resolution: both
                // 960 x 528 pages lie on A4's long side (841.89 points), not 10 x 5.5 inches.
                let believed = !page.source.contains("/odd/ppi-")
                let expected = believed ? [Double(page.width) * 72 / 300, Double(page.height) * 72 / 300] : [841.89, 463.04]
                #expect(size.count == 2 && zip(size, expected).allSatisfy { abs($0 - $1) < 0.01 }, "\(pdf): \(size), not \(expected)")
            }
        }
    }

    func everyWordIsFoundInOrderOnItsBox(_ batch: Batch) throws {
        for (pdf, pages) in try batch.documents() {
            let found = try Self.words(inPDF: batch.scratch.path + "/" + pdf)
            #expect(found.count == pages.count)
            for (page, words) in zip(pages, found) {
                #expect(words.words.map(\.text) == page.words.map(\.text), "\(pdf) page \(page.pageIndex + 1)")
                let scale = Double(page.width) / words.width
                // A word spans its own width and its line's height: from its line's highest
                // word to its lowest.
                var spans: [Int: (top: Int, bottom: Int)] = [:]
                for word in page.words {
                    let known = spans[word.line] ?? (word.box.y, word.box.maxY)
                    spans[word.line] = (min(known.top, word.box.y), max(known.bottom, word.box.maxY))
                }
                for (word, expected) in zip(words.words, page.words) {
                    let box = expected.box, span = spans[expected.line]!
                    let tolerance = max(2, 0.03 * Double(span.bottom - span.top))
                    let edges = [(word.xMin * scale, box.x), (word.yMin * scale, span.top),
                                 (word.xMax * scale, box.maxX), (word.yMax * scale, span.bottom)]
                    #expect(edges.allSatisfy { abs($0.0 - Double($0.1)) <= tolerance }, "\(expected.text): \(edges) in \(pdf)")
                    // The left edge is placed to a thousandth of a point; the right edge is
                    // the scaling's, rounded to keep it within a quarter of a pixel.
                    #expect(abs(word.xMin * scale - Double(box.x)) < 0.01 && abs(word.xMax * scale - Double(box.maxX)) <= 0.26,
                            "\(expected.text): \(edges) in \(pdf)")
                }
            }
        }
        #expect(try batch.documents().flatMap(\.pages).allSatisfy { $0.words.count > 10 })
    }

    /// Plain `pdftotext` groups text by size and baseline, as poppler-based viewers do when a
    /// reader drags across a line: every recognised line comes out as one line of text.
    func everyLineReadsWholeAsAViewerGroupsIt(_ batch: Batch) throws {
        for (pdf, pages) in try batch.documents() {
            let text = try Tool.run("pdftotext", [batch.scratch.path + "/" + pdf, "-"])
            // Pages are separated by a form feed.
            let found = Set(text.split(whereSeparator: { $0 == "\n" || $0 == "\u{0C}" }).map { $0.split(separator: " ").joined(separator: " ") })
            for page in pages {
                for line in page.lines where !line.text.isEmpty {
                    let words = line.text.split(separator: " ").joined(separator: " ")
                    #expect(found.contains(words), "\(pdf): '\(words)' is not one line of:\n\(text)")
                }
            }
        }
    }

    func jpegsAreEmbeddedAsTheyAre(_ batch: Batch) throws {
        let documents = try batch.documents()
        for (document, fixture) in zip(documents.dropFirst(2), ["text/upright.jpg", "text/rotated.jpg"]) {
            let path = batch.scratch.path + "/" + document.pdf
            let list = try Tool.run("pdfimages", ["-list", path]).split(separator: "\n")
            #expect(list.count == 3 && list[2].split(separator: " ").contains("jpeg"), "\(list)")
            let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture)))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: original) != nil, "\(fixture) unchanged")
        }
        let tiff = try Tool.run("pdfimages", ["-list", batch.scratch.path + "/" + documents[0].pdf])
        #expect(tiff.split(separator: "\n").dropFirst(2).allSatisfy { $0.contains(" image ") && !$0.contains("jpeg") })
    }

    /// `rotated.jpg` stores `upright.jpg`'s picture turned, with Exif orientation 6: its PDF page,
    /// drawn by poppler, must show the same picture as `upright.jpg` decoded.
    func aJPEGWithExifOrientationIsShownUpright(_ batch: Batch) throws {
        let pdf = batch.scratch.path + "/" + (try batch.documents()[3].pdf)
        let drawn = try Tool.run("pdftoppm", ["-r", "300", "-gray", pdf, batch.scratch.path + "/drawn"])
        #expect(drawn.isEmpty)
        let page = try Self.readPGM(batch.scratch.path + "/drawn-1.pgm")
        let upright = try ImageFile(contentsOf: Fixtures.path("text/upright.jpg")).decodePage().raster.grayscale()
        #expect(page.width == upright.width && page.height == upright.height)
        guard page.width == upright.width, page.height == upright.height else { return }
        let difference = zip(page.pixels, upright.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(page.pixels.count) < 8, "mean difference per pixel")
    }

    /// `sans.png`'s page, its compressed rows embedded as the file holds them: the image
    /// poppler takes out of the PDF is the file's pixels, every one.
    func aPNGIsEmbeddedAsItsPixels(_ batch: Batch) throws {
        let pdf = batch.scratch.path + "/" + (try batch.documents()[1].pdf)
        #expect(try Tool.run("pdfimages", ["-png", pdf, batch.scratch.path + "/png"]).isEmpty)
        let embedded = try ImageFile(contentsOf: batch.scratch.path + "/png-000.png").decodePage().raster
        let original = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        #expect(embedded.size == original.size && embedded.pixels == original.pixels, "\(embedded.size)")
    }

    // MARK: Helpers

    struct FoundWord {
        var text: String
        var xMin, yMin, xMax, yMax: Double
    }

    /// `pdftotext -raw -bbox` (or `options`): the words of each page in the order the file holds
    /// them, with the page's width in points.
    static func words(inPDF path: String, options: [String] = ["-raw", "-bbox"]) throws -> [(width: Double, words: [FoundWord])] {
        let html = try Tool.run("pdftotext", options + [path, "-"])
        var pages: [(width: Double, words: [FoundWord])] = []
        for line in html.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("<page ") {
                pages.append((try #require(Double(attribute("width", in: line))), []))
            } else if line.hasPrefix("<word ") {
                let text = line.split(separator: ">", maxSplits: 1)[1].replacingOccurrences(of: "</word>", with: "")
                    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                    .replacingOccurrences(of: "&amp;", with: "&")
                let numbers = try ["xMin", "yMin", "xMax", "yMax"].map { try #require(Double(attribute($0, in: line))) }
                pages[pages.count - 1].words.append(FoundWord(text: text, xMin: numbers[0], yMin: numbers[1],
                                                              xMax: numbers[2], yMax: numbers[3]))
            }
        }
        return pages
    }

    static func attribute(_ name: String, in element: String) -> String {
        guard let start = element.range(of: " \(name)=\"") else { return "" }
        return String(element[start.upperBound...].prefix { $0 != "\"" })
    }

    /// A binary PGM (P5, 8-bit) as pdftoppm writes it.
    static func readPGM(_ path: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [String] = [], field = "", at = 0
        while fields.count < 4, at < bytes.count {
            let character = Character(UnicodeScalar(bytes[at]))
            at += 1
            if character.isWhitespace {
                if !field.isEmpty { fields.append(field) }
                field = ""
            } else {
                field.append(character)
            }
        }
        try #require(fields.count == 4 && fields[0] == "P5" && fields[3] == "255")
        let width = try #require(Int(fields[1])), height = try #require(Int(fields[2]))
        return (width, height, Array(bytes[at...]))
    }
}

/// A command-line tool's standard output; fails when it cannot be started or exits non-zero.
enum Tool {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ name: String, _ arguments: [String]) throws -> String {
        let run = try Gloss.run("/usr/bin/env", [name] + arguments)
        guard run.status == 0 else {
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) exited \(run.status) "
                + "(poppler-utils installed? make setup): " + run.standardError)
        }
        return run.standardOutput
    }
}
