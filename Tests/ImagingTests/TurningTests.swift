import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

struct TurningTests {
    static func page(_ fixture: String = "text/sans.png") throws -> Raster {
        try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster.grayscale()
    }

    @Test("quarter turns move whole pixels where the transform says", arguments: [1, 2, 3])
    func quarterTurnsMovePixels(turns: Int) {
        var pixels = [UInt8](repeating: 255, count: 6 * 4)
        pixels[1 * 6 + 4] = 0
        let raster = Raster(width: 6, height: 4, layout: .gray, pixels: pixels)
        let transform = PageTransform(quarterTurns: turns, inputSize: raster.size)
        let turned = raster.transformed(by: transform)
        #expect(turned.size == transform.preparedSize)
        let centre = transform.preparedPixel(ofInput: PixelPoint(x: 4.5, y: 1.5))
        #expect(turned[Int(centre.x), Int(centre.y)] == 0)
        #expect(turned.pixels.filter { $0 == 0 }.count == 1)
    }

    @Test("a levelled page keeps its ink where the transform puts it, with white corners")
    func levellingFollowsTheTransform() throws {
        let raster = try Self.page()
        let transform = PageTransform(skew: 4, inputSize: raster.size)
        let turned = raster.transformed(by: transform)
        #expect(turned.size == transform.preparedSize)
        #expect(turned[0, 0] == 255 && turned[turned.width - 1, turned.height - 1] == 255)
        // Every dark pixel of the input is dark where the transform takes it (within a pixel:
        // the turned page is sampled between pixels).
        var checked = 0
        for y in stride(from: 0, to: raster.height, by: 3) {
            for x in stride(from: 0, to: raster.width, by: 3) where raster[x, y] < 40 {
                let there = transform.preparedPixel(ofInput: PixelPoint(x: Double(x) + 0.5, y: Double(y) + 0.5))
                let near = (-1...1).flatMap { dy in (-1...1).map { dx in turned[Int(there.x) + dx, Int(there.y) + dy] } }
                #expect(near.min()! < 100, "ink at \(x),\(y)")
                checked += 1
            }
        }
        #expect(checked > 500)
    }

    @Test("levelling samples a page with a cubic that keeps a plane a plane: every pixel is the input's value where the transform reads it")
    func levellingReproducesAPlane() {
        // Brightness rising one level a pixel across and down: a plane, which the cubic
        // reproduces exactly, so each output pixel is the plane at its source point, to the
        // rounding of the output. A sample off by a pixel would be a level off.
        let (width, height) = (110, 100)
        let plane = { (x: Double, y: Double) in 20 + x + y }
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = UInt8(plane(Double(x), Double(y))) } }
        let ramp = Raster(width: width, height: height, layout: .gray, pixels: pixels)
        let transform = PageTransform(skew: 3, inputSize: ramp.size)
        let levelled = ramp.transformed(by: transform)
        var worst = 0.0, checked = 0
        for y in 0..<levelled.height {
            for x in 0..<levelled.width {
                let source = transform.inputPixel(ofPrepared: PixelPoint(x: Double(x) + 0.5, y: Double(y) + 0.5))
                // Well inside the page, where all sixteen neighbours are pixels of the plane.
                guard source.x > 3, source.y > 3, source.x < Double(width) - 3, source.y < Double(height) - 3 else { continue }
                worst = max(worst, abs(Double(levelled[x, y]) - plane(source.x - 0.5, source.y - 0.5)))
                checked += 1
            }
        }
        #expect(checked > 8000)
        #expect(worst <= 0.5 + 1e-9)
    }

    @Test("Leptonica measures a page turned by 3 degrees as 3 degrees off, the other way", arguments: [3.0, -3.0, 1.0])
    func skewIsMeasured(degrees: Double) throws {
        let raster = try Self.page("text/serif.png")
        let straight = try #require(InkPage(grey: raster)?.skew())
        #expect(abs(straight.levellingDegrees) < 0.2)
        let skewed = raster.transformed(by: PageTransform(skew: degrees, inputSize: raster.size))
        let measured = try #require(InkPage(grey: skewed)?.skew())
        #expect(abs(measured.levellingDegrees + degrees) < 0.15, "\(measured)")
        #expect(measured.confidence >= 3)
    }

    @Test("Leptonica reads an upright page as upright, and one on its head or side as not")
    func textDirection() throws {
        let raster = try Self.page("text/serif.png")
        let ink = try #require(InkPage(grey: raster))
        let upright = ink.textDirection()
        #expect(upright.upConfidence >= 5 && upright.suggestedRotation == 0)
        let onItsHead = try #require(ink.turned(quarterTurns: 2)).textDirection()
        #expect(onItsHead.upConfidence <= -5 && onItsHead.suggestedRotation == 180)
        // Turned a quarter clockwise, it is stood up by three more.
        let onItsSide = try #require(ink.turned(quarterTurns: 1)).textDirection()
        #expect(onItsSide.suggestedRotation == 270)
        #expect(try #require(ink.turned(quarterTurns: 3)).textDirection().suggestedRotation == 90)
    }

    @Test("the sideways reading is skipped only when the upright one alone is strong enough")
    func sidewaysReadingIsSkippedOnlyWhenCertain() throws {
        let ink = try #require(InkPage(grey: Self.page("text/serif.png")))
        let full = ink.textDirection()
        #expect(full.sidewaysConfidence != 0)
        let below = ink.textDirection(certainlyUpright: full.upConfidence + 0.01)
        #expect(below == full)
        let above = ink.textDirection(certainlyUpright: full.upConfidence)
        #expect(above.upConfidence == full.upConfidence && above.sidewaysConfidence == 0)
        // A page on its side never reads strongly upright, so it always gets both readings.
        let onItsSide = try #require(ink.turned(quarterTurns: 1))
        #expect(onItsSide.textDirection(certainlyUpright: 5) == onItsSide.textDirection())
    }

    @Test("a page's levels are counted as one count would, at any length", arguments: ["text/serif.png", "scans/page.png"])
    func histogramCountsEveryLevel(fixture: String) throws {
        let pixels = try Self.page(fixture).pixels
        for values in [pixels, Array(pixels.dropLast(3))] {
            var expected = [Int](repeating: 0, count: 256)
            for value in values { expected[Int(value)] += 1 }
            #expect(Raster.histogram(of: values) == expected)
            #expect(Raster.otsuThreshold(histogram: expected) == Raster.otsuThreshold(of: values))
        }
        let threshold = Raster.otsuThreshold(of: pixels)
        #expect(threshold > 60 && threshold < 200, "\(threshold)")
    }
}

struct PaperTests {
    @Test("the corners a levelling uncovers take the page's paper, which is its median")
    func cornersTakeThePaper() {
        // A grey page (190) with a little ink, framed in white on two sides.
        var pixels = [UInt8](repeating: 190, count: 100 * 80)
        for x in 0..<100 { pixels[x] = 255; pixels[100 + x] = 255 }
        for y in 30..<40 { for x in 20..<70 { pixels[y * 100 + x] = 20 } }
        let page = Raster(width: 100, height: 80, layout: .gray, pixels: pixels)
        #expect(page.medianValues(step: 1) == [190])
        let levelled = page.transformed(by: PageTransform(skew: 5, inputSize: page.size), background: page.medianValues())
        #expect(levelled[0, 0] == 190 && levelled[levelled.width - 1, levelled.height - 1] == 190)
        let colour = Raster(width: 2, height: 2, layout: .rgb, pixels: [10, 200, 30, 10, 200, 30, 10, 200, 30, 250, 250, 250])
        #expect(colour.medianValues(step: 1) == [10, 200, 30])
    }
}
