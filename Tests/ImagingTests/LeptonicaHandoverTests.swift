import CLeptonica
@testable import GlossImaging
import Testing

/// The image Tesseract is handed is the raster, pixel for pixel: Leptonica packs four grey
/// pixels or one colour pixel to a word, and a row's last word is partly padding.
struct LeptonicaHandoverTests {
    @Test(arguments: [Raster.Layout.gray, .rgb], [1, 3, 4, 5, 8, 13])
    func everyPixelArrivesWhereItWas(layout: Raster.Layout, width: Int) throws {
        let raster = RasterTests.noise(width: width, height: 3, layout: layout)
        let back = raster.withLeptonicaImage { image -> Raster? in
            let pix = UnsafeMutablePointer<PIX>(image)
            #expect(Int(pixGetDepth(pix)) == (layout == .gray ? 8 : 32))
            return LeptonicaImage(pixClone(pix))?.raster()
        }
        #expect(try #require(back) == raster)
    }
}
