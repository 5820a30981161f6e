import GlossContract
import GlossGeometry

/// The page reader's words shared out among the detected lines: each word goes to the line
/// whose quadrilateral holds the largest share of its box, when that share is at least the
/// policy's. The quadrilateral, not the upright box around it: a tilted line's upright box
/// reaches over its neighbours' words, and holds them as wholly as their own lines do.
public struct WordAssignment: Sendable, Equatable {
    /// Per detected line, the words it holds, in the page reader's order.
    public var byLine: [[RecognizedWord]]
    /// Per detected line, the page reader's line each of its words came from (an index into
    /// the page reader's lines), alongside `byLine`.
    public var sources: [[Int]]
    /// The page reader's lines cut down to their words in no detected line; a line left with
    /// none is dropped.
    public var outside: [TextLine]

    public init(text: RecognizedText, lines: [LineRegion], minimumShare: Double) {
        var byLine = [[RecognizedWord]](repeating: [], count: lines.count)
        var sources = [[Int]](repeating: [], count: lines.count)
        var outside: [TextLine] = []
        for (source, line) in text.lines.enumerated() {
            var left: [RecognizedWord] = []
            for word in line.words {
                if let index = Self.line(holding: word.box, among: lines, minimumShare: minimumShare) {
                    byLine[index].append(word)
                    sources[index].append(source)
                } else {
                    left.append(word)
                }
            }
            if !left.isEmpty {
                var kept = line
                kept.words = left
                kept.box = .enclosing(left.map(\.box))
                outside.append(kept)
            }
        }
        self.byLine = byLine
        self.sources = sources
        self.outside = outside
    }

    /// The index of the line holding the largest share of `box`, if at least `minimumShare`;
    /// ties go to the first. A box of no area is held by a line that contains its centre.
    static func line(holding box: NormalizedRect, among lines: [LineRegion], minimumShare: Double) -> Int? {
        var best: (index: Int, share: Double)?
        for (index, line) in lines.enumerated() {
            let share = line.share(of: box)
            if share >= minimumShare, share > (best?.share ?? -1) { best = (index, share) }
        }
        return best?.index
    }

    /// The fraction of `box`'s area inside `line`, 0...1.
    static func share(of box: NormalizedRect, in line: NormalizedRect) -> Double {
        let width = min(box.maxX, line.maxX) - max(box.minX, line.minX)
        let height = min(box.maxY, line.maxY) - max(box.minY, line.minY)
        let area = box.width * box.height
        guard area > 0 else {
            let (x, y) = (box.minX + box.width / 2, box.minY + box.height / 2)
            return (line.minX...line.maxX).contains(x) && (line.minY...line.maxY).contains(y) ? 1 : 0
        }
        guard width > 0, height > 0 else { return 0 }
        return width * height / area
    }
}

/// Where a detected line lies: its quadrilateral in the one currency, corners in order around
/// it. A convex one, as the detector's rotated rectangles are (an affine image of a rectangle
/// in the page's pixels).
public struct LineRegion: Sendable, Equatable {
    public var corners: [NormalizedPoint]
    /// The upright box around the corners.
    public var box: NormalizedRect

    public init(corners: [NormalizedPoint]) {
        precondition(corners.count >= 3, "a region has three corners or more")
        self.corners = corners
        let xs = corners.map(\.x), ys = corners.map(\.y)
        box = NormalizedRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    /// A level line filling `box`.
    public init(box: NormalizedRect) {
        corners = [NormalizedPoint(x: box.minX, y: box.maxY), NormalizedPoint(x: box.maxX, y: box.maxY),
                   NormalizedPoint(x: box.maxX, y: box.minY), NormalizedPoint(x: box.minX, y: box.minY)]
        self.box = box
    }

    /// Whether the corners are the upright box's own (a level line).
    var isUpright: Bool {
        corners.allSatisfy { ($0.x == box.minX || $0.x == box.maxX) && ($0.y == box.minY || $0.y == box.maxY) }
    }

    /// The fraction of `box`'s area inside the region, 0...1: the region clipped to the box
    /// (Sutherland and Hodgman's clipping by the box's four sides), over the box's area. A box
    /// of no area is held wholly when the region contains its centre.
    public func share(of word: NormalizedRect) -> Double {
        if isUpright { return WordAssignment.share(of: word, in: box) }
        let area = word.width * word.height
        guard area > 0 else {
            return contains(NormalizedPoint(x: word.minX + word.width / 2, y: word.minY + word.height / 2)) ? 1 : 0
        }
        guard word.maxX > box.minX, word.minX < box.maxX, word.maxY > box.minY, word.minY < box.maxY else { return 0 }
        var polygon = corners
        polygon = Self.clipped(polygon) { $0.x >= word.minX } crossing: { a, b in Self.atX(word.minX, a, b) }
        polygon = Self.clipped(polygon) { $0.x <= word.maxX } crossing: { a, b in Self.atX(word.maxX, a, b) }
        polygon = Self.clipped(polygon) { $0.y >= word.minY } crossing: { a, b in Self.atY(word.minY, a, b) }
        polygon = Self.clipped(polygon) { $0.y <= word.maxY } crossing: { a, b in Self.atY(word.maxY, a, b) }
        return min(1, Self.area(polygon) / area)
    }

    /// Whether `point` lies inside the region or on its edge.
    func contains(_ point: NormalizedPoint) -> Bool {
        var sign = 0.0
        for (index, a) in corners.enumerated() {
            let b = corners[(index + 1) % corners.count]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// `polygon` cut to the side of one line where `inside` holds; `crossing` gives the point
    /// where an edge crosses that line.
    private static func clipped(_ polygon: [NormalizedPoint], inside: (NormalizedPoint) -> Bool,
                                crossing: (NormalizedPoint, NormalizedPoint) -> NormalizedPoint) -> [NormalizedPoint] {
        guard let last = polygon.last else { return [] }
        var result: [NormalizedPoint] = []
        var previous = last
        for point in polygon {
            switch (inside(previous), inside(point)) {
            case (true, true): result.append(point)
            case (true, false): result.append(crossing(previous, point))
            case (false, true): result.append(crossing(previous, point)); result.append(point)
            case (false, false): break
            }
            previous = point
        }
        return result
    }

    private static func atX(_ x: Double, _ a: NormalizedPoint, _ b: NormalizedPoint) -> NormalizedPoint {
        NormalizedPoint(x: x, y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    private static func atY(_ y: Double, _ a: NormalizedPoint, _ b: NormalizedPoint) -> NormalizedPoint {
        NormalizedPoint(x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y: y)
    }

    /// The area of a simple polygon (the shoelace formula).
    private static func area(_ polygon: [NormalizedPoint]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twice = 0.0
        for (index, a) in polygon.enumerated() {
            let b = polygon[(index + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }
}
