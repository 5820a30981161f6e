import GlossGeometry
import GlossNeuralNetwork

/// A line the detector found: a rectangle, possibly tilted, in the page's pixels.
public struct DetectedBox: Sendable, Equatable {
    /// The four corners in the page's pixels (origin top left, y down), clockwise from the top
    /// left: top left, top right, bottom right, bottom left (RapidOCR's order).
    public var corners: [PixelPoint]
    /// The mean probability of text inside the region's rectangle, 0...1.
    public var score: Double

    public init(corners: [PixelPoint], score: Double) {
        precondition(corners.count == 4, "a box has four corners")
        self.corners = corners
        self.score = score
    }
}

/// DB post-processing (PaddleOCR's `DBPostProcess` as RapidOCR 3.10.0 configures it): the
/// probability map thresholded and dilated, each region's minimum-area rectangle scored and
/// grown ("unclipped", `RoundOffset`), mapped to the page and ordered in reading order.
public enum BoxFinder {
    /// The boxes in `map` (`1 x H x W` probabilities, the detector's output for `plan.input`),
    /// in the page's pixels, top to bottom and left to right.
    public static func boxes(in map: FeatureMap, plan: DetectorPlan, policy: DetectionPolicy = .rapidOCR) -> [DetectedBox] {
        precondition(map.channels >= 1 && map.width == plan.input.width && map.height == plan.input.height,
                     "a \(map.width)x\(map.height) map for a \(plan.input) input")
        let width = map.width, height = map.height
        let mask = textMask(map, policy: policy)
        let padded = plan.padded
        var found: [(corners: [SIMD2<Double>], score: Double)] = []
        map.storage.withUnsafeBufferPointer { probabilities in
            for outline in Regions(mask: mask, width: width, height: height).outlines.prefix(policy.maximumCandidates) {
                guard let rectangle = RotatedRectangle(around: outline), rectangle.shorterSide >= policy.smallestSide else { continue }
                let score = meanProbability(inside: rectangle.corners, of: probabilities, width: width, height: height)
                guard score >= policy.boxThreshold else { continue }
                // OpenCV gives the corners in single precision; the unclip distance is computed
                // from them in double (shapely), the outline grown in whole pixels (Clipper).
                let corners = rectangle.corners.map { SIMD2(Double(Float($0.x)), Double(Float($0.y))) }
                let area = abs(zip(corners, corners.dropFirst() + [corners[0]]).map { $0.x * $1.y - $1.x * $0.y }.reduce(0, +)) / 2
                let perimeter = zip(corners, corners.dropFirst() + [corners[0]]).map { ($1 - $0).length }.reduce(0, +)
                guard perimeter > 0,
                      let grown = RotatedRectangle(around: RoundOffset.grown(corners, by: area * policy.unclipRatio / perimeter)),
                      grown.shorterSide >= policy.smallestGrownSide else { continue }
                // To the padded image's pixels, rounded (half to even) and clipped, in float as NumPy.
                func scaled(_ value: Double, _ from: Int, _ to: Int) -> Double {
                    let v = (Float(value) / Float(from) * Float(to)).rounded(.toNearestOrEven)
                    return Double(min(max(v, 0), Float(to)))
                }
                var box = grown.corners.map { SIMD2(scaled($0.x, width, padded.width), scaled($0.y, height, padded.height)) }
                box = clockwise(box).map {
                    SIMD2(min(max($0.x, 0), Double(padded.width - 1)).rounded(.towardZero), min(max($0.y, 0), Double(padded.height - 1)).rounded(.towardZero))
                }
                guard Int((box[0] - box[1]).length) > policy.largestDroppedSide, Int((box[0] - box[3]).length) > policy.largestDroppedSide else { continue }
                found.append((box, score))
            }
        }
        return readingOrder(found, tolerance: policy.rowTolerance).map { box in
            let corners = box.corners.map { point in
                let x = Double(Float(point.x) * Float(plan.ratioX)), y = Double(Float(point.y - Double(plan.padding)) * Float(plan.ratioY))
                return PixelPoint(x: min(max(x, 0), Double(plan.page.width)), y: min(max(y, 0), Double(plan.page.height)))
            }
            return DetectedBox(corners: corners, score: box.score)
        }
    }

    /// Probability above the threshold, then (`use_dilation`) each pixel set when it or its
    /// left, upper or upper-left neighbour is: OpenCV's dilation by a 2x2 square.
    static func textMask(_ map: FeatureMap, policy: DetectionPolicy) -> [UInt8] {
        let width = map.width, height = map.height
        var mask = [UInt8](repeating: 0, count: width * height)
        for i in 0..<mask.count where map.storage[i] > policy.pixelThreshold { mask[i] = 1 }
        guard policy.dilates else { return mask }
        var dilated = mask
        for y in 0..<height {
            for x in 0..<width where mask[y * width + x] == 0 {
                let left = x > 0 && mask[y * width + x - 1] != 0
                let up = y > 0 && (mask[(y - 1) * width + x] != 0 || (x > 0 && mask[(y - 1) * width + x - 1] != 0))
                if left || up { dilated[y * width + x] = 1 }
            }
        }
        return dilated
    }

    /// `box_score_fast`: the mean probability over the pixels of the rectangle's polygon (its
    /// corners truncated to whole pixels in the bounding crop, edges included).
    static func meanProbability(inside corners: [SIMD2<Double>], of map: UnsafeBufferPointer<Float>, width: Int, height: Int) -> Double {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = min(max(Int(xs.min()!.rounded(.down)), 0), width - 1), x1 = min(max(Int(xs.max()!.rounded(.up)), 0), width - 1)
        let y0 = min(max(Int(ys.min()!.rounded(.down)), 0), height - 1), y1 = min(max(Int(ys.max()!.rounded(.up)), 0), height - 1)
        let polygon = corners.map { SIMD2(Double(Int($0.x - Double(x0))), Double(Int($0.y - Double(y0)))) }
        var sum = 0.0, count = 0
        for row in 0...(y1 - y0) {
            let y = Double(row)
            var low = Double.infinity, high = -Double.infinity
            for (a, b) in zip(polygon, polygon.dropFirst() + [polygon[0]]) where min(a.y, b.y) <= y && y <= max(a.y, b.y) {
                if a.y == b.y {
                    low = min(low, a.x, b.x)
                    high = max(high, a.x, b.x)
                } else {
                    let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y)
                    low = min(low, x)
                    high = max(high, x)
                }
            }
            guard low <= high else { continue }
            let from = max(0, Int(low.rounded())), to = min(x1 - x0, Int(high.rounded()))
            guard from <= to else { continue }
            let base = (y0 + row) * width + x0
            for x in from...to { sum += Double(map[base + x]) }
            count += to - from + 1
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// `order_points_clockwise`: the two leftmost corners (stable sort by x) top then bottom
    /// make the top left and bottom left; the others the top right and bottom right.
    static func clockwise(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let byX = stableSorted(points) { $0.x < $1.x }
        let left = stableSorted(Array(byX[0..<2])) { $0.y < $1.y }, right = stableSorted(Array(byX[2..<4])) { $0.y < $1.y }
        return [left[0], right[0], right[1], left[1]]
    }

    static func stableSorted<T>(_ items: [T], by less: (T, T) -> Bool) -> [T] {
        items.enumerated().sorted { less($0.element, $1.element) || (!less($1.element, $0.element) && $0.offset < $1.offset) }.map(\.element)
    }

    /// RapidOCR's `sorted_boxes`: by the top-left corner's y; a gap of `tolerance` or more
    /// between consecutive corners starts a new row; within a row, by the top-left corner's x.
    static func readingOrder<T>(_ boxes: [(corners: [SIMD2<Double>], score: T)], tolerance: Double) -> [(corners: [SIMD2<Double>], score: T)] {
        let byY = stableSorted(boxes) { $0.corners[0].y < $1.corners[0].y }
        var row = 0
        var rows: [Int] = []
        for (index, box) in byY.enumerated() {
            if index > 0 && box.corners[0].y - byY[index - 1].corners[0].y >= tolerance { row += 1 }
            rows.append(row)
        }
        let order = stableSorted(Array(byY.indices)) { (a: Int, b: Int) -> Bool in
            rows[a] != rows[b] ? rows[a] < rows[b] : byY[a].corners[0].x < byY[b].corners[0].x
        }
        return order.map { byY[$0] }
    }
}

/// The regions of a binary mask as OpenCV's `findContours` (`RETR_LIST`) lists their outlines:
/// the outer boundary of each 8-connected region of set pixels and the boundary around each
/// hole (a 4-connected region of clear pixels that does not reach the image's edge). An outline
/// is given by the points that decide its convex hull: each row's leftmost and rightmost
/// boundary pixels. Found run by run with a union-find.
struct Regions {
    private(set) var outlines: [[SIMD2<Int>]] = []

    init(mask: [UInt8], width: Int, height: Int) {
        var regions = Self.components(of: mask, width: width, height: height, value: 1, diagonal: true).map { region in
            region.rows.flatMap { [SIMD2($0.low, $0.y), SIMD2($0.high, $0.y)] }
        }
        for hole in Self.components(of: mask, width: width, height: height, value: 0, diagonal: false) where !hole.touchesEdge {
            regions.append(hole.rows.flatMap { row in
                [SIMD2(row.low - 1, row.y), SIMD2(row.high + 1, row.y), SIMD2(row.low, row.y - 1), SIMD2(row.high, row.y - 1),
                 SIMD2(row.low, row.y + 1), SIMD2(row.high, row.y + 1)]
            })
        }
        // OpenCV lists the outlines it finds last first: from the bottom of the image up.
        outlines = regions.reversed()
    }

    struct Component {
        /// Per row, in order: the leftmost and rightmost pixel of the component.
        var rows: [(y: Int, low: Int, high: Int)] = []
        var touchesEdge = false
    }

    /// The connected components of pixels equal to `value`, in the order of their first pixel.
    static func components(of mask: [UInt8], width: Int, height: Int, value: UInt8, diagonal: Bool) -> [Component] {
        var runs: [(y: Int, start: Int, end: Int)] = []
        var labels = DisjointSets()
        let reach = diagonal ? 1 : 0
        var previous = 0..<0
        for y in 0..<height {
            let rowStart = runs.count
            var x = 0, above = previous.lowerBound
            while x < width {
                while x < width && mask[y * width + x] != value { x += 1 }
                guard x < width else { break }
                let start = x
                while x < width && mask[y * width + x] == value { x += 1 }
                let end = x - 1
                let label = runs.count
                runs.append((y, start, end))
                _ = labels.add()
                while above < previous.upperBound && runs[above].end < start - reach { above += 1 }
                var k = above
                while k < previous.upperBound && runs[k].start <= end + reach {
                    labels.join(k, label)
                    k += 1
                }
            }
            previous = rowStart..<runs.count
        }
        var index: [Int: Int] = [:]
        var components: [Component] = []
        for (label, run) in runs.enumerated() {
            let r = labels.root(label)
            let slot: Int
            if let known = index[r] {
                slot = known
            } else {
                slot = components.count
                index[r] = slot
                components.append(Component())
            }
            if let last = components[slot].rows.last, last.y == run.y {
                components[slot].rows[components[slot].rows.count - 1] = (run.y, min(last.low, run.start), max(last.high, run.end))
            } else {
                components[slot].rows.append((run.y, run.start, run.end))
            }
            if run.y == 0 || run.y == height - 1 || run.start == 0 || run.end == width - 1 { components[slot].touchesEdge = true }
        }
        return components
    }
}
