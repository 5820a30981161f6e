import Foundation
import GlossImaging
import GlossTestSupport
import Testing

/// The report's pictures: documents as small palette PNGs that keep every stroke, photos as
/// JPEGs close to the original, and thumbnails that fit the index's cards.
struct DisplayPictureTests {
    @Test(arguments: ["text/sans.png", "text/mono.png", "formats/page.pgm"])
    func aGreyDocumentIsAPaletteOfSixteenShades(fixture: String) throws {
        let raster = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster
        let picture = try DisplayPicture(showing: raster)
        #expect(picture.kind == .document)
        #expect(picture.fileExtension == "png")
        #expect(Array(picture.bytes[24..<26]) == [4, 3], "IHDR: 4 bits a pixel, palette colour type")
        let shown = try ImageFile(bytes: picture.bytes, path: "shown.png").decodePage().raster.grayscale()
        let grey = raster.grayscale()
        #expect(shown.size == grey.size)
        // Sixteen evenly spaced shades: no pixel moves by more than half a step (8.5 of 255).
        let worst = zip(shown.pixels, grey.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 9, "\(fixture): \(worst)")
        #expect(picture.bytes.count <= (try raster.pngData(fast: true)).count, "never more than the 8-bit PNG")
    }

    @Test func aScansGrainCostsLittle() throws {
        // Paper grain, as a scanner records it: every pixel off by up to 6 levels.
        let clean = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        var state: UInt32 = 12345
        let grainy = Raster(width: clean.width, height: clean.height, layout: .gray, pixels: clean.pixels.map { value in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(clamping: Int(value) + Int(state >> 28) % 13 - 6)
        })
        let picture = try DisplayPicture(showing: grainy)
        #expect(picture.kind == .document)
        let png = try grainy.pngData(fast: true).count
        #expect(picture.bytes.count * 2 < png, "\(picture.bytes.count) of \(png)")
    }

    @Test(arguments: ["faces/astronaut.png", "faces/astronaut-trio.png", "text/serif.png", "scans/page.png"])
    func aPhotoOrAColouredPageIsAJPEGCloseToTheOriginal(fixture: String) throws {
        let raster = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster
        let picture = try DisplayPicture(showing: raster)
        #expect(picture.kind == .photo)
        #expect(picture.mediaType == "image/jpeg")
        #expect(Array(picture.bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let shown = try ImageFile(bytes: picture.bytes, path: "shown.jpg").decodePage().raster
        #expect(shown.size == raster.size && shown.layout == raster.layout)
        // Peak signal-to-noise: quality 85 stays above the 30 dB where artefacts show (type's
        // sharp edges are the hardest case).
        let squares = zip(shown.pixels, raster.pixels).reduce(0.0) { $0 + Double((Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1))) }
        let psnr = 10 * log10(255.0 * 255.0 / (squares / Double(raster.pixels.count)))
        #expect(psnr > 30, "\(fixture): \(psnr) dB")
        #expect(picture.bytes.count * 3 < (try raster.pngData(fast: true)).count || !fixture.hasPrefix("faces/"))
    }

    /// A file a browser shows as Gloss reads it, near the display size and no heavier than a
    /// display copy, is its own display picture, byte for byte.
    @Test(arguments: ["text/sans.png", "text/serif.png", "odd/palette.png", "odd/sixteen-bit.png", "text/upright.jpg",
                      "odd/progressive.jpg"])
    func aLightFileIsShownAsItIs(fixture: String) throws {
        let file = try ImageFile(contentsOf: Fixtures.path(fixture))
        let picture = try #require(DisplayPicture(reusing: file, fitting: 2000))
        #expect(picture.kind == .original && picture.format == file.format)
        #expect(picture.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(fixture)))))
        #expect(picture.fileExtension == (file.format == .png ? "png" : "jpg"))
    }

    /// Transparency (shown on white by Gloss, on the page's background by a browser), an Exif
    /// turn, CMYK, a heavy photo, a format browsers do not show, and a file more than twice the
    /// display size: each gets a display copy.
    @Test(arguments: [("odd/grey-alpha.png", 2000), ("text/rotated.jpg", 2000), ("odd/cmyk.jpg", 2000),
                      ("faces/astronaut.png", 2000), ("text/two-pages.tif", 2000), ("formats/page.webp", 2000),
                      ("text/sans.png", 400)])
    func otherFilesGetADisplayCopy(fixture: String, dimension: Int) throws {
        #expect(DisplayPicture(reusing: try ImageFile(contentsOf: Fixtures.path(fixture)), fitting: dimension) == nil)
    }

    @Test func aThumbnailFitsTheCardAndKeepsTheShape() throws {
        let raster = try ImageFile(contentsOf: Fixtures.path("faces/astronaut-trio.png")).decodePage().raster
        let thumbnail = try DisplayPicture(thumbnailOf: raster)
        let shown = try ImageFile(bytes: thumbnail.bytes, path: "thumb.jpg").decodePage().raster
        #expect(max(shown.width, shown.height) == DisplayPicture.thumbnailSide)
        let aspect = Double(raster.width) / Double(raster.height), shownAspect = Double(shown.width) / Double(shown.height)
        #expect(abs(aspect - shownAspect) < 0.01)
        #expect(thumbnail.bytes.count < 40_000, "\(thumbnail.bytes.count)")
    }

    @Test func fewerShadesPackIntoFewerBits() throws {
        let raster = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let depths = try [2, 4, 16].map { try raster.posterizedPNGData(levels: $0)[24] }
        #expect(depths == [1, 2, 4])
        let two = try ImageFile(bytes: try raster.posterizedPNGData(levels: 2), path: "two.png").decodePage().raster.grayscale()
        #expect(Set(two.pixels) == [0, 255])
    }
}
