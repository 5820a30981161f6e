import GlossGeometry

/// A cluster of overlapping raw detections, merged into their average rectangle.
public struct GroupedRectangle: Hashable, Sendable {
    public var rect: PixelRect
    /// How many raw detections were merged: the usual measure of how sure a cascade is.
    public var neighbors: Int

    public init(rect: PixelRect, neighbors: Int) {
        self.rect = rect
        self.neighbors = neighbors
    }
}

/// Merges raw cascade hits the way OpenCV's `groupRectangles` does, so counts and boxes agree.
///
/// A sliding window fires at several neighbouring positions and scales around a true object and
/// rarely fires alone on clutter; clustering turns the many hits into one box and the cluster
/// size into a confidence. Two rectangles are similar when each of their four edges differs by
/// at most `eps * (min(w1, w2) + min(h1, h2)) / 2`; similarity is closed transitively into
/// classes, each class is averaged, classes with `minNeighbors` or fewer members are dropped, and
/// so is a class lying inside a bigger class that is clearly better supported.
/// With `minNeighbors <= 0` the rectangles are returned unchanged, each with 1 neighbour.
public func groupRectangles(_ rects: [PixelRect], minNeighbors: Int, eps: Double = 0.2) -> [GroupedRectangle] {
    RectangleGrouping(rects, minNeighbors: minNeighbors, eps: eps).groups.map {
        GroupedRectangle(rect: $0.rect, neighbors: $0.members.count)
    }
}

/// The classes behind `groupRectangles`, with the indices of their members, for callers that
/// carry more per detection than a rectangle.
struct RectangleGrouping {
    struct Group {
        var rect: PixelRect
        var members: [Int]
    }

    var groups: [Group] = []

    init(_ rects: [PixelRect], minNeighbors: Int, eps: Double) {
        guard minNeighbors > 0, !rects.isEmpty else {
            groups = rects.enumerated().map { Group(rect: $0.element, members: [$0.offset]) }
            return
        }
        let n = rects.count

        // Union-find over the similarity relation: classes are its connected components.
        var classes = DisjointSets(count: n)
        for i in 0..<n {
            for j in 0..<i where RectangleGrouping.similar(rects[i], rects[j], eps: eps) { classes.join(i, j) }
        }
        // Classes are numbered by their first member, as cv::partition numbers them.
        var label = [Int](repeating: -1, count: n)
        var classOfRoot = [Int: Int]()
        var members: [[Int]] = []
        for i in 0..<n {
            let r = classes.root(i)
            if let c = classOfRoot[r] {
                label[i] = c
            } else {
                classOfRoot[r] = members.count
                label[i] = members.count
                members.append([])
            }
            members[label[i]].append(i)
        }

        // Average each class; OpenCV scales the integer sums by a float reciprocal and rounds.
        let averaged: [PixelRect] = members.map { m in
            var x = 0, y = 0, w = 0, h = 0
            for i in m { x += rects[i].x; y += rects[i].y; w += rects[i].width; h += rects[i].height }
            let s = 1 / Float(m.count)
            return PixelRect(x: roundEven(Float(x) * s), y: roundEven(Float(y) * s),
                             width: roundEven(Float(w) * s), height: roundEven(Float(h) * s))
        }

        for i in 0..<members.count {
            let r1 = averaged[i], n1 = members[i].count
            if n1 <= minNeighbors { continue }
            var swallowed = false
            for j in 0..<members.count where j != i {
                let n2 = members[j].count
                if n2 <= minNeighbors { continue }
                let r2 = averaged[j]
                let dx = roundEven(Double(r2.width) * eps), dy = roundEven(Double(r2.height) * eps)
                if r1.x >= r2.x - dx && r1.y >= r2.y - dy
                    && r1.x + r1.width <= r2.x + r2.width + dx && r1.y + r1.height <= r2.y + r2.height + dy
                    && (n2 > Swift.max(3, n1) || n1 < 3) {
                    swallowed = true
                    break
                }
            }
            if !swallowed { groups.append(Group(rect: r1, members: members[i])) }
        }
    }

    static func similar(_ a: PixelRect, _ b: PixelRect, eps: Double) -> Bool {
        let delta = eps * Double(Swift.min(a.width, b.width) + Swift.min(a.height, b.height)) * 0.5
        return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
            && Double(abs(a.maxX - b.maxX)) <= delta && Double(abs(a.maxY - b.maxY)) <= delta
    }
}
