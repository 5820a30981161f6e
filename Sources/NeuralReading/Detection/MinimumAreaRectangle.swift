/// The smallest rectangle, at any angle, around a set of points (OpenCV's `minAreaRect`): one
/// of its sides lies on an edge of the points' convex hull, so each hull edge is tried in turn
/// (rotating calipers, here by projecting the hull on each edge's direction).
struct RotatedRectangle: Equatable {
    /// The four corners in order around the rectangle.
    var corners: [SIMD2<Double>]

    /// The lengths of its first (`corners[0]` to `[1]`) and second (`[1]` to `[2]`) sides.
    var sides: (Double, Double) {
        ((corners[1] - corners[0]).length, (corners[2] - corners[1]).length)
    }

    var shorterSide: Double { min(sides.0, sides.1) }

    static func == (a: RotatedRectangle, b: RotatedRectangle) -> Bool { a.corners == b.corners }

    /// The rectangle around `points` of least area; nil when there are none.
    init?(around points: [SIMD2<Int>]) {
        let hull = Self.convexHull(points)
        guard let first = hull.first else { return nil }
        let p = hull.map { SIMD2<Double>(Double($0.x), Double($0.y)) }
        guard p.count > 1 else {
            corners = [p[0], p[0], p[0], p[0]]
            return
        }
        var best = Double.infinity
        var found = [SIMD2<Double>](repeating: SIMD2(Double(first.x), Double(first.y)), count: 4)
        for i in p.indices {
            let edge = p[(i + 1) % p.count] - p[i]
            let length = edge.length
            guard length > 0 else { continue }
            let u = edge / length, v = SIMD2(-u.y, u.x)
            var (lowU, highU, lowV, highV) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for q in p {
                let a = (q * u).sum(), b = (q * v).sum()
                lowU = min(lowU, a)
                highU = max(highU, a)
                lowV = min(lowV, b)
                highV = max(highV, b)
            }
            let area = (highU - lowU) * (highV - lowV)
            if area < best - 1e-9 {
                best = area
                found = [lowU * u + lowV * v, highU * u + lowV * v, highU * u + highV * v, lowU * u + highV * v]
            }
        }
        corners = found
    }

    init(corners: [SIMD2<Double>]) {
        precondition(corners.count == 4)
        self.corners = corners
    }

    /// The convex hull of integer points (Andrew's monotone chain), without collinear points.
    static func convexHull(_ points: [SIMD2<Int>]) -> [SIMD2<Int>] {
        var sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        sorted = sorted.enumerated().filter { $0.offset == 0 || sorted[$0.offset - 1] != $0.element }.map(\.element)
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: SIMD2<Int>, _ a: SIMD2<Int>, _ b: SIMD2<Int>) -> Int {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var hull: [SIMD2<Int>] = []
        for pass in 0..<2 {
            let start = hull.count
            for q in pass == 0 ? sorted : sorted.reversed() {
                while hull.count >= start + 2 && cross(hull[hull.count - 2], hull[hull.count - 1], q) <= 0 { hull.removeLast() }
                hull.append(q)
            }
            hull.removeLast()
        }
        return hull
    }
}

extension SIMD2<Double> {
    var length: Double { (self * self).sum().squareRoot() }
}
