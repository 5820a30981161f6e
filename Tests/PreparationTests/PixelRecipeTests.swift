import GlossImaging
@testable import GlossPreparation
import GlossTestSupport
import Testing

@Suite struct PixelRecipeTests {
    private func page(_ relative: String) throws -> Raster {
        try ImageFile(contentsOf: Fixtures.path(relative)).decodePage(0).raster.grayscale()
    }

    /// `sans.png` under light that fades from full on the left to a third on the right.
    private func shaded() throws -> Raster {
        let clean = try page("text/sans.png")
        var pixels = clean.pixels
        for y in 0..<clean.height {
            for x in 0..<clean.width {
                let light = 1 - 0.66 * Double(x) / Double(clean.width)
                pixels[y * clean.width + x] = UInt8(Double(pixels[y * clean.width + x]) * light)
            }
        }
        return Raster(width: clean.width, height: clean.height, layout: .gray, pixels: pixels)
    }

    /// The paper's level in the columns `range`: the brightest tenth of its pixels.
    private func paper(_ page: Raster, columns range: Range<Int>) -> Int {
        var values: [UInt8] = []
        for y in 0..<page.height { for x in range { values.append(page[x, y]) } }
        values.sort()
        return Int(values[values.count * 9 / 10])
    }

    @Test func flatteningMakesTheShadedPaperWhiteAndKeepsTheInk() throws {
        let shaded = try shaded()
        #expect(paper(shaded, columns: 880..<960) < 120)
        let flat = PixelRecipe(flattensBackground: true, normalizesContrast: true).rendered(shaded)
        #expect(paper(flat, columns: 0..<80) >= 240)
        #expect(paper(flat, columns: 880..<960) >= 220)
        // The letters stay dark where they were: the ink of the clean page is ink still.
        let clean = try page("text/sans.png")
        let ink = clean.pixels.indices.filter { clean.pixels[$0] < 60 }
        let stillInk = ink.filter { flat.pixels[$0] < 128 }.count
        #expect(Double(stillInk) / Double(ink.count) > 0.95)
    }

    @Test func binarisationLeavesOnlyBlackAndWhite() throws {
        for binarization in [PixelRecipe.Binarization.otsu, .sauvola(window: 64, k: 0.3)] {
            let rendered = PixelRecipe(flattensBackground: true, binarization: binarization).rendered(try shaded())
            #expect(Set(rendered.pixels).isSubset(of: [0, 255]))
            #expect(rendered.pixels.filter { $0 == 0 }.count > 1000)
        }
    }

    @Test func inversionTurnsLightTextOnDarkIntoDarkOnLight() throws {
        let clean = try page("text/sans.png")
        let dark = Raster(width: clean.width, height: clean.height, layout: .gray, pixels: clean.pixels.map { 255 - $0 })
        let (recipe, _) = PixelRecipe.chosen(for: dark)
        #expect(recipe.inverts)
        let rendered = recipe.rendered(dark)
        #expect(zip(rendered.pixels, clean.pixels).filter { abs(Int($0) - Int($1)) > 40 }.count < clean.pixels.count / 100)
    }

    @Test func aCleanPageIsLeftAlone() throws {
        #expect(PixelRecipe.chosen(for: try page("text/sans.png")).recipe.isIdentity)
    }

    @Test func thePhotographedPageInUnevenLightIsFlattened() throws {
        let (recipe, unevenness) = PixelRecipe.chosen(for: try page("scans/page.png"))
        #expect(recipe.flattensBackground, "unevenness \(unevenness)")
    }

    /// A page whose paper changes in steps (a grey panel on white, as on a slide) is designed
    /// so, not lit unevenly: flattening it lost F1 on real screenshots.
    @Test func aPanelOnThePageIsNotUnevenLight() throws {
        let clean = try page("text/sans.png")
        var pixels = clean.pixels
        for y in 0..<clean.height { for x in 0..<(clean.width / 2) { pixels[y * clean.width + x] = UInt8(Double(pixels[y * clean.width + x]) * 0.6) } }
        let panel = Raster(width: clean.width, height: clean.height, layout: .gray, pixels: pixels)
        #expect(!PixelRecipe.chosen(for: panel).recipe.flattensBackground)
    }
}
