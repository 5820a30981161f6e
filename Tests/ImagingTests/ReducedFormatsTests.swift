import Foundation
import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

/// WebP, TIFF, GIF and the rest are reduced as they are read when they are too large to hold
/// whole, as PNG and JPEG are, and what a decoder would hold whole is bounded (issue 16).
struct ReducedFormatsTests {
    /// The mean of each `factor` x `factor` block of `whole`, as the reduced decode should give it.
    static func blockMeans(of whole: Raster, factor: Int) -> Raster {
        let width = (whole.width + factor - 1) / factor, height = (whole.height + factor - 1) / factor
        let c = whole.channels
        var pixels = [UInt8](repeating: 0, count: width * height * c)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<c {
                    var sum = 0, count = 0
                    for wy in (y * factor)..<min(whole.height, (y + 1) * factor) {
                        for wx in (x * factor)..<min(whole.width, (x + 1) * factor) {
                            sum += Int(whole.pixels[(wy * whole.width + wx) * c + channel])
                            count += 1
                        }
                    }
                    pixels[(y * width + x) * c + channel] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return Raster(width: width, height: height, layout: whole.layout, pixels: pixels)
    }

    static func meanDifference(_ a: Raster, _ b: Raster) -> Double {
        Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }

    /// Leptonica's formats: every block the exact mean of its pixels. WebP: libwebp's rescaler,
    /// the same picture give or take its filter.
    @Test(arguments: [("formats/page.webp", 3.0), ("formats/page.gif", 0), ("formats/page.bmp", 0), ("formats/page.pgm", 0),
                      ("text/two-pages.tif", 0), ("../fuzz/seeds/image/tiny-g4.tif", 0)])
    func aLargeImageIsReducedAsItIsRead(fixture: String, tolerance: Double) throws {
        let file = try ImageFile(contentsOf: Fixtures.path(fixture))
        let whole = try file.decodePage()
        let limit = whole.raster.size.pixelCount / 5  // a factor of 3 brings it under a fifth
        let reduced = try file.decodePage(wholeLimit: limit)
        #expect(reduced.size == whole.size, "reports keep the file's own pixels")
        #expect(reduced.raster.size == PixelSize(width: (whole.raster.width + 2) / 3, height: (whole.raster.height + 2) / 3))
        #expect(reduced.raster.layout == whole.raster.layout)
        let expected = Self.blockMeans(of: whole.raster, factor: 3)
        if tolerance == 0 {
            let worst = zip(reduced.raster.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(fixture): every block is the mean of its pixels (off by \(worst))")
        } else {
            #expect(Self.meanDifference(reduced.raster, expected) < tolerance, "\(fixture): the same picture, smaller")
        }
    }

    @Test func aOneBitPageBecomesBlackAndWhiteGrey() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("../fuzz/seeds/image/tiny-g4.tif")).decodePage()
        #expect(page.raster.layout == .gray)
        #expect(Set(page.raster.pixels) == [0, 255])
    }

    /// A lossless WebP's header, 12000x12000, and nothing of its pixels: libwebp would hold it
    /// whole at 4 bytes a pixel (576 MB), whatever size it was asked for.
    static let largeLosslessWebP: [UInt8] = {
        let bits = UInt32(12000 - 1) | UInt32(12000 - 1) << 14 | 0 << 28
        let chunk = [0x2F] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) } + [0, 0, 0]
        func littleEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return Array("RIFF".utf8) + littleEndian(4 + 8 + chunk.count) + Array("WEBPVP8L".utf8) + littleEndian(chunk.count) + chunk
    }()

    @Test func aLosslessWebPHasNoLimitOfItsOwnButTheMaximumPixels() throws {
        let file = try ImageFile(bytes: Self.largeLosslessWebP, path: "big.webp")
        #expect(file.storedSize == PixelSize(width: 12000, height: 12000))
        #expect(file.pixelCount(ofPage: 0) == 144_000_000, "what it takes of the pixel budget: what libwebp holds")
        let error = try #require(throws: ImagingError.self) {
            try ImageFile(bytes: Self.largeLosslessWebP, path: "big.webp", pixelLimit: 100_000_000)
        }
        #expect(error.reason == .tooLarge(width: 12000, height: 12000, limit: 100_000_000))
        #expect(error.description.contains("image is 12000x12000 = 144000000 pixels, above the limit of 100000000 (see --max-pixels)"),
                "\(error)")
    }

    /// giflib decodes every frame before Leptonica keeps the first: a second frame claiming
    /// 65535x65535 would be allocated (4 GiB) and decoded. Only the first is.
    @Test func onlyTheFirstImageOfAGIFIsDecoded() throws {
        let single = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("formats/page.gif"))))
        #expect(single.last == 0x3B)
        let secondFrame: [UInt8] = [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 8, 2, 0x00, 0x01, 0]
        let animated = single.dropLast() + secondFrame + [0x3B]
        let file = try ImageFile(bytes: Array(animated), path: "animated.gif")
        #expect(file.storedSize == PixelSize(width: 656, height: 240))
        #expect(try file.decodePage().raster == ImageFile(bytes: single, path: "page.gif").decodePage().raster)
    }
}
