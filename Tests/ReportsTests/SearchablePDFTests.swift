import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
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
        #expect(body.contains("/MediaBox [0 0 595.276 841.89]"))
    }

    @Test func theSameReportGivesTheSameBytes() throws {
        let page = SearchablePDFPage(report: SamplePage.report(), picture: Self.greyPicture(), resolution: nil)
        #expect(try Self.document([page]) == Self.document([page]))
    }

    @Test func theToUnicodeMapGivesEveryCharacterBack() {
        let cmap = SearchablePDF.toUnicode([0x47: "G", 0x80: "ü", 0: "\u{1D11E}"])
        #expect(cmap.contains("3 beginbfchar\n<00> <D834DD1E>\n<47> <0047>\n<80> <00FC>\nendbfchar"))
        let many = SearchablePDF.toUnicode(Dictionary(uniqueKeysWithValues: (0..<256).map { ($0, Unicode.Scalar(0x400 + $0)!) }))
        #expect(many.components(separatedBy: "beginbfchar").count - 1 == 3, "at most 100 mappings a block")
    }

    @Test func asciiKeepsItsOwnCodesAndOtherCharactersTakeTheFreeOnes() {
        var codes = CharacterCodes()
        #expect(codes.code(for: "é") == (0, 0) && codes.code(for: "A") == (0, 0x41) && codes.code(for: "ß") == (0, 1))
        #expect(codes.code(for: "A") == (0, 0x41) && codes.code(for: " ") == (0, 0x20), "a character keeps its code")
        // The first font has 161 codes besides printable ASCII; the 162nd character beyond
        // ASCII opens a second font, whose codes start at 0.
        for value in 0..<159 { _ = codes.code(for: Unicode.Scalar(0x400 + value)!) }
        #expect(codes.code(for: "\u{4E00}") == (1, 0) && codes.fonts.count == 2)
        #expect(codes.fonts[0].count == 161 + 2 && codes.fonts[0][0x41] == "A" && codes.fonts[1] == [0: "\u{4E00}"])
    }

    @Test func aRunOfCodesIsWrittenAsTheShorterString() {
        #expect(TextLayer.string(Array("Grace ".utf8).map(Int.init)) == "(Grace )")
        #expect(TextLayer.string(Array("f(x)\\y".utf8).map(Int.init)) == #"(f\(x\)\\y)"#)
        #expect(TextLayer.string([0x53, 0x74, 0x72, 0x61, 0x80, 0x65, 0x20]) == #"(Stra\200e )"#, "Straße, ß given 128")
        #expect(TextLayer.string([0x01, 0x80, 0xFF]) == "<0180FF>", "hex where octal would be longer")
    }

    /// A PNG's own compressed rows go into the PDF as the file holds them, with the predictor
    /// parameters that undo its filters, unless Gloss's are smaller (`serif.png`'s are).
    @Test(arguments: [("text/sans.png", true), ("text/serif.png", false)])
    func aPNGsRowsAreEmbeddedAsTheFileHoldsThem(fixture: String, itsOwn: Bool) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture))))
        let raster = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster
        let pixels = PDFPicture(width: raster.width, height: raster.height, channels: raster.channels, pixels: raster.pixels)
        let rows = try #require(PNGRows(bytes))
        #expect(rows.width == raster.width && rows.height == raster.height && rows.channels == raster.channels)
        let stream = PDFImageStream(try #require(PDFPicture.png(bytes, pixels: pixels)))
        let ours = PDFImageStream(pixels).data
        #expect(stream.data == (itsOwn ? rows.compressed : ours))
        #expect((rows.compressed.count <= ours.count) == itsOwn, "\(rows.compressed.count) bytes against \(ours.count)")
        #expect(stream.dictionary.contains("/Predictor 15 /Colors \(raster.channels) /BitsPerComponent 8 /Columns \(raster.width)"))
    }

    @Test func aPNGAPDFCannotTakeAsItIsIsRefused() throws {
        for fixture in ["odd/grey-alpha.png", "odd/palette.png", "odd/sixteen-bit.png", "bad/truncated.png", "bad/truncated-after-header.png"] {
            #expect(PNGRows(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture))))) == nil, "\(fixture)")
        }
        let sans = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("text/sans.png"))))
        #expect(PNGRows(sans) != nil)
        var interlaced = sans
        interlaced[28] = 1
        #expect(PNGRows(interlaced) == nil, "interlaced")
        let transparency: [UInt8] = [0, 0, 0, 2, 0x74, 0x52, 0x4E, 0x53, 0, 0, 0, 0, 0, 0]
        #expect(PNGRows(Array(sans[..<33]) + transparency + Array(sans[33...])) == nil, "tRNS")
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
        #expect(picture.isCMYK)
        var report = SamplePage.report()
        (report.width, report.height) = (960, 528)
        var plain = SamplePage.context
        plain.pdfStandard = .none
        let pixels = PDFPicture(width: 960, height: 528, channels: 3, pixels: [UInt8](repeating: 200, count: 960 * 528 * 3))
        let page = SearchablePDFPage(report: report, picture: picture, resolution: 300, decodedPicture: pixels)
        let pdf = try SearchablePDF.render([page], context: plain, title: "cmyk.jpg")
        let text = Self.text(pdf)
        #expect(text.contains("/ColorSpace /DeviceCMYK /BitsPerComponent 8 /Decode [1 0 1 0 1 0 1 0] /Filter /DCTDecode"))
        #expect(Data(pdf).range(of: Data(bytes)) != nil, "the file's bytes, unchanged")
        #expect(text.contains("/MediaBox [0 0 230.4 126.72]"))
        // PDF/A's sRGB intent allows no CMYK: the decoded pixels are shown, losslessly.
        let archived = Self.text(try Self.document([page]))
        #expect(!archived.contains("/DeviceCMYK") && archived.contains("/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode"))
    }

    @Test func aPDFADocumentCarriesItsMetadataAndOutputIntent() throws {
        let page = SearchablePDFPage(report: SamplePage.report(), picture: Self.greyPicture(), resolution: 300)
        let archived = try SearchablePDF.render([page], context: SamplePage.context, title: "scan\u{1}<1>.png")
        let text = Self.text(archived)
        #expect(SamplePage.context.pdfStandard == .pdfA2b, "PDF/A-2b is the default")
        #expect(text.contains("/Type /Metadata /Subtype /XML /Length "))
        #expect(text.contains("<pdfaid:part>2</pdfaid:part>") && text.contains("<pdfaid:conformance>B</pdfaid:conformance>"))
        // The title as both the information dictionary and the XMP hold it: the control
        // character replaced in both, the markup escaped in the XMP.
        #expect(text.contains("<rdf:li xml:lang=\"x-default\">scan\u{FFFD}&lt;1&gt;.png</rdf:li>"))
        #expect(text.contains("/Title <FEFF007300630061006EFFFD003C0031003E002E0070006E0067>"))
        #expect(text.contains("<pdf:Producer>Gloss 0.1.0</pdf:Producer>") && text.contains("/Producer (Gloss 0.1.0)"))
        #expect(text.contains("/OutputIntents [<< /Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (sRGB IEC61966-2.1)"))
        #expect(text.contains("/N 3 /Filter /FlateDecode /Length "))
        #expect(PDFArchive.sRGBProfile.count == 6922 && Array(PDFArchive.sRGBProfile[36..<40]) == Array("acsp".utf8))
        #expect(text.range(of: "/ID \\[<[0-9A-F]{32}> <[0-9A-F]{32}>\\]", options: .regularExpression) != nil)

        var plain = SamplePage.context
        plain.pdfStandard = .none
        let bytes = try SearchablePDF.render([page], context: plain, title: "scan.png")
        let plainText = Self.text(bytes)
        #expect(!plainText.contains("/Metadata") && !plainText.contains("/OutputIntents") && plainText.contains("/ID [<"))
        #expect(archived.count - bytes.count < 8_000, "the profile and the XMP: \(archived.count - bytes.count) bytes")
    }

    @Test func pdfDatesBecomeXMPDatesToTheirPrecision() {
        #expect(PDFArchive.xmpDate("D:20160119123847+01'00'") == "2016-01-19T12:38:47+01:00")
        #expect(PDFArchive.xmpDate("D:20160119123847-05'30") == "2016-01-19T12:38:47-05:30")
        #expect(PDFArchive.xmpDate("D:20170203040506Z") == "2017-02-03T04:05:06Z")
        #expect(PDFArchive.xmpDate("D:20170203040506Z00'00'") == "2017-02-03T04:05:06Z")
        #expect(PDFArchive.xmpDate("20160119") == "2016-01-19")
        #expect(PDFArchive.xmpDate("D:2016") == "2016")
        #expect(PDFArchive.xmpDate("D:2016011912") == "2016-01-19T12:00", "XMP has no hour without minutes")
        for unreadable in ["", "D:", "yesterday", "D:20161319", "D:20160119123847+1", "D:20160119123847 PST"] {
            #expect(PDFArchive.xmpDate(unreadable) == nil, "\(unreadable)")
        }
        // A date that cannot be said in the XMP is left out of the information dictionary too.
        let description = PDFArchive.Description(title: "t", producer: "p", creator: "c", author: "A",
                                                 created: "D:20160119123847Z", modified: "last week")
        #expect(description.information.map(\.key) == ["/Title", "/Producer", "/Creator", "/Author", "/CreationDate"])
        let xmp = PDFArchive.metadata(description)
        #expect(xmp.contains("<dc:creator><rdf:Seq><rdf:li>A</rdf:li></rdf:Seq></dc:creator>"))
        #expect(xmp.contains("<xmp:CreateDate>2016-01-19T12:38:47Z</xmp:CreateDate>") && !xmp.contains("ModifyDate"))
    }

    @Test func theFileIdentifierComesFromTheFilesBytes() throws {
        let page = SearchablePDFPage(report: SamplePage.report(), picture: Self.greyPicture(), resolution: 300)
        func identifier(_ title: String) throws -> String? {
            let text = Self.text(try SearchablePDF.render([page], context: SamplePage.context, title: title))
            return text.range(of: "/ID \\[<[0-9A-F]+>", options: .regularExpression).map { String(text[$0]) }
        }
        #expect(try identifier("a.png") == identifier("a.png"))
        #expect(try identifier("a.png") != identifier("b.png"))
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

    @Test func pageSizesFollowABelievedResolutionWithinWhatReadersAccept() {
        let a4 = PDFPageSize.of(PixelSize(width: 2480, height: 3508), resolution: 300)
        #expect(abs(a4.width - 595.2) < 0.01 && abs(a4.height - 841.92) < 0.01)
        #expect(PDFPageSize.of(PixelSize(width: 1200, height: 600), resolution: 150).width == 576)
        // A PNG's 300 ppi reads back as 299.9994.
        #expect(abs(PDFPageSize.of(PixelSize(width: 960, height: 528), resolution: 299.9994).width - 230.4) < 0.001)
        // A PDF page drawn at 72 ppi is its own size: that resolution is known, not stated.
        #expect(PDFPageSize.of(PixelSize(width: 720, height: 360), resolution: 72, exact: true).width == 720)
        #expect(PDFPageSize.of(PixelSize(width: 1, height: 1), resolution: 300).width == 3)
        #expect(abs(PDFPageSize.of(PixelSize(width: 100_000, height: 10), resolution: 300).width - 14_400) < 0.001)
    }

    @Test func withoutABelievableResolutionThePageIsA4OrLetterFittedToThePicture() {
        func size(_ width: Int, _ height: Int, _ resolution: Double?) -> (Double, Double) {
            let page = PDFPageSize.of(PixelSize(width: width, height: height), resolution: resolution)
            return ((page.width * 100).rounded() / 100, (page.height * 100).rounded() / 100)
        }
        // An A4 scan stating 96 ppi, or 72, or nothing: an A4 page, not 25.8 x 36.5 inches.
        for stated in [96.0, 72, 96.012, 99.4, nil] {
            #expect(size(2480, 3508, stated) == (595.18, 841.89), "\(String(describing: stated))")
        }
        // A Letter scan (8.5 x 11 at 300 ppi) is Letter; a square photo's page is as wide as
        // Letter, which it covers more of; a wide one lies on A4's long side.
        #expect(size(2550, 3300, 96) == (612, 792))
        #expect(size(1000, 1000, nil) == (612, 612))
        #expect(size(960, 528, nil) == (841.89, 463.04))
        #expect(PDFPageSize.fitted(PixelSize(width: 1000, height: 1352)).paper == .letter)
        #expect(PDFPageSize.fitted(PixelSize(width: 1000, height: 1354)).paper == .a4)
        #expect(PDFPageSize.fitted(PixelSize(width: 1354, height: 1000)).paper == .a4)
        // Believed from 100 ppi: the page is its pixels at it.
        #expect(size(1000, 1000, 99.5) == (723.62, 723.62))
        #expect(size(1000, 1000, 4800) == (15, 15))
        #expect(size(1000, 1000, 4801) == (612, 612))
    }

    @Test func thePDFAndTheReadingBelieveTheSameResolutions() {
        for stated in [nil, 0, 72, 96, 99, 100, 150, 300, 4800, 4801] as [Int?] {
            let believed = StatedResolution.believed(stated)
            #expect(StatedResolution.believed(stated.map(Double.init)) == believed.map(Double.init))
            let size = PixelSize(width: 1000, height: 1414)
            let page = PDFPageSize.of(size, resolution: stated.map(Double.init))
            let expected = believed.map { 72 / Double($0) } ?? PDFPageSize.fitted(size).pointsPerPixel
            #expect(page.pointsPerPixel == expected, "\(String(describing: stated))")
        }
    }
}
