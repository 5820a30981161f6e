import Foundation
import GlossGeometry
import GlossNeuralNetwork
import GlossNeuralReading
import Testing

/// BoxFinder's decisions on hand-made probability maps.
struct BoxFinderTests {
    /// A map of `width` x `height` (the page's size too: no scaling) with `value` inside each
    /// rectangle (centre, size, angle in degrees, y down, positive clockwise on screen).
    static func map(width: Int, height: Int, blobs: [(cx: Double, cy: Double, w: Double, h: Double, degrees: Double, value: Float)])
        -> (FeatureMap, DetectorPlan)
    {
        var map = FeatureMap(channels: 1, height: height, width: width)
        for y in 0..<height {
            for x in 0..<width {
                for blob in blobs {
                    let a = blob.degrees * .pi / 180
                    let dx = Double(x) - blob.cx, dy = Double(y) - blob.cy
                    let u = dx * cos(a) + dy * sin(a), v = -dx * sin(a) + dy * cos(a)
                    if abs(u) <= blob.w / 2 && abs(v) <= blob.h / 2 { map[0, y, x] = blob.value }
                }
            }
        }
        let size = PixelSize(width: width, height: height)
        return (map, DetectorPlan(page: size, bounded: size, padding: 0, input: size, ratioX: 1, ratioY: 1))
    }

    @Test func twoBlobsAreTwoBoxesInReadingOrder() {
        // The right-hand blob sits 4 px higher: the same row, so it still comes second.
        let (map, plan) = Self.map(width: 160, height: 96, blobs: [(40, 30, 50, 12, 0, 0.9), (115, 26, 50, 12, 0, 0.9), (60, 70, 80, 12, 0, 0.8)])
        let boxes = BoxFinder.boxes(in: map, plan: plan)
        #expect(boxes.count == 3)
        guard boxes.count == 3 else { return }
        #expect(boxes[0].corners[0].x < 20 && boxes[1].corners[0].x > 80 && boxes[2].corners[0].y > 50)
        // A blob of 51 x 13 pixels, dilated to 52 x 14, whose pixel centres span a 51 x 13
        // rectangle, grown on every side by area * 1.6 / perimeter.
        let width = boxes[0].corners[1].x - boxes[0].corners[0].x, height = boxes[0].corners[3].y - boxes[0].corners[0].y
        let distance = 51.0 * 13 * 1.6 / (2 * (51 + 13))
        #expect(abs(width - (51 + 2 * distance)) <= 1 && abs(height - (13 + 2 * distance)) <= 1, "\(width) x \(height)")
        // The score is the mean inside the rectangle, the dilated row and column (0) included.
        #expect(abs(boxes[0].score - 0.9 * 51 * 13 / (52 * 14)) < 0.01, "\(boxes[0].score)")
        #expect(abs(boxes[2].score - 0.8 * 81 * 13 / (82 * 14)) < 0.01, "\(boxes[2].score)")
    }

    @Test func aFaintBlobIsNoBox() {
        // Above the pixel threshold 0.3, under the box threshold 0.5.
        let (map, plan) = Self.map(width: 120, height: 60, blobs: [(60, 30, 60, 14, 0, 0.45)])
        #expect(BoxFinder.boxes(in: map, plan: plan).isEmpty)
        var lower = DetectionPolicy.rapidOCR
        lower.boxThreshold = 0.4
        #expect(BoxFinder.boxes(in: map, plan: plan, policy: lower).count == 1)
    }

    @Test func aThinBlobIsNoBox() {
        let (map, plan) = Self.map(width: 120, height: 60, blobs: [(60, 30, 60, 1, 0, 0.95)])
        #expect(BoxFinder.boxes(in: map, plan: plan).isEmpty)
    }

    @Test func aTiltedBlobIsARotatedRectangle() throws {
        let (map, plan) = Self.map(width: 200, height: 140, blobs: [(100, 70, 120, 16, 12, 0.9)])
        let boxes = BoxFinder.boxes(in: map, plan: plan)
        try #require(boxes.count == 1)
        let c = boxes[0].corners
        let top = atan2(c[1].y - c[0].y, c[1].x - c[0].x) * 180 / .pi
        let bottom = atan2(c[2].y - c[3].y, c[2].x - c[3].x) * 180 / .pi
        #expect(abs(top - 12) < 1.5 && abs(bottom - 12) < 1.5, "edges at \(top)° and \(bottom)°")
        // Clockwise from the top left: the top left is the leftmost of the two upper corners.
        #expect(c[0].x < c[1].x && c[3].x < c[2].x && c[0].y < c[3].y && c[1].y < c[2].y)
        let length = ((c[1].x - c[0].x) * (c[1].x - c[0].x) + (c[1].y - c[0].y) * (c[1].y - c[0].y)).squareRoot()
        // 121 pixels long, grown by about 12 at each end.
        #expect(length > 138 && length < 150, "\(length)")
    }

    @Test func boxesAreScaledToThePage() throws {
        let (map, small) = Self.map(width: 128, height: 64, blobs: [(64, 32, 60, 12, 0, 0.9)])
        let plan = DetectorPlan(page: PixelSize(width: 256, height: 128), bounded: PixelSize(width: 256, height: 128), padding: 0,
                                input: small.input, ratioX: 1, ratioY: 1)
        let boxes = BoxFinder.boxes(in: map, plan: plan)
        try #require(boxes.count == 1)
        let centre = boxes[0].corners.reduce(0.0) { $0 + $1.x } / 4
        #expect(abs(centre - 129) < 2, "\(centre)")
        #expect(plan.scaleX == 2 && plan.scaleY == 2)
    }

    @Test func theLetterRuleScalesToTheTargetXHeight() throws {
        let policy = DetectionPolicy.rapidOCR
        let a4 = PixelSize(width: 2480, height: 3508)
        // Letters 40 px tall on the page, 16 at the input: scale 0.4, sides rounded to 32.
        let plan = try #require(policy.plan(for: a4, xHeight: 40))
        #expect(plan.input == PixelSize(width: 992, height: 1408) && plan.bounded == a4 && plan.padding == 0)
        #expect(abs(plan.scaleX - 2480.0 / 992) < 1e-12)
        // Tiny letters would blow the page up: the longer side stops near 2000.
        let small = try #require(policy.inputSize(for: a4, xHeight: 3))
        #expect(max(small.width, small.height) <= policy.largestInputSide + 16)
        // Huge letters: never below a quarter of the page.
        let large = try #require(policy.inputSize(for: a4, xHeight: 400))
        #expect(large == PixelSize(width: 608, height: 864))
        // Without a letter size, RapidOCR's rule.
        #expect(policy.inputSize(for: a4) == PixelSize(width: 1408, height: 1984))
    }
}
