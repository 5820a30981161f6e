import GlossGeometry
import GlossImaging

/// One detected line cut out of the page and rectified (RapidOCR's `get_rotate_crop_image`):
/// the quadrilateral is warped onto an upright rectangle as wide as its longer top or bottom
/// edge and as tall as its longer side, so a tilted line arrives level; a crop at least 1.5
/// times as tall as it is wide is a vertical line and is turned 90° counter-clockwise.
public struct LineCrop: Sendable {
    /// How the warp samples the page.
    public enum Interpolation: Sendable, Equatable {
        /// Two by two pixels.
        case bilinear
        /// Four by four pixels, Keys' kernel with a = -0.75 (OpenCV's `INTER_CUBIC`, which
        /// `get_rotate_crop_image` uses).
        case bicubic
    }

    /// The rectified line, in the page's layout (grey or RGB).
    public let image: Raster
    /// The corners it was cut along, in the page's pixels, clockwise from the top left.
    public let corners: [PixelPoint]
    /// Whether the rectified crop was turned 90° counter-clockwise to lie level.
    public let isTurned: Bool
    /// From the rectified, unturned crop's pixels to the page's.
    private let toPage: Homography

    /// Cuts the line with these corners (clockwise from the top left) out of `page`; nil when
    /// the line is less than a pixel wide or tall. Pixels beyond the page repeat its edge.
    public init?(page: Raster, corners: [PixelPoint], policy: DetectionPolicy = .rapidOCR) {
        precondition(corners.count == 4, "a line has four corners")
        let p = corners.map { SIMD2($0.x, $0.y) }
        let width = Int(max((p[0] - p[1]).length, (p[2] - p[3]).length))
        let height = Int(max((p[0] - p[3]).length, (p[1] - p[2]).length))
        guard width > 0, height > 0 else { return nil }
        let rectangle: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(Double(width), 0), SIMD2(Double(width), Double(height)), SIMD2(0, Double(height))]
        guard let toPage = Homography(from: rectangle, to: p) else { return nil }
        self.toPage = toPage
        self.corners = corners
        let warped = Self.warp(page, size: PixelSize(width: width, height: height), toPage: toPage, interpolation: policy.cropInterpolation)
        isTurned = Double(height) / Double(width) >= policy.verticalLineRatio
        image = isTurned ? Self.turnedCounterClockwise(warped) : warped
    }

    /// Where a point of `image` lies on the page; pixel (x, y) of `image` is at `(x, y)` (the
    /// page is sampled there), so a pixel's left edge is at `x - 0.5`.
    public func pagePoint(_ point: PixelPoint) -> PixelPoint {
        // Turned counter-clockwise: the image's row i is the crop's column (width - 1 - i).
        let unturned = isTurned ? SIMD2(Double(image.height - 1) - point.y, point.x) : SIMD2(point.x, point.y)
        let q = toPage.apply(unturned)
        return PixelPoint(x: q.x, y: q.y)
    }

    /// Each target pixel sampled at its source position, edges replicated. Bicubic as OpenCV 5's
    /// `warpPerspective` (RapidOCR's wheel) samples: at the position itself in single precision,
    /// the weights and sums in single precision, rounded half to even; sampled on a 1/32-pixel
    /// grid instead, a crop of noise differed from OpenCV's at two samples in three, by up to 5
    /// (`LineCropTests`). Bilinear samples on that 1/32-pixel grid.
    static func warp(_ page: Raster, size: PixelSize, toPage: Homography, interpolation: Interpolation) -> Raster {
        let channels = page.channels
        var output = [UInt8](repeating: 0, count: size.pixelCount * channels)
        let lastX = page.width - 1, lastY = page.height - 1
        page.pixels.withUnsafeBufferPointer { pixels in
            output.withUnsafeMutableBufferPointer { written in
                let source = pixels.baseAddress!, target = written.baseAddress!
                func sample(_ x: Int, _ y: Int, _ c: Int) -> UInt8 {
                    source[(min(max(y, 0), lastY) * page.width + min(max(x, 0), lastX)) * channels + c]
                }
                switch interpolation {
                case .bilinear:
                    for y in 0..<size.height {
                        for x in 0..<size.width {
                            let s = toPage.apply(SIMD2(Double(x), Double(y)))
                            let at = target + (y * size.width + x) * channels
                            let qx = (s.x * 32).rounded() / 32, qy = (s.y * 32).rounded() / 32
                            let ix = Int(qx.rounded(.down)), iy = Int(qy.rounded(.down))
                            let fx = qx - Double(ix), fy = qy - Double(iy)
                            for c in 0..<channels {
                                let value = (Double(sample(ix, iy, c)) * (1 - fx) + Double(sample(ix + 1, iy, c)) * fx) * (1 - fy)
                                    + (Double(sample(ix, iy + 1, c)) * (1 - fx) + Double(sample(ix + 1, iy + 1, c)) * fx) * fy
                                at[c] = UInt8(min(max(value.rounded(), 0), 255))
                            }
                        }
                    }
                case .bicubic:
                    for y in 0..<size.height {
                        for x in 0..<size.width {
                            let s = toPage.apply(SIMD2(Double(x), Double(y)))
                            let at = target + (y * size.width + x) * channels
                            let sx = Float(s.x), sy = Float(s.y)
                            let fx = sx.rounded(.down), fy = sy.rounded(.down)
                            let ix = Int(fx), iy = Int(fy)
                            let wx = cubicWeights(sx - fx), wy = cubicWeights(sy - fy)
                            // Inside the page by two pixels or more, the sixteen taps are read
                            // without clamping; the sums are the same either way.
                            let inside = ix >= 1 && ix + 2 <= lastX && iy >= 1 && iy + 2 <= lastY
                            for c in 0..<channels {
                                // Row j of the taps, weighed across. Four named rows, not a
                                // vector written lane by lane (a stall on every read of it).
                                func row(_ j: Int) -> Float {
                                    let p: SIMD4<Float>
                                    if inside {
                                        let tap = source + ((iy - 1 + j) * page.width + ix - 1) * channels + c
                                        p = SIMD4(Float(tap[0]), Float(tap[channels]), Float(tap[2 * channels]), Float(tap[3 * channels]))
                                    } else {
                                        p = SIMD4(Float(sample(ix - 1, iy - 1 + j, c)), Float(sample(ix, iy - 1 + j, c)),
                                                  Float(sample(ix + 1, iy - 1 + j, c)), Float(sample(ix + 2, iy - 1 + j, c)))
                                    }
                                    return (p[0] * wx[0] + p[1] * wx[1]) + (p[2] * wx[2] + p[3] * wx[3])
                                }
                                let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
                                let value = (r0 * wy[0] + r1 * wy[1]) + (r2 * wy[2] + r3 * wy[3])
                                at[c] = UInt8(min(max(value.rounded(.toNearestOrEven), 0), 255))
                            }
                        }
                    }
                }
            }
        }
        return Raster(width: size.width, height: size.height, layout: page.layout, pixels: output)
    }

    /// Keys' cubic convolution weights (a = -0.75) of the four taps around a fraction `t`, in
    /// single precision as OpenCV's `interpolateCubic`.
    static func cubicWeights(_ t: Float) -> SIMD4<Float> {
        let a: Float = -0.75
        let w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
        let w1 = ((a + 2) * t - (a + 3)) * t * t + 1
        let w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
        return SIMD4(w0, w1, w2, 1 - w0 - w1 - w2)
    }

    /// NumPy's `rot90`: the last column becomes the first row.
    static func turnedCounterClockwise(_ image: Raster) -> Raster {
        let channels = image.channels, width = image.height, height = image.width
        var output = [UInt8](repeating: 0, count: image.pixels.count)
        for i in 0..<height {
            for j in 0..<width {
                let from = (j * image.width + (image.width - 1 - i)) * channels, to = (i * width + j) * channels
                for c in 0..<channels { output[to + c] = image.pixels[from + c] }
            }
        }
        return Raster(width: width, height: height, layout: image.layout, pixels: output)
    }
}

/// A plane projective map, `(x, y) -> ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (...))`.
struct Homography: Sendable {
    let m: [Double]

    /// The map taking each of four points to its counterpart; nil when three are collinear.
    init?(from source: [SIMD2<Double>], to target: [SIMD2<Double>]) {
        var rows: [[Double]] = []
        for (s, t) in zip(source, target) {
            rows.append([s.x, s.y, 1, 0, 0, 0, -s.x * t.x, -s.y * t.x, t.x])
            rows.append([0, 0, 0, s.x, s.y, 1, -s.x * t.y, -s.y * t.y, t.y])
        }
        // Gaussian elimination with partial pivoting.
        for column in 0..<8 {
            let pivot = (column..<8).max { abs(rows[$0][column]) < abs(rows[$1][column]) }!
            guard abs(rows[pivot][column]) > 1e-12 else { return nil }
            rows.swapAt(column, pivot)
            for r in 0..<8 where r != column {
                let factor = rows[r][column] / rows[column][column]
                if factor != 0 { for k in column..<9 { rows[r][k] -= factor * rows[column][k] } }
            }
        }
        m = (0..<8).map { rows[$0][8] / rows[$0][$0] } + [1]
    }

    func apply(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let w = m[6] * p.x + m[7] * p.y + m[8]
        return SIMD2((m[0] * p.x + m[1] * p.y + m[2]) / w, (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }
}
