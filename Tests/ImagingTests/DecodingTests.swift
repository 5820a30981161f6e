import GlossGeometry
import GlossImaging
import GlossTestSupport
import Testing

struct DecodingTests {
    @Test(arguments: [("text/sans.png", Raster.Layout.gray), ("text/serif.png", .rgb), ("text/upright.jpg", .rgb)])
    func decodesSizeLayoutAndResolution(fixture: String, layout: Raster.Layout) throws {
        let truth = try Fixtures.truth(fixture.replacingOccurrences(of: ".png", with: ".json")
            .replacingOccurrences(of: ".jpg", with: ".json"))[0]
        let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage()
        #expect(page.raster.size == PixelSize(width: truth.width, height: truth.height))
        #expect(page.raster.layout == layout)
        #expect(page.resolution == 300)
        #expect(page.orientation == .up)
    }

    @Test(arguments: [("pgm", ImageFormat.pnm), ("webp", .webp), ("gif", .gif), ("bmp", .bmp)])
    func everyOtherFormatGivesTheSamePixels(extension: String, format: ImageFormat) throws {
        let truth = try Fixtures.truth("formats/page.json")[0]
        let file = try ImageFile(contentsOf: Fixtures.path("formats/page." + `extension`))
        #expect(file.format == format)
        let pixels = try file.decodePage().raster.grayscale()
        #expect(pixels.size == PixelSize(width: truth.width, height: truth.height))
        let reference = try ImageFile(contentsOf: Fixtures.path("formats/page.pgm")).decodePage().raster
        #expect(pixels.pixels == reference.pixels, "all four are lossless copies of one page")
    }

    @Test func pixelsAreWhereTheRendererPutThem() throws {
        // The first word's ink box must hold dark pixels and the margin above it none.
        let truth = try Fixtures.truth("text/sans.json")[0]
        let raster = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let box = truth.words[0].box
        let inkInBox = (box.y..<box.y + box.height).contains { y in
            (box.x..<box.x + box.width).contains { x in raster[x, y] < 100 }
        }
        let inkAbove = (0..<box.y - 2).contains { y in (0..<raster.width).contains { x in raster[x, y] < 100 } }
        #expect(inkInBox && !inkAbove)
    }

    @Test func exifRotatedJPEGDecodesUpright() throws {
        let rotated = try ImageFile(contentsOf: Fixtures.path("text/rotated.jpg"))
        let upright = try ImageFile(contentsOf: Fixtures.path("text/upright.jpg")).decodePage()
        #expect(rotated.storedSize == PixelSize(width: 384, height: 912))
        let page = try rotated.decodePage()
        #expect(page.orientation == .right)
        #expect(page.raster.size == upright.raster.size)
        let a = page.raster.grayscale().pixels, b = upright.raster.grayscale().pixels
        let meanDifference = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / a.count
        #expect(meanDifference < 3)
    }

    @Test func aTIFFsOwnOrientationTagIsAppliedOnce() throws {
        let file = try ImageFile(contentsOf: Fixtures.path("text/rotated.tif"))
        #expect(file.storedSize == PixelSize(width: 384, height: 912))
        let page = try file.decodePage()
        #expect(page.raster.size == PixelSize(width: 912, height: 384))
        let upright = try ImageFile(contentsOf: Fixtures.path("text/upright.jpg")).decodePage().raster.grayscale()
        let meanDifference = zip(page.raster.pixels, upright.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            / upright.pixels.count
        #expect(meanDifference < 8)
    }

    @Test func everyPageOfATIFFIsItsOwnPage() throws {
        let truth = try Fixtures.truth("text/two-pages.json")
        let file = try ImageFile(contentsOf: Fixtures.path("text/two-pages.tif"))
        #expect(file.format == .tiff && file.pageCount == 2)
        for (index, page) in truth.enumerated() {
            let decoded = try file.decodePage(index)
            #expect(decoded.raster.size == PixelSize(width: page.width, height: page.height))
        }
        #expect(throws: ImagingError.self) { try file.decodePage(2) }
    }

    @Test(arguments: [
        ("bad/empty.png", ImagingError.Reason.empty),
        ("bad/not-an-image.png", .unsupportedFormat),
        ("no/such/file.png", .unreadable("No such file or directory")),
        ("text", .unreadable("not a regular file")),
    ])
    func refusesWhatIsNotAnImageAtOpen(fixture: String, reason: ImagingError.Reason) {
        let path = Fixtures.path(fixture)
        #expect(throws: ImagingError(path: path, reason: reason)) { try ImageFile(contentsOf: path) }
    }

    @Test func truncatedDataFailsAtDecodeNamingTheFile() throws {
        let path = Fixtures.path("bad/truncated.png")
        let file = try ImageFile(contentsOf: path)  // the header is intact
        let error = try #require(throws: ImagingError.self) { try file.decodePage() }
        guard case .corrupt = error.reason else { Issue.record("expected corrupt, got \(error)"); return }
        #expect(error.description.hasPrefix(path))
    }

    @Test func refusesTooManyPixelsBeforeDecoding() {
        let path = Fixtures.path("text/sans.png")
        #expect(throws: ImagingError(path: path, reason: .tooLarge(width: 960, height: 528, limit: 500_000))) {
            try ImageFile(contentsOf: path, pixelLimit: 500_000)
        }
    }

    @Test(arguments: [Raster.Layout.gray, .rgb])
    func pngRoundTrip(layout: Raster.Layout) throws {
        let pixels = (0..<(13 * 7 * layout.rawValue)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let raster = Raster(width: 13, height: 7, layout: layout, pixels: pixels)
        let decoded = try ImageFile(bytes: try raster.pngData(), path: "memory").decodePage()
        #expect(decoded.raster == raster)
    }
}

extension DecodingTests {
    @Test func aGreyPageSavedAsColourDecodesGrey() throws {
        let values = (0..<(13 * 7)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let colour = Raster(width: 13, height: 7, layout: .rgb, pixels: values.flatMap { [$0, $0, $0] })
        let decoded = try ImageFile(bytes: try colour.pngData(), path: "memory").decodePage()
        #expect(decoded.raster == Raster(width: 13, height: 7, layout: .gray, pixels: values))
    }
}

struct ExifTests {
    @Test func readsTheOrientationOfACameraJPEG() throws {
        let bytes = try [UInt8](contentsOf: Fixtures.path("text/rotated.jpg"))
        #expect(ExifReader.orientation(inJPEG: bytes) == .right)
        #expect(ExifReader.orientation(inJPEG: try [UInt8](contentsOf: Fixtures.path("text/upright.jpg"))) == nil)
    }

    @Test(arguments: [true, false])
    func readsBothByteOrders(littleEndian: Bool) {
        for orientation in Orientation.allCases {
            #expect(ExifReader.orientation(inJPEG: jpeg(orientation: orientation.rawValue, littleEndian: littleEndian)) == orientation)
        }
    }

    @Test func survivesTruncationAtEveryByte() {
        let whole = jpeg(orientation: 6, littleEndian: true)
        for length in 0..<whole.count {
            _ = ExifReader.orientation(inJPEG: whole.prefix(length))  // must not trap
        }
        #expect(ExifReader.orientation(inJPEG: whole.prefix(20)) == nil)
    }

    /// A minimal JPEG start: SOI and an APP1 Exif segment with one Orientation entry.
    private func jpeg(orientation: Int, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 255), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 255)] }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        let tiff = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        let body: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + body + [0xFF, 0xD9]
    }
}

extension Array where Element == UInt8 {
    init(contentsOf path: String) throws {
        self = Array(try ImageFileBytes.read(path))
    }
}

private enum ImageFileBytes {
    static func read(_ path: String) throws -> [UInt8] {
        guard let handle = fopen(path, "rb") else { throw ImagingError(path: path, reason: .unreadable("fopen")) }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}

#if canImport(Glibc)
import Glibc
#endif
