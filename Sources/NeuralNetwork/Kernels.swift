#if canImport(Glibc)
import Glibc
#endif

/// What a layer applies to each of its outputs after the bias.
public enum Activation: Sendable, Equatable {
    case none
    case relu
    /// `clip(alpha * x + beta, 0, 1)`.
    case hardSigmoid(alpha: Float, beta: Float)
    case sigmoid
    /// The exact GELU, `x * (1 + erf(x / sqrt 2)) / 2`.
    case gelu
    /// `x * sigmoid(x)`.
    case swish
    /// `x * clip(x + 3, 0, 6) / 6`.
    case hardSwish

    /// Whether it is applied in the vector registers, as the sums are stored.
    var isInline: Bool {
        switch self {
        case .none, .relu, .hardSigmoid, .hardSwish: true
        case .sigmoid, .gelu, .swish: false
        }
    }

    @inline(__always)
    func apply(_ v: Layers.Vector) -> Layers.Vector {
        switch self {
        case .relu: return pointwiseMax(v, Layers.Vector())
        case .hardSigmoid(let alpha, let beta):
            return pointwiseMin(pointwiseMax(v * alpha + beta, Layers.Vector()), Layers.Vector(repeating: 1))
        case .hardSwish:
            return v * pointwiseMin(pointwiseMax(v + 3, Layers.Vector()), Layers.Vector(repeating: 6)) / 6
        default: return v
        }
    }

    @inline(__always)
    func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .hardSigmoid(let alpha, let beta): return min(max(alpha * x + beta, 0), 1)
        case .sigmoid: return 1 / (1 + expf(-x))
        case .gelu: return 0.5 * x * (1 + erff(x * 0.707_106_781_186_547_5))
        case .swish: return x / (1 + expf(-x))
        case .hardSwish: return x * min(max(x + 3, 0), 6) / 6
        }
    }

    /// Applies an activation the registers did not, to `count` stored values.
    func applyAfter(_ values: UnsafeMutablePointer<Float>, count: Int) {
        guard !isInline else { return }
        for index in 0..<count { values[index] = apply(values[index]) }
    }
}

/// The generic kernels a program's layers run on: a blocked matrix product (1x1 convolutions,
/// convolutions through a strip of gathered columns, transposed convolutions), depthwise
/// convolutions of any size, and the element-wise operations between them. Each works on raw
/// planes the caller owns; none allocates.
public enum Kernels {
    public typealias Vector = Layers.Vector
    static let lanes = Vector.scalarCount

    /// `out[o][p] = act(bias[o] + sum_k weights[o][k] * columns[k][p])` for `o < outputs`,
    /// `p < count`; rows of `columns` are `columnStride` apart, rows of `out` `outputStride`.
    /// Four outputs are summed at once in registers, so each column vector loaded serves four.
    public static func multiply(
        weights: UnsafePointer<Float>, columns: UnsafePointer<Float>, columnStride: Int, bias: UnsafePointer<Float>,
        into out: UnsafeMutablePointer<Float>, outputStride: Int, outputs: Int, inner: Int, count: Int,
        activation: Activation
    ) {
        let source = UnsafeRawPointer(columns), target = UnsafeMutableRawPointer(out)
        let size = MemoryLayout<Float>.stride
        var p = 0
        // Four outputs by one vector: eight AVX2 registers of sums, so none spills.
        while p + lanes <= count {
            var o = 0
            while o + 4 <= outputs {
                let w0 = weights + o * inner, w1 = w0 + inner, w2 = w1 + inner, w3 = w2 + inner
                var a0 = Vector(repeating: bias[o]), a1 = Vector(repeating: bias[o + 1])
                var a2 = Vector(repeating: bias[o + 2]), a3 = Vector(repeating: bias[o + 3])
                var offset = p * size
                for k in 0..<inner {
                    let x = source.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                    a0 += x * w0[k]
                    a1 += x * w1[k]
                    a2 += x * w2[k]
                    a3 += x * w3[k]
                    offset += columnStride * size
                }
                let first = (o * outputStride + p) * size, step = outputStride * size
                target.storeBytes(of: activation.apply(a0), toByteOffset: first, as: Vector.self)
                target.storeBytes(of: activation.apply(a1), toByteOffset: first + step, as: Vector.self)
                target.storeBytes(of: activation.apply(a2), toByteOffset: first + 2 * step, as: Vector.self)
                target.storeBytes(of: activation.apply(a3), toByteOffset: first + 3 * step, as: Vector.self)
                o += 4
            }
            while o < outputs {
                let w = weights + o * inner
                var a = Vector(repeating: bias[o])
                for k in 0..<inner {
                    a += source.loadUnaligned(fromByteOffset: (k * columnStride + p) * size, as: Vector.self) * w[k]
                }
                target.storeBytes(of: activation.apply(a), toByteOffset: (o * outputStride + p) * size, as: Vector.self)
                o += 1
            }
            p += lanes
        }
        // The last pixels, fewer than a vector (or a whole 1x1 map).
        while p < count {
            for o in 0..<outputs {
                let w = weights + o * inner
                var sum = bias[o]
                for k in 0..<inner { sum += columns[k * columnStride + p] * w[k] }
                out[o * outputStride + p] = activation.isInline ? activation.apply(sum) : sum
            }
            p += 1
        }
        if !activation.isInline {
            for o in 0..<outputs { activation.applyAfter(out + o * outputStride, count: count) }
        }
    }

    /// Gathers the input taps of output rows `firstRow..<firstRow + rows` of a convolution
    /// into `columns[(c * kh + ky) * kw + kx][r * outWidth + x]`, zero outside the input.
    public static func gather(
        _ input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        kernel: (Int, Int), stride: (Int, Int), padding: (top: Int, left: Int),
        firstRow: Int, rows: Int, outWidth: Int, into columns: UnsafeMutablePointer<Float>
    ) {
        let n = rows * outWidth
        for c in 0..<channels {
            let plane = input + c * height * width
            for ky in 0..<kernel.0 {
                for kx in 0..<kernel.1 {
                    let row = columns + ((c * kernel.0 + ky) * kernel.1 + kx) * n
                    for r in 0..<rows {
                        let y = (firstRow + r) * stride.0 + ky - padding.top
                        let strip = row + r * outWidth
                        guard y >= 0 && y < height else {
                            strip.update(repeating: 0, count: outWidth)
                            continue
                        }
                        let line = plane + y * width
                        if stride.1 == 1 {
                            // Contiguous: the in-range part is one copy.
                            let first = max(0, padding.left - kx), last = min(outWidth, width + padding.left - kx)
                            if first > 0 { strip.update(repeating: 0, count: min(first, outWidth)) }
                            if last > first { (strip + first).update(from: line + first + kx - padding.left, count: last - first) }
                            if last < outWidth { (strip + max(last, 0)).update(repeating: 0, count: outWidth - max(last, 0)) }
                        } else {
                            for x in 0..<outWidth {
                                let sx = x * stride.1 + kx - padding.left
                                strip[x] = sx >= 0 && sx < width ? line[sx] : 0
                            }
                        }
                    }
                }
            }
        }
    }

    /// A depthwise convolution: each channel by its own `kh x kw` kernel, any stride and
    /// padding. Each plane is copied once into a zero-bordered scratch plane, so the loops over
    /// taps have no edge cases; with stride 1 they run along rows in vector steps.
    public static func depthwise(
        _ input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation,
        into out: UnsafeMutablePointer<Float>, outHeight: Int, outWidth: Int, scratch: UnsafeMutablePointer<Float>
    ) {
        let paddedWidth = width + padding.left + padding.right, paddedHeight = height + padding.top + padding.bottom
        scratch.update(repeating: 0, count: paddedWidth * paddedHeight)
        let taps = kernel.0 * kernel.1
        for c in 0..<channels {
            let plane = input + c * height * width
            for y in 0..<height {
                (scratch + (y + padding.top) * paddedWidth + padding.left).update(from: plane + y * width, count: width)
            }
            let k = weights + c * taps
            let target = out + c * outHeight * outWidth
            for oy in 0..<outHeight {
                let destination = target + oy * outWidth
                if stride.1 == 1 {
                    destination.update(repeating: bias[c], count: outWidth)
                    for ky in 0..<kernel.0 {
                        let row = scratch + (oy * stride.0 + ky) * paddedWidth
                        for kx in 0..<kernel.1 {
                            Layers.multiplyAdd(k[ky * kernel.1 + kx], row + kx, into: destination, count: outWidth)
                        }
                    }
                } else {
                    for ox in 0..<outWidth {
                        var sum = bias[c]
                        for ky in 0..<kernel.0 {
                            let row = scratch + (oy * stride.0 + ky) * paddedWidth + ox * stride.1
                            for kx in 0..<kernel.1 { sum += k[ky * kernel.1 + kx] * row[kx] }
                        }
                        destination[ox] = sum
                    }
                }
                if activation != .none {
                    for x in 0..<outWidth { destination[x] = activation.apply(destination[x]) }
                }
            }
            // The rows this channel wrote into the scratch plane; its border stays zero.
            for y in 0..<height {
                (scratch + (y + padding.top) * paddedWidth + padding.left).update(repeating: 0, count: width)
            }
        }
    }
}
