import Foundation
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
        ("bad/truncated.webp", "decode", "WebP: the data ends early"),
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

    /// A lossless WebP of 48 megapixels, flat colour, made by Pillow in a scratch file: above
    /// the 40 megapixels Gloss once refused such a file at, whatever `--max-pixels` said.
    @Test func aLosslessWebPAboveFortyMegapixelsIsRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-lossless-\(UUID().uuidString).webp").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        maker.arguments = ["-c", "import sys; from PIL import Image; "
                           + "Image.new('RGB', (8000, 6000), (200, 120, 40)).save(sys.argv[1], 'WEBP', lossless=True, method=0)", path]
        try maker.run()
        maker.waitUntilExit()
        try #require(maker.terminationStatus == 0, "Pillow could not write the WebP")
        let file = try ImageFile(contentsOf: path)
        #expect(file.format == .webp && file.storedSize == PixelSize(width: 8000, height: 6000))
        let page = try file.decodePage()
        #expect(page.raster.width == 8000 && page.raster.height == 6000 && page.raster.layout == .rgb)
        #expect(Array(page.raster.pixels.prefix(3)) == [200, 120, 40] && Array(page.raster.pixels.suffix(3)) == [200, 120, 40])
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

    /// Bytes between the last scan and the end-of-image marker (which cameras, scanners and
    /// editors leave) come after every row: the page reads as without them. Cut short, the
    /// same file is still refused (the truncated fixtures above).
    @Test(arguments: ["text/upright.jpg", "odd/progressive.jpg", "odd/cmyk.jpg"])
    func bytesBeforeTheEndMarkerDoNotRefuseTheFile(fixture: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture))))
        try #require(bytes.suffix(2) == [0xFF, 0xD9])
        let junk = Array(bytes.dropLast(2)) + [0x00, 0x13, 0x37] + [0xFF, 0xD9]
        let plain = try ImageFile(bytes: bytes, path: fixture).decodePage().raster
        #expect(try ImageFile(bytes: junk, path: fixture).decodePage().raster == plain)
        let cut = Array(junk.prefix(junk.count * 2 / 3))
        #expect(throws: ImagingError.self) { try ImageFile(bytes: cut, path: fixture).decodePage() }
    }

    /// A PNG too large to decode whole is reduced as its rows are read; an interlaced one
    /// cannot be, and is refused as too large for its kind, not called corrupt.
    @Test func anInterlacedPNGTooLargeToReadWholeIsRefusedAsSuch() throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("text/sans.png"))))
        let file = try ImageFile(bytes: bytes, path: "sans.png")
        #expect(try file.decodePage(wholeLimit: 100_000).raster.size.pixelCount <= 100_000, "reduced as it is read")
        // The same header saying Adam7 (IHDR's last byte), its checksum made again.
        bytes[28] = 1
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[12..<29] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for index in 0..<4 { bytes[29 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        let interlaced = try ImageFile(bytes: bytes, path: "sans.png")
        let error = try #require(throws: ImagingError.self) { try interlaced.decodePage(wholeLimit: 100_000) }
        guard case .tooLargeForDecoder = error.reason else {
            Issue.record("\(error)")
            return
        }
        #expect(error.description.contains("interlaced PNG"))
    }

    /// Its samples are the 8-bit page's times 257: they keep their high bytes, not read as
    /// linear light (which would brighten every mid-grey).
    @Test func a16BitPNGKeepsItsHighBytes() throws {
        let plain = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        #expect(try ImageFile(contentsOf: Fixtures.path("odd/sixteen-bit.png")).decodePage().raster == plain)
    }

    @Test(arguments: [("odd/one-pixel.png", PixelSize(width: 1, height: 1)),
                      ("odd/one-by-100000.png", PixelSize(width: 1, height: 100_000))])
    func aDegenerateSizeDecodes(fixture: String, size: PixelSize) throws {
        #expect(try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster.size == size)
    }

    // MARK: Found by the fuzzer (fuzz/found)

    static func found(_ name: String) -> String { Fixtures.folder + "/../fuzz/found/" + name }

    @Test func aLaterTIFFPageThatClaimsTooManyPixelsIsRefusedBeforeDecoding() throws {
        let path = Self.found("image-1")
        let file = try ImageFile(contentsOf: path, pixelLimit: 4_000_000)
        #expect(throws: ImagingError(path: path, reason: .tooLarge(width: 12000, height: 12000, limit: 4_000_000))) {
            try file.decodePage(1)
        }
    }

    /// A two-page TIFF: an 8 x 8 white page, then one whose width and height are stored as
    /// `type` (TIFF's field types: 3 SHORT, 9 SLONG, ...), with a strip of a few bytes.
    static func tiff(secondPage width: Int, _ height: Int, type: UInt16) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        func directory(_ w: Int, _ h: Int, _ sizeType: UInt16, strip: Int, length: Int, next: Int) -> [UInt8] {
            let size = { (v: Int) in sizeType == 3 ? le16(v) + [0, 0] : le32(v) }
            let entries: [(Int, UInt16, [UInt8])] = [(256, sizeType, size(w)), (257, sizeType, size(h)), (258, 3, le16(8) + [0, 0]),
                                                     (259, 3, le16(1) + [0, 0]), (262, 3, le16(1) + [0, 0]), (273, 4, le32(strip)),
                                                     (277, 3, le16(1) + [0, 0]), (278, 4, le32(h)), (279, 4, le32(length))]
            return le16(entries.count) + entries.flatMap { le16($0.0) + le16(Int($0.1)) + le32(1) + $0.2 } + le32(next)
        }
        var bytes: [UInt8] = Array("II*\0".utf8) + le32(8) + [UInt8](repeating: 255, count: 64) + [UInt8](repeating: 255, count: 16)
        let first = bytes.count, second = first + 2 + 12 * 9 + 4
        bytes += directory(8, 8, 3, strip: 8, length: 64, next: second)
        bytes += directory(width, height, type, strip: 72, length: 16, next: 0)
        bytes.replaceSubrange(4..<8, with: le32(first))
        return bytes
    }

    /// A later page's size is read whatever integer type its tags use, as libtiff reads it:
    /// stored as SLONG (or SSHORT, BYTE), it went unchecked and the page was decoded whole.
    @Test(arguments: [UInt16(4), 9])
    func aLaterTIFFPageOfAnyIntegerSizeTypeIsHeldToTheLimit(type: UInt16) throws {
        let file = try ImageFile(bytes: Self.tiff(secondPage: 20000, 20000, type: type), path: "two.tif", pixelLimit: 1_000_000)
        #expect(try file.decodePage(0).raster.size == PixelSize(width: 8, height: 8))
        #expect(throws: ImagingError(path: "two.tif", reason: .tooLarge(width: 20000, height: 20000, limit: 1_000_000))) {
            try file.decodePage(1)
        }
    }

    /// A BMP's size is read from its header before anything is decoded: 70 bytes claiming
    /// 12000 x 12000 are refused as too large (Leptonica's header read decoded the image, so
    /// they read as a damaged header, and a whole one was decoded before the limit).
    @Test func aBMPIsHeldToThePixelLimitByItsHeader() throws {
        func le(_ v: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(v >> (8 * $0) & 0xFF) } }
        let header = Array("BM".utf8) + le(70, 4) + le(0, 4) + le(54, 4) + le(40, 4) + le(12000, 4) + le(-12000, 4)
            + le(1, 2) + le(24, 2) + [UInt8](repeating: 0, count: 24)
        #expect(throws: ImagingError(path: "big.bmp", reason: .tooLarge(width: 12000, height: 12000, limit: 1_000_000))) {
            try ImageFile(bytes: header + [UInt8](repeating: 0, count: 16), path: "big.bmp", pixelLimit: 1_000_000)
        }
        let page = try ImageFile(contentsOf: Fixtures.path("formats/page.bmp"))
        #expect(page.storedSize == (try page.decodePage().raster.size))
    }

    @Test func emptyTIFFDirectoriesAreNoPages() throws {
        #expect(try ImageFile(contentsOf: Self.found("image-2")).pageCount <= 2)
    }

    @Test func aTIFFPageCountIsBounded() throws {
        let file = try ImageFile(contentsOf: Self.found("image-3"))
        #expect(file.pageCount > 1 && file.pageCount <= TIFFFile.maximumPages)
        _ = try file.decodePage(0)
        // More directories than the bound, each the same 8 x 8 page: counted as the bound.
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        var bytes: [UInt8] = Array("II*\0".utf8) + le32(72) + [UInt8](repeating: 255, count: 64)
        let count = TIFFFile.maximumPages + 50, size = 2 + 12 * 9 + 4
        for index in 0..<count {
            let entries: [(Int, Int, [UInt8])] = [(256, 3, le16(8) + [0, 0]), (257, 3, le16(8) + [0, 0]), (258, 3, le16(8) + [0, 0]),
                                                  (259, 3, le16(1) + [0, 0]), (262, 3, le16(1) + [0, 0]), (273, 4, le32(8)),
                                                  (277, 3, le16(1) + [0, 0]), (278, 4, le32(8)), (279, 4, le32(64))]
            let next = index + 1 < count ? 72 + (index + 1) * size : 0
            bytes += le16(entries.count) + entries.flatMap { le16($0.0) + le16($0.1) + le32(1) + $0.2 } + le32(next)
        }
        let many = try ImageFile(bytes: bytes, path: "many.tif")
        #expect(many.pageCount == TIFFFile.maximumPages)
        #expect(try many.decodePage(TIFFFile.maximumPages - 1).raster.size == PixelSize(width: 8, height: 8))
    }

    @Test func aJPEGStatesItsResolution() throws {
        #expect(try ImageFile(contentsOf: Fixtures.path("text/upright.jpg")).decodePage().resolution == 300)
    }
}

/// A PNG too large to hold whole is reduced as it is read, block by block.
struct ReducedDecodingTests {
    @Test(arguments: ["text/sans.png", "text/serif.png", "odd/palette.png", "odd/grey-alpha.png", "odd/sixteen-bit.png"])
    func aLargePNGIsReadAsTheAverageOfItsBlocks(fixture: String) throws {
        let file = try ImageFile(contentsOf: Fixtures.path(fixture))
        let whole = try file.decodePage().raster
        let reduced = try file.decodePage(wholeLimit: 100_000)
        #expect(reduced.size == whole.size, "reports keep the file's own pixels")
        let factor = 3  // the smallest whole factor that brings 960x528 under 100,000 pixels
        #expect(reduced.raster.width == (whole.width + 2) / factor && reduced.raster.height == (whole.height + 2) / factor)
        #expect(reduced.raster.layout == whole.layout)
        let channels = whole.layout.rawValue
        var worst = 0
        for y in 0..<reduced.raster.height {
            for x in 0..<reduced.raster.width {
                for channel in 0..<channels {
                    var sum = 0, count = 0
                    for wy in (y * factor)..<min(whole.height, (y + 1) * factor) {
                        for wx in (x * factor)..<min(whole.width, (x + 1) * factor) {
                            sum += Int(whole.pixels[(wy * whole.width + wx) * channels + channel])
                            count += 1
                        }
                    }
                    let expected = (sum + count / 2) / count
                    worst = max(worst, abs(expected - Int(reduced.raster.pixels[(y * reduced.raster.width + x) * channels + channel])))
                }
            }
        }
        #expect(worst <= 1, "\(fixture): every block is the mean of its pixels (off by \(worst))")
    }

    @Test func aTruncatedLargePNGFailsWithLibpngsReason() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("bad/truncated.png"))
        let error = try #require(throws: ImagingError.self) { try file.decodePage(wholeLimit: 100_000) }
        #expect(error.description.contains("libpng: read beyond end of data"), "\(error)")
    }
}

/// A JPEG too large to hold whole is decoded at one of libjpeg's DCT scales.
struct ReducedJPEGTests {
    @Test(arguments: ["text/upright.jpg", "text/rotated.jpg", "odd/progressive.jpg", "odd/cmyk.jpg"])
    func aLargeJPEGIsDecodedAtAReducedScale(fixture: String) throws {
        let file = try ImageFile(contentsOf: Fixtures.path(fixture))
        let whole = try file.decodePage()
        let reduced = try file.decodePage(wholeLimit: whole.raster.size.pixelCount / 3)
        #expect(reduced.size == whole.size, "reports keep the file's own pixels, upright")
        #expect(reduced.raster.width == (whole.raster.width + 1) / 2 && reduced.raster.height == (whole.raster.height + 1) / 2,
                "half scale is the largest under a third of the pixels")
        let expected = whole.raster.resampled(width: reduced.raster.width, height: reduced.raster.height).grayscale()
        let difference = zip(reduced.raster.grayscale().pixels, expected.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(expected.pixels.count) < 8, "\(fixture): the same picture, smaller")
    }
}
