// The per-scale image work: OpenCV-compatible bilinear shrinking and the integral images.
//
// A cascade's thresholds were trained on OpenCV's arithmetic, and a window that passes 25 stages
// by a hair passes or fails on the last bit of a resized pixel. To give the same faces as
// OpenCV 4 (whose CascadeClassifier shrinks each scale with cv::resize(INTER_LINEAR_EXACT);
// verified against Debian's 4.6: identical raw hits), the resize here reproduces that mode for
// 8-bit grey bit for bit: positions in double precision, 8-bit fixed-point weights, 16-bit row
// values, one rounding per pass, and plain 2x2 averaging when the image is halved exactly.

/// cvRound for single precision: nearest, ties to even (what lrintf does on x86-64).
@inline(__always)
func roundEven(_ value: Float) -> Int { Int(value.rounded(.toNearestOrEven)) }

/// cvRound for double precision.
@inline(__always)
func roundEven(_ value: Double) -> Int { Int(value.rounded(.toNearestOrEven)) }

enum Pyramid {
    /// Source positions and 8-bit weights along one axis; outputs before `low` copy the first
    /// input, outputs from `high` on copy the last.
    private struct Taps {
        var offsets: [Int]
        var weights: [UInt32]   // two per output, summing to 256
        var low = 0
        var high: Int

        init(outputs: Int, inputs: Int, scale: Double) {
            offsets = [Int](repeating: inputs - 1, count: outputs)
            weights = [UInt32](repeating: 0, count: 2 * outputs)
            high = outputs
            for d in 0..<outputs {
                let position = scale * (Double(d) + 0.5) - 0.5
                let i = Int(position.rounded(.down))
                guard i >= 0 && inputs > 1 else { low = Swift.max(low, d + 1); continue }
                guard i < inputs - 1 else { high = Swift.min(high, d); continue }
                offsets[d] = i
                let fraction = position - Double(i)
                let w1 = UInt32(roundEven(fraction * 256))
                weights[2 * d + 1] = w1
                weights[2 * d] = 256 - w1
            }
            if high < low { high = low }
        }
    }

    /// Resamples `src` into `dst` exactly as cv::resize(..., INTER_LINEAR_EXACT) does for
    /// CV_8UC1 (also when enlarging). Both buffers are packed rows.
    static func resizeLinearExact(
        _ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int
    ) {
        precondition(sw > 0 && sh > 0 && dw > 0 && dh > 0)
        if sw == dw && sh == dh {
            dst.update(from: src, count: sw * sh)
            return
        }
        let scaleX = 1 / (Double(dw) / Double(sw)), scaleY = 1 / (Double(dh) / Double(sh))
        let integerX = roundEven(scaleX), integerY = roundEven(scaleY)
        if abs(scaleX - Double(integerX)) < Double.ulpOfOne && abs(scaleY - Double(integerY)) < Double.ulpOfOne
            && integerX == 2 && integerY == 2 {
            halve(src, width: sw, into: dst, width: dw, height: dh)
            return
        }
        let tx = Taps(outputs: dw, inputs: sw, scale: scaleX)
        let ty = Taps(outputs: dh, inputs: sh, scale: scaleY)
        var rows = [UInt32](repeating: 0, count: 2 * dw)
        tx.offsets.withUnsafeBufferPointer { xo in
            tx.weights.withUnsafeBufferPointer { xw in
                rows.withUnsafeMutableBufferPointer { rows in
                    let upper = rows.baseAddress!, lower = upper + dw
                    var upperRow = -1, lowerRow = -1
                    /// One source row resampled across, in 1/256 units.
                    func across(_ sy: Int, into d: UnsafeMutablePointer<UInt32>) {
                        let s = src + sy * sw
                        let first = UInt32(s[0]) << 8, last = UInt32(s[sw - 1]) << 8
                        for dx in 0..<tx.low { d[dx] = first }
                        for dx in tx.low..<tx.high {
                            let o = xo[dx]
                            d[dx] = xw[2 * dx] * UInt32(s[o]) + xw[2 * dx + 1] * UInt32(s[o + 1])
                        }
                        for dx in tx.high..<dw { d[dx] = last }
                    }
                    for dy in 0..<dh {
                        let out = dst + dy * dw
                        if dy < ty.low || dy >= ty.high {
                            let sy = dy < ty.low ? 0 : sh - 1
                            if upperRow != sy { across(sy, into: upper); upperRow = sy }
                            for x in 0..<dw { out[x] = UInt8(truncatingIfNeeded: (upper[x] + 128) >> 8) }
                            continue
                        }
                        let sy = ty.offsets[dy]
                        if upperRow != sy {
                            if lowerRow == sy {
                                upper.update(from: lower, count: dw)
                            } else {
                                across(sy, into: upper)
                            }
                            upperRow = sy
                        }
                        if lowerRow != sy + 1 { across(sy + 1, into: lower); lowerRow = sy + 1 }
                        let w0 = ty.weights[2 * dy], w1 = ty.weights[2 * dy + 1]
                        for x in 0..<dw {
                            out[x] = UInt8(truncatingIfNeeded: (upper[x] &* w0 &+ lower[x] &* w1 &+ 32768) >> 16)
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
