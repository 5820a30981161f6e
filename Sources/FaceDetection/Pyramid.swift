// The per-scale image work: OpenCV-compatible bilinear shrinking and the integral images.
//
// A cascade's thresholds were trained on OpenCV's own arithmetic, and a window that passes 24
// stages by a hair passes or fails on the last bit of a resized pixel. To give the same faces as
// OpenCV, the resize here reproduces cv::resize(INTER_LINEAR) for 8-bit grey bit for bit:
// 11-bit fixed-point coefficients computed in float, the horizontal pass in 32-bit integers,
// the vertical pass with OpenCV's (x >> 4) * beta >> 16 rounding, and its switch to 2x2 box
// averaging when the image is halved exactly.

/// cvRound for single precision: nearest, ties to even (what lrintf does on x86-64).
@inline(__always)
func roundEven(_ value: Float) -> Int { Int(value.rounded(.toNearestOrEven)) }

/// cvRound for double precision.
@inline(__always)
func roundEven(_ value: Double) -> Int { Int(value.rounded(.toNearestOrEven)) }

/// saturate_cast<short>(float).
@inline(__always)
private func saturatingShort(_ value: Float) -> Int32 {
    Int32(Swift.min(32767, Swift.max(-32768, roundEven(value))))
}

enum Pyramid {
    /// Shrinks (or copies) `src` into `dst` exactly as cv::resize(..., INTER_LINEAR) does for
    /// CV_8UC1. Both buffers are packed rows.
    static func resizeLinear(
        _ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int
    ) {
        precondition(sw > 0 && sh > 0 && dw > 0 && dh > 0)
        if sw == dw && sh == dh {
            dst.update(from: src, count: sw * sh)
            return
        }
        let inverseX = Double(dw) / Double(sw), inverseY = Double(dh) / Double(sh)
        let scaleX = 1 / inverseX, scaleY = 1 / inverseY
        let integerX = roundEven(scaleX), integerY = roundEven(scaleY)
        let isAreaFast = abs(scaleX - Double(integerX)) < Double.ulpOfOne && abs(scaleY - Double(integerY)) < Double.ulpOfOne
        if isAreaFast && integerX == 2 && integerY == 2 {
            halve(src, width: sw, into: dst, width: dw, height: dh)
            return
        }

        // Horizontal taps.
        var xofs = [Int](repeating: 0, count: dw)
        var alpha = [Int32](repeating: 0, count: 2 * dw)
        var xmax = dw
        for dx in 0..<dw {
            var fx = Float((Double(dx) + 0.5) * scaleX - 0.5)
            var sx = Int(fx.rounded(.down))
            fx -= Float(sx)
            if sx < 0 { fx = 0; sx = 0 }
            if sx + 1 >= sw {
                xmax = Swift.min(xmax, dx)
                if sx >= sw - 1 { fx = 0; sx = sw - 1 }
            }
            xofs[dx] = sx
            alpha[2 * dx] = saturatingShort((1 - fx) * 2048)
            alpha[2 * dx + 1] = saturatingShort(fx * 2048)
        }

        var rows = [Int32](repeating: 0, count: 2 * dw)
        var rowOf = (-1, -1)   // which source rows the two buffers hold
        xofs.withUnsafeBufferPointer { xofs in
            alpha.withUnsafeBufferPointer { alpha in
                rows.withUnsafeMutableBufferPointer { rows in
                    let row0 = rows.baseAddress!, row1 = row0 + dw
                    func horizontal(_ sy: Int, into d: UnsafeMutablePointer<Int32>) {
                        let s = src + sy * sw
                        for dx in 0..<xmax {
                            let sx = xofs[dx]
                            d[dx] = Int32(s[sx]) * alpha[2 * dx] + Int32(s[sx + 1]) * alpha[2 * dx + 1]
                        }
                        for dx in xmax..<dw { d[dx] = Int32(s[xofs[dx]]) * 2048 }
                    }
                    for dy in 0..<dh {
                        var fy = Float((Double(dy) + 0.5) * scaleY - 0.5)
                        let sy = Int(fy.rounded(.down))
                        fy -= Float(sy)
                        let beta0 = saturatingShort((1 - fy) * 2048), beta1 = saturatingShort(fy * 2048)
                        let sy0 = sy >= 0 ? (sy < sh ? sy : sh - 1) : 0
                        let sy1 = sy + 1 >= 0 ? (sy + 1 < sh ? sy + 1 : sh - 1) : 0
                        // Reuse rows computed for the previous output row, as OpenCV does.
                        if rowOf.0 != sy0 {
                            if rowOf.1 == sy0 {
                                row0.update(from: row1, count: dw)
                            } else {
                                horizontal(sy0, into: row0)
                            }
                            rowOf.0 = sy0
                        }
                        if rowOf.1 != sy1 || rowOf.1 == -1 {
                            horizontal(sy1, into: row1)
                            rowOf.1 = sy1
                        }
                        let out = dst + dy * dw
                        for x in 0..<dw {
                            let v = ((beta0 &* (row0[x] >> 4)) >> 16) &+ ((beta1 &* (row1[x] >> 4)) >> 16) &+ 2
                            out[x] = UInt8(clamping: v >> 2)
                        }
                    }
                }
            }
        }
    }

    /// Exact halving: each output pixel is the rounded mean of a 2x2 block.
    private static func halve(
        _ src: UnsafePointer<UInt8>, width sw: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int
    ) {
        for dy in 0..<dh {
            let a = src + 2 * dy * sw, b = a + sw
            let out = dst + dy * dw
            for dx in 0..<dw {
                let sum = Int(a[2 * dx]) + Int(a[2 * dx + 1]) + Int(b[2 * dx]) + Int(b[2 * dx + 1])
                out[dx] = UInt8((sum + 2) >> 2)
            }
        }
    }

    /// The sum integral image (and optionally the squared sum), `(width+1) x (height+1)` values
    /// with row stride `stride`; row 0 and column 0 are zero.
    ///
    /// Both planes use wrapping 32-bit arithmetic on purpose, like OpenCV's CV_32S planes: the
    /// squared sum of a big image overflows, but a window's four-corner difference is exact
    /// modulo 2^32, and a window's true squared sum always fits in 32 bits.
    static func integrate(
        _ image: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        sum: UnsafeMutablePointer<Int32>, squares: UnsafeMutablePointer<UInt32>?
    ) {
        for x in 0...width { sum[x] = 0 }
        if let squares { for x in 0...width { squares[x] = 0 } }
        for y in 0..<height {
            let row = image + y * width
            let above = sum + y * stride, here = above + stride
            here[0] = 0
            var s: Int32 = 0
            for x in 0..<width {
                s &+= Int32(row[x])
                here[x + 1] = above[x + 1] &+ s
            }
            if let squares {
                let qa = squares + y * stride, qh = qa + stride
                qh[0] = 0
                var q: UInt32 = 0
                for x in 0..<width {
                    let v = UInt32(row[x])
                    q &+= v &* v
                    qh[x + 1] = qa[x + 1] &+ q
                }
            }
        }
    }

    /// OpenCV's tilted (45 degree) integral image: T(X, Y) is the sum of the pixels (x, y) with
    /// y < Y and |x - X + 1| <= Y - y - 1, a triangle whose apex is pixel (X-1, Y-1).
    ///
    /// Written as the difference of two diagonal running sums of row prefixes, so every value
    /// needs O(1) work and the triangles clipped by the image border need no special case.
    static func integrateTilted(
        _ image: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        tilted: UnsafeMutablePointer<Int32>
    ) {
        let w = width
        // prefix[k] = sum of the first k pixels of the current row, k in 0...w.
        var prefix = [Int32](repeating: 0, count: w + 1)
        // d1[X] = sum over earlier rows y of prefix_y(min(w, X + Y - 1 - y)), X in 0...w+1.
        var d1 = [Int32](repeating: 0, count: w + 2), nextD1 = d1
        // d2[X] = sum over earlier rows y of prefix_y(max(0, X - Y + y)), X in 0...w.
        var d2 = [Int32](repeating: 0, count: w + 1), nextD2 = d2
        for x in 0...w { tilted[x] = 0 }
        for y in 1...Swift.max(1, height) where height > 0 {
            let row = image + (y - 1) * w
            prefix[0] = 0
            for x in 0..<w { prefix[x + 1] = prefix[x] &+ Int32(row[x]) }
            for X in 0...w {
                nextD1[X] = d1[X + 1] &+ prefix[X]
                nextD2[X] = (X > 0 ? d2[X - 1] &+ prefix[X - 1] : 0)
            }
            nextD1[w + 1] = nextD1[w]
            swap(&d1, &nextD1)
            swap(&d2, &nextD2)
            let out = tilted + y * stride
            for X in 0...w { out[X] = d1[X] &- d2[X] }
        }
    }
}
