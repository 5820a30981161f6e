import Foundation
import GlossGeometry
import Testing

struct PageTransformTests {
    static let page = PixelSize(width: 300, height: 200)

    static func close(_ a: NormalizedPoint, _ b: NormalizedPoint, within tolerance: Double = 1e-9) -> Bool {
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    @Test("a point goes to the prepared page and back unchanged", arguments: [0, 1, 2, 3], [0, 3, -2.5, 0.15])
    func pointsRoundTrip(turns: Int, skew: Double) {
        let transform = PageTransform(quarterTurns: turns, skew: skew, inputSize: Self.page)
        for (x, y) in [(0.0, 0.0), (1, 1), (0.25, 0.8), (0.5, 0.5), (0.9, 0.1)] {
            let point = NormalizedPoint(x: x, y: y)
            let there = transform.preparedPoint(ofInput: point)
            #expect(Self.close(transform.inputPoint(ofPrepared: there), point), "\(turns) \(skew) at \(point)")
        }
    }

    @Test("a quarter turn clockwise takes the top-left corner to the top right, and swaps the sides")
    func quarterTurnsTurnClockwise() {
        let quarter = PageTransform(quarterTurns: 1, inputSize: Self.page)
        #expect(quarter.preparedSize == PixelSize(width: 200, height: 300))
        #expect(quarter.rotation == 90)
        // Pixel corners, origin top left: (0, 0) of the input is (200, 0) on the turned page.
        let corner = quarter.preparedPixel(ofInput: PixelPoint(x: 0, y: 0))
        #expect(corner == PixelPoint(x: 200, y: 0))
        let half = PageTransform(quarterTurns: 2, inputSize: Self.page)
        #expect(half.preparedPixel(ofInput: PixelPoint(x: 10, y: 20)) == PixelPoint(x: 290, y: 180))
        let three = PageTransform(quarterTurns: -1, inputSize: Self.page)
        #expect(three.quarterTurns == 3)
        #expect(three.preparedPixel(ofInput: PixelPoint(x: 0, y: 0)) == PixelPoint(x: 0, y: 300))
    }

    @Test("a word's box on a turned page maps to the same pixels the word had on the input", arguments: [1, 2, 3])
    func quarterTurnedBoxesMapExactly(turns: Int) {
        let transform = PageTransform(quarterTurns: turns, inputSize: Self.page)
        let word = PixelRect(x: 40, y: 30, width: 60, height: 12)
        let onInput = NormalizedRect(word, in: Self.page)
        let onPrepared = transform.preparedRect(ofInput: onInput)
        #expect(onPrepared != onInput)
        let back = PixelRect(transform.inputRect(ofPrepared: onPrepared), in: Self.page)
        #expect(back == word)
        // A quarter turn swaps the box's sides.
        let turned = PixelRect(onPrepared, in: transform.preparedSize)
        #expect(turns % 2 == 1 ? (turned.width, turned.height) == (12, 60) : (turned.width, turned.height) == (60, 12))
    }

    @Test("levelling grows the canvas to hold the whole turned page, and turns counter-clockwise")
    func levellingGrowsTheCanvas() {
        let transform = PageTransform(skew: 3, inputSize: Self.page)
        let radians = 3 * Double.pi / 180
        #expect(transform.preparedSize.width == Int((300 * cos(radians) + 200 * sin(radians)).rounded(.up)))
        #expect(transform.preparedSize.height == Int((300 * sin(radians) + 200 * cos(radians)).rounded(.up)))
        // Seen on screen, a counter-clockwise turn lifts the right end of a level line.
        let left = transform.preparedPixel(ofInput: PixelPoint(x: 50, y: 100))
        let right = transform.preparedPixel(ofInput: PixelPoint(x: 250, y: 100))
        #expect(right.y < left.y)
        #expect(abs(atan2(left.y - right.y, right.x - left.x) - radians) < 1e-9)
        // Every corner of the input stays on the canvas.
        for corner in [PixelPoint(x: 0, y: 0), PixelPoint(x: 300, y: 0), PixelPoint(x: 0, y: 200), PixelPoint(x: 300, y: 200)] {
            let p = transform.preparedPixel(ofInput: corner)
            #expect(p.x >= -1e-9 && p.x <= Double(transform.preparedSize.width) + 1e-9)
            #expect(p.y >= -1e-9 && p.y <= Double(transform.preparedSize.height) + 1e-9)
        }
    }

    @Test("a box on a levelled page maps to the bounding box of its corners, within the input page")
    func levelledBoxesAreBoundingBoxes() {
        let transform = PageTransform(quarterTurns: 1, skew: -2, inputSize: Self.page)
        let word = NormalizedRect(x: 0.3, y: 0.4, width: 0.2, height: 0.05)
        let mapped = transform.inputRect(ofPrepared: word)
        let corners = [(word.minX, word.minY), (word.maxX, word.minY), (word.minX, word.maxY), (word.maxX, word.maxY)]
            .map { transform.inputPoint(ofPrepared: NormalizedPoint(x: $0.0, y: $0.1)) }
        #expect(abs(mapped.minX - corners.map(\.x).min()!) < 1e-12)
        #expect(abs(mapped.maxY - corners.map(\.y).max()!) < 1e-12)
        // The whole prepared canvas, margins included, is clamped to the input page.
        let everything = transform.inputRect(ofPrepared: NormalizedRect(x: 0, y: 0, width: 1, height: 1))
        #expect(everything == NormalizedRect(x: 0, y: 0, width: 1, height: 1))
    }

    @Test("the identity changes nothing")
    func identity() {
        let transform = PageTransform.identity(Self.page)
        #expect(transform.isIdentity && transform.preparedSize == Self.page)
        let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)
        #expect(transform.inputRect(ofPrepared: rect) == rect)
    }
}
