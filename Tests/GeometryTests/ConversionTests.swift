import GlossGeometry
import Testing

struct ConversionTests {
    static let sizes = [PixelSize(width: 1, height: 1), PixelSize(width: 7, height: 5),
                        PixelSize(width: 2480, height: 3508), PixelSize(width: 333, height: 1001)]

    @Test("pixel -> normalised -> pixel is the identity", arguments: sizes)
    func roundTrip(size: PixelSize) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let x = Int.random(in: 0..<size.width, using: &generator)
            let y = Int.random(in: 0..<size.height, using: &generator)
            let rect = PixelRect(x: x, y: y, width: Int.random(in: 0...(size.width - x), using: &generator),
                                 height: Int.random(in: 0...(size.height - y), using: &generator))
            #expect(PixelRect(NormalizedRect(rect, in: size), in: size) == rect)
        }
    }

    @Test func theTopOfThePageIsTheTopOfTheNormalisedSpace() {
        let size = PixelSize(width: 200, height: 100)
        let top = NormalizedRect(PixelRect(x: 0, y: 0, width: 200, height: 10), in: size)
        #expect(top == NormalizedRect(x: 0, y: 0.9, width: 1, height: 0.1))
        let bottomRight = NormalizedRect(PixelRect(x: 150, y: 75, width: 50, height: 25), in: size)
        #expect(bottomRight == NormalizedRect(x: 0.75, y: 0, width: 0.25, height: 0.25))
    }

    @Test func rectanglesTouchingEveryBorderStayInside() {
        let size = PixelSize(width: 37, height: 53)
        let whole = PixelRect(x: 0, y: 0, width: 37, height: 53)
        #expect(NormalizedRect(whole, in: size) == NormalizedRect(x: 0, y: 0, width: 1, height: 1))
        #expect(PixelRect(NormalizedRect(x: 0, y: 0, width: 1, height: 1), in: size) == whole)
    }

    @Test func emptyRectanglesStayEmptyAndInPlace() {
        let size = PixelSize(width: 10, height: 10)
        let empty = PixelRect(x: 4, y: 6, width: 0, height: 0)
        let normalized = NormalizedRect(empty, in: size)
        #expect(normalized.isEmpty)
        #expect(PixelRect(normalized, in: size) == empty)
    }

    /// A damaged record's box (a PDF's text drawn 1e20 points tall, a JSON edited by hand)
    /// trapped in `Int(_:)`; its edges now stop a page beyond the page.
    @Test func aBoxOfNaNOrInfiniteEdgesConvertsWithoutTrapping() {
        let size = PixelSize(width: 100, height: 50)
        let huge = PixelRect(NormalizedRect(x: 0.5, y: -1e300, width: .infinity, height: 1e308), in: size)
        #expect(huge == PixelRect(x: 50, y: -50, width: 150, height: 150), "\(huge)")
        let nan = PixelRect(NormalizedRect(x: .nan, y: 0.5, width: 0.25, height: 0.5), in: size)
        #expect(nan == PixelRect(x: 0, y: 0, width: 0, height: 25), "\(nan)")
    }

    @Test func adjacentRectanglesShareTheirEdgeInPixels() {
        // Thirds do not land on whole pixels; rounding each edge keeps the tiles gap-free.
        let size = PixelSize(width: 100, height: 100)
        let thirds = (0..<3).map { NormalizedRect(x: Double($0) / 3, y: 0, width: 1.0 / 3, height: 1) }
        let pixels = thirds.map { PixelRect($0, in: size) }
        #expect(pixels[0].maxX == pixels[1].x && pixels[1].maxX == pixels[2].x && pixels[2].maxX == 100)
    }

    @Test func pointsConvertBothWays() {
        let size = PixelSize(width: 640, height: 480)
        let point = PixelPoint(x: 160, y: 120)
        let normalized = NormalizedPoint(point, in: size)
        #expect(normalized == NormalizedPoint(x: 0.25, y: 0.75))
        #expect(PixelPoint(normalized, in: size) == point)
    }
}
