import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

/// The broken and unusual files `fixtures/make-fixtures.py` makes: each broken one fails alone
/// with a reason a person can act on; each unusual but legal one reads like the plain page.
struct HostileInputTests {
    /// Broken files, the stage they fail at (opening reads the header, decoding the pixels) and
    /// the words their error must hold.
    @Test(arguments: [
        ("bad/bomb.png", "open", "65535x65535 = 4294836225 pixels, above the limit"),
        ("bad/random-bytes.png", "open", "not an image in a supported format"),
        ("bad/text-named.jpg", "open", "not an image in a supported format"),
        ("bad/truncated-after-header.png", "open", "the PNG header is cut short"),
        ("bad/truncated-at-20.tif", "open", "the TIFF header is cut short"),
        ("bad/truncated.gif", "open", "the GIF header is cut short"),
        ("bad/truncated.png", "decode", "libpng: read beyond end of data"),
        ("bad/truncated-at-90.png", "decode", "libpng: read beyond end of data"),
        ("bad/truncated-at-5.jpg", "decode", "JPEG: Premature end of JPEG file"),
        ("bad/truncated-at-50.jpg", "decode", "JPEG: Premature end of JPEG file"),
        ("bad/truncated-at-95.jpg", "decode", "JPEG: Premature end of JPEG file"),
        ("bad/truncated.webp", "decode", "WebP: the decoder found no image"),
    ])
    func aBrokenFileFailsWithItsReason(fixture: String, stage: String, reason: String) throws {
        let path = Fixtures.path(fixture)
        let error = try #require(throws: ImagingError.self) {
            let file = try ImageFile(contentsOf: path)
            #expect(stage == "decode", "\(fixture) opened")
            _ = try file.decodePage()
        }
        #expect(error.path == path)
        #expect(error.description.contains(reason), "\(error)")
    }

    @Test(arguments: [("bad/broken-second-page.tif", "page 2's pixels cannot be read"),
                      ("bad/truncated-at-60.tif", "page 2's directory lies beyond the end of the file")])
    func aTIFFWithABrokenPageKeepsItsGoodPage(fixture: String, reason: String) throws {
        let file = try ImageFile(contentsOf: Fixtures.path(fixture))
        #expect(file.pageCount == 2, "the broken page is counted, to be reported")
        let truth = try Fixtures.truth("text/two-pages.json")[0]
        #expect(try file.decodePage(0).raster.size == PixelSize(width: truth.width, height: truth.height))
        let error = try #require(throws: ImagingError.self) { try file.decodePage(1) }
        #expect(error.description.contains(reason), "\(error)")
    }

    /// Unusual encodings of `text/sans.png`'s page: the same pixels, give or take the encoding.
    @Test(arguments: ["odd/sixteen-bit.png", "odd/palette.png", "odd/grey-alpha.png", "odd/cmyk.jpg", "odd/progressive.jpg"])
    func anUnusualEncodingReadsLikeThePlainPage(fixture: String) throws {
        let plain = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let odd = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster.grayscale()
        #expect(odd.size == plain.size)
        let difference = zip(odd.pixels, plain.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(plain.pixels.count) < 6, "\(fixture): mean difference")
    }

    @Test(arguments: [("odd/one-pixel.png", PixelSize(width: 1, height: 1)),
                      ("odd/one-by-100000.png", PixelSize(width: 1, height: 100_000))])
    func aDegenerateSizeDecodes(fixture: String, size: PixelSize) throws {
        #expect(try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster.size == size)
    }

    @Test func aJPEGStatesItsResolution() throws {
        #expect(try ImageFile(contentsOf: Fixtures.path("text/upright.jpg")).decodePage().resolution == 300)
    }
}
