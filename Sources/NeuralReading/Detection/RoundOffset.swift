import Foundation

/// A closed polygon grown by a distance with rounded corners, in whole pixels, as Clipper 6
/// (`ClipperOffset` with round joins on a closed polygon, pyclipper's `JT_ROUND` /
/// `ET_CLOSEDPOLYGON`, which RapidOCR's `unclip` uses) computes it. Only the points matter to
/// the caller (it takes their minimum-area rectangle), so the final union Clipper runs over
/// the grown outline, which only drops repeated and collinear points, is left out.
enum RoundOffset {
    /// Clipper's default arc tolerance, as a fraction of the distance: 0.25.
    static let arcTolerance = 0.25

    /// The outline of `polygon` (its coordinates truncated toward zero to whole pixels, as
    /// pyclipper converts them) grown outward by `distance` (> 0).
    static func grown(_ polygon: [SIMD2<Double>], by distance: Double) -> [SIMD2<Int>] {
        // pyclipper turns each coordinate into an integer by truncation.
        var path: [SIMD2<Int>] = []
        for point in polygon {
            let p = SIMD2(Int(point.x.rounded(.towardZero)), Int(point.y.rounded(.towardZero)))
            if path.last != p { path.append(p) }
        }
        while path.count > 1 && path.first == path.last { path.removeLast() }
        guard path.count >= 3, distance > 0 else { return path }
        // Clipper offsets outward when the path's signed area is positive; it turns others round.
        if signedArea(path) < 0 { path.reverse() }

        let tolerance = min(arcTolerance, distance * arcTolerance)
        var steps = Double.pi / acos(1 - tolerance / distance)
        steps = min(steps, distance * Double.pi)
        let stepSine = sin(2 * Double.pi / steps), stepCosine = cos(2 * Double.pi / steps)
        let stepsPerRadian = steps / (2 * Double.pi)

        let count = path.count
        let normals: [SIMD2<Double>] = (0..<count).map { j in
            let a = path[j], b = path[(j + 1) % count]
            let dx = Double(b.x - a.x), dy = Double(b.y - a.y)
            guard dx != 0 || dy != 0 else { return SIMD2(0, 0) }
            let f = 1 / (dx * dx + dy * dy).squareRoot()
            return SIMD2(dy * f, -dx * f)
        }
        func moved(_ j: Int, _ normal: SIMD2<Double>) -> SIMD2<Int> {
            SIMD2(clipperRound(Double(path[j].x) + normal.x * distance), clipperRound(Double(path[j].y) + normal.y * distance))
        }
        var out: [SIMD2<Int>] = []
        var k = count - 1
        for j in 0..<count {
            let nk = normals[k], nj = normals[j]
            var sine = nk.x * nj.y - nj.x * nk.y
            let cosine = nk.x * nj.x + nk.y * nj.y
            if abs(sine * distance) < 1 {
                if cosine > 0 {
                    out.append(moved(j, nk))
                    k = j
                    continue
                }
            } else {
                sine = min(max(sine, -1), 1)
            }
            if sine * distance < 0 {
                out.append(moved(j, nk))
                out.append(path[j])
                out.append(moved(j, nj))
            } else {
                // The round join: an arc from the previous edge's normal to this edge's.
                let angle = atan2(sine, cosine)
                let arcSteps = max(Int(clipperRound(stepsPerRadian * abs(angle))), 1)
                var x = nk.x, y = nk.y
                for _ in 0..<arcSteps {
                    out.append(moved(j, SIMD2(x, y)))
                    let previous = x
                    x = x * stepCosine - stepSine * y
                    y = previous * stepSine + y * stepCosine
                }
                out.append(moved(j, nj))
            }
            k = j
        }
        return out
    }

    /// Clipper's `Round`: half away from zero.
    static func clipperRound(_ value: Double) -> Int {
        value < 0 ? Int(value - 0.5) : Int(value + 0.5)
    }

    static func signedArea(_ path: [SIMD2<Int>]) -> Double {
        var area = 0.0
        for (i, a) in path.enumerated() {
            let b = path[(i + 1) % path.count]
            area += Double(a.x + b.x) * Double(a.y - b.y)
        }
        return -area * 0.5
    }
}
