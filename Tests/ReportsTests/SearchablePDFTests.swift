import Foundation
import GlossContract
import GlossGeometry
@testable import GlossReports
import GlossTestSupport
import Testing

/// The PDF writer's file structure, picture encodings and page geometry, without a PDF reader
/// (`PDFCommandTests` reads the files with poppler).
struct SearchablePDFTests {
    static func document(_ pages: [SearchablePDFPage]) throws -> [UInt8] {
        try SearchablePDF.render(pages, context: SamplePage.context, title: "Grüße.tif")
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A grey page: a white background with a black bar and a grey one.
    static func greyPicture(width: Int = 60, height: Int = 40, grey: UInt8 = 128) -> PDFPicture {
        var pixels = [UInt8](repeating: 255, count: width * height)
        for x in 5..<30 { pixels[10 * width + x] = 0; pixels[20 * width + x] = grey }
        return PDFPicture(width: width, height: height, channels: 1, pixels: pixels)
    }

    @Test func everyCrossReferenceEntryPointsAtItsObject() throws {
        let page = SearchablePDFPage(report: SamplePage.report(), picture: Self.greyPicture(), resolution: 150)
        let failed = SearchablePDFPage(report: PageReport(source: "bad.png", pageIndex: 1, status: .failed, error: "bad"),
                                       picture: nil, resolution: nil)
        let bytes = try Self.document([page, failed])
        #expect(bytes.starts(with: Array("%PDF-1.7\n".utf8)))
        #expect(Self.text(Array(bytes.suffix(6))) == "%%EOF\n")

        let tail = Self.text(Array(bytes.suffix(40))).split(separator: "\n")
        let start = try #require(tail.count >= 2 ? Int(tail[tail.count - 2]) : nil)
        let table = Self.text(Array(bytes[start...]))
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count > 3)
        #expect(lines[0] == "xref")
        let header = lines[1].split(separator: " ")
        #expect(header.first == "0")
        let count = try #require(header.count == 2 ? Int(header[1]) : nil)
        try #require(lines.count > count + 3)
        #expect(lines[2] == "0000000000 65535 f ")
        for number in 1..<count {
            let entry = lines[number + 2]
            #expect(entry.utf8.count == 19 && entry.hasSuffix(" 00000 n "), "entry \(number): \(entry)")
            let offset = try #require(Int(entry.prefix(10)))
            let object = Self.text(Array(bytes[offset..<min(bytes.count, offset + 20)]))
            #expect(object.hasPrefix("\(number) 0 obj\n"), "object \(number) at \(offset): \(object)")
        }
        #expect(lines[count + 2] == "trailer")
        #expect(lines[count + 3].contains("/Size \(count) "))
        #expect(table.contains("startxref\n\(start)\n%%EOF\n"))

        let body = Self.text(bytes)
        #expect(body.contains("/Type /Pages /Kids [") && body.contains("/Count 2 >>"))
        #expect(body.contains("/Title <FEFF0047007200FC00DF0065002E007400690066>"))
        #expect(body.contains("/Subtype /Type3") && body.contains("/ToUnicode"))
        // 600x400 pixels at 150 ppi; a page that could not be read is a blank A4 page.
        #expect(body.contains("/MediaBox [0 0 288 192]"))
        #expect(body.contains("/MediaBox [0 0 595.28 841.89]"))
    }

    @Test func theSameReportGivesTheSameBytes() throws {
        let page = SearchablePDFPage(report: SamplePage.report(), picture: Self.greyPicture(), resolution: nil)
        #expect(try Self.document([page]) == Self.document([page]))
    }

    @Test func theToUnicodeMapGivesEveryCharacterBack() {
        let cmap = SearchablePDF.toUnicode(["G", "ü", "\u{1D11E}"])
        #expect(cmap.contains("3 beginbfchar\n<00> <0047>\n<01> <00FC>\n<02> <D834DD1E>\nendbfchar"))
        let many = SearchablePDF.toUnicode((0..<256).map { Unicode.Scalar(0x400 + $0)! })
        #expect(many.components(separatedBy: "beginbfchar").count - 1 == 3, "at most 100 mappings a block")
    }

    @Test func bitonalPagesAreOneBitAndGreyOnesPredicted() throws {
        let bitonal = Self.text(try Self.document([SearchablePDFPage(report: SamplePage.report(),
                                                                     picture: Self.greyPicture(grey: 0), resolution: 300)]))
        #expect(bitonal.contains("/ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode"))
        let grey = Self.text(try Self.document([SearchablePDFPage(report: SamplePage.report(),
                                                                  picture: Self.greyPicture(), resolution: 300)]))
        #expect(grey.contains("/BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1"))
    }

    @Test func aCMYKJPEGIsEmbeddedAsItIsWithAdobesInversion() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("odd/cmyk.jpg"))))
        let picture = try #require(PDFPicture.jpeg(bytes, orientation: .up))
        #expect(picture.jpegSize == PixelSize(width: 960, height: 528))
        var report = SamplePage.report()
        (report.width, report.height) = (960, 528)
        let pdf = try Self.document([SearchablePDFPage(report: report, picture: picture, resolution: nil)])
        let text = Self.text(pdf)
        #expect(text.contains("/ColorSpace /DeviceCMYK /BitsPerComponent 8 /Decode [1 0 1 0 1 0 1 0] /Filter /DCTDecode"))
        #expect(Data(pdf).range(of: Data(bytes)) != nil, "the file's bytes, unchanged")
        // No stated resolution: 300 ppi.
        #expect(text.contains("/MediaBox [0 0 230.4 126.72]"))
    }

    @Test func jpegsAPDFReaderMayNotDecodeAreRefused() throws {
        #expect(PDFPicture.jpeg([0xFF, 0xD8, 0xFF, 0xD9], orientation: .up) == nil)
        #expect(PDFPicture.jpeg(Array("not a jpeg".utf8), orientation: .up) == nil)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("text/upright.jpg"))))
        let frame = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[frame + 1] = 0xC9  // the same frame, declared arithmetic-coded
        #expect(PDFPicture.jpeg(bytes, orientation: .up) == nil)
    }

    @Test func aTurnedJPEGIsPlacedUpright() {
        let picture = PDFPicture.jpeg(Array(try! Data(contentsOf: URL(fileURLWithPath: Fixtures.path("text/upright.jpg")))),
                                      orientation: .right)!
        // Orientation 6: the stored image's top row goes to the page's right side.
        #expect(SearchablePDF.placement(of: picture, width: 200, height: 100) == "0 -100 200 0 0 100")
        #expect(SearchablePDF.placement(of: Self.greyPicture(), width: 200, height: 100) == "200 0 0 100 0 0")
    }

    @Test func pageSizesFollowTheResolutionWithinWhatReadersAccept() {
        let a4 = SearchablePDF.pageSize(of: PixelSize(width: 2480, height: 3508), resolution: nil)
        #expect(abs(a4.width - 595.2) < 0.01 && abs(a4.height - 841.92) < 0.01)
        #expect(SearchablePDF.pageSize(of: PixelSize(width: 720, height: 360), resolution: 72).width == 720)
        #expect(SearchablePDF.pageSize(of: PixelSize(width: 1, height: 1), resolution: 300).width == 3)
        #expect(abs(SearchablePDF.pageSize(of: PixelSize(width: 100_000, height: 10), resolution: 72).width - 14_400) < 0.001)
    }
}
