import GlossGeometry
import Testing

struct OrientationTests {
    @Test("every stored pixel shows at exactly one upright pixel", arguments: Orientation.allCases)
    func pixelMappingIsABijection(orientation: Orientation) {
        let stored = PixelSize(width: 7, height: 4)
        let upright = orientation.uprightSize(of: stored)
        var seen = Set<Int>()
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                let s = orientation.storedPixel(atUpright: x, y, storedSize: stored)
                #expect((0..<stored.width).contains(s.x) && (0..<stored.height).contains(s.y))
                seen.insert(s.y * stored.width + s.x)
            }
        }
        #expect(seen.count == stored.pixelCount)
    }

    @Test("rectangles turn the way pixels turn", arguments: Orientation.allCases)
    func rectanglesFollowPixels(orientation: Orientation) {
        let stored = PixelSize(width: 5, height: 3)
        let upright = orientation.uprightSize(of: stored)
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                let s = orientation.storedPixel(atUpright: x, y, storedSize: stored)
                let storedRect = NormalizedRect(PixelRect(x: s.x, y: s.y, width: 1, height: 1), in: stored)
                let mapped = PixelRect(orientation.upright(storedRect), in: upright)
                #expect(mapped == PixelRect(x: x, y: y, width: 1, height: 1), "\(orientation) at \(x),\(y)")
            }
        }
    }

    @Test func rightTurnsTheStoredTopRowIntoTheRightColumn() {
        // EXIF 6: the stored first row is the visual right side, the first column the visual top.
        let stored = PixelSize(width: 4, height: 2)
        #expect(Orientation.right.uprightSize(of: stored) == PixelSize(width: 2, height: 4))
        #expect(Orientation.right.storedPixel(atUpright: 1, 0, storedSize: stored) == (0, 0))
        let topLeftCorner = NormalizedPoint(x: 0, y: 1)  // stored top-left, bottom-left origin
        #expect(Orientation.right.upright(topLeftCorner) == NormalizedPoint(x: 1, y: 1))
    }

    @Test func upLeavesEverythingAlone() {
        let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)
        #expect(Orientation.up.upright(rect) == rect)
        #expect(!Orientation.up.swapsAxes && Orientation.left.swapsAxes)
    }
}
