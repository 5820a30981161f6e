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

    /// The activation of a vector of sums, in the registers (`VectorMath`), so a kernel
    /// applies it as it stores them.
    @_transparent
    public func apply(_ v: SIMD16<Float>) -> SIMD16<Float> {
        switch self {
        case .none: return v
        case .relu: return VectorMath.maximum(v, SIMD16<Float>())
        case .hardSigmoid(let alpha, let beta):
            return VectorMath.minimum(VectorMath.maximum(v * alpha + beta, SIMD16<Float>()), SIMD16<Float>(repeating: 1))
        case .sigmoid: return VectorMath.sigmoid(v)
        case .gelu: return VectorMath.gelu(v)
        case .swish: return v * VectorMath.sigmoid(v)
        case .hardSwish:
            return v * VectorMath.minimum(VectorMath.maximum(v + 3, SIMD16<Float>()), SIMD16<Float>(repeating: 6)) * (1 / 6 as Float)
        }
    }

    /// The same for one value (a tail shorter than a vector), with the same approximations,
    /// so a value does not depend on where in a row it falls.
    @_transparent
    public func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .hardSigmoid(let alpha, let beta): return min(max(alpha * x + beta, 0), 1)
        case .sigmoid, .gelu, .swish, .hardSwish: return apply(SIMD16<Float>(repeating: x))[0]
        }
    }

    /// Applies the activation to `count` stored values, a vector at a time. Transparent, as the
    /// scalar form above: `@inlinable` alone left both called out of line, compiled for the
    /// baseline processor in this module (the strided depthwise convolution's activations).
    @_transparent
    public func apply(to values: UnsafeMutablePointer<Float>, count: Int) {
        guard self != .none else { return }
        var index = 0
        while index + 16 <= count {
            let raw = UnsafeMutableRawPointer(values + index)
            raw.storeBytes(of: apply(raw.loadUnaligned(as: SIMD16<Float>.self)), as: SIMD16<Float>.self)
            index += 16
        }
        while index < count {
            values[index] = apply(values[index])
            index += 1
        }
    }
}

/// The transcendental functions the activations need, on whole vectors, so a kernel applies
/// them as it stores its sums instead of calling `expf` or `erff` once a value.
///
/// Each is `@_transparent`, inlined before the optimiser weighs anything: with
/// `@inline(__always)` it declined them in the integer stores, the AVX2 micro-kernel and
/// `Activation.apply`, and called a GELU compiled in 128-bit halves there, 28% of the
/// recogniser's time on VNNI (`bench/neural/README.md`, "16-bit products on AVX-512 VNNI").
public enum VectorMath {
    public typealias Vector = SIMD16<Float>
    public typealias Bits = SIMD16<UInt32>

    /// The larger of each pair of lanes. The standard library's `pointwiseMax` is generic and
    /// is not always inlined (a call a vector, measured at 30% of a detector's time); a
    /// comparison and a blend are.
    @_transparent
    public static func maximum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: a .< b) }

    /// The smaller of each pair of lanes (see `maximum`).
    @_transparent
    public static func minimum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }

    /// `e^x` to about 2 ulp for `x` in `-87.3...88` (outside, the ends of that range):
    /// `x = n ln 2 + r` with `|r| <= ln 2 / 2`, `e^r` by its Taylor series to degree 7
    /// (remainder below 5e-9 relative), `2^n` written straight into the exponent bits.
    @_transparent
    public static func exp(_ x: Vector) -> Vector {
        let x = minimum(maximum(x, Vector(repeating: -87.3)), Vector(repeating: 88))
        // Adding 1.5 * 2^23 rounds to a whole number kept in the low mantissa bits; the extra
        // 127 is the exponent's bias, so those bits shifted up 23 places are 2^n's.
        let shifter = Vector(repeating: 12_582_912 + 127)
        let biased = shifter.addingProduct(x, Vector(repeating: 1.442_695_040_888_963_4))
        let n = biased - shifter
        // r = x - n ln 2, with ln 2 in two parts so that n times the first is exact.
        var r = x.addingProduct(n, Vector(repeating: -0.693_145_751_953_125))
        r = r.addingProduct(n, Vector(repeating: -1.428_606_765_330_187e-6))
        var p = Vector(repeating: 1.0 / 5040)
        p = step(p, r, 1.0 / 720)
        p = step(p, r, 1.0 / 120)
        p = step(p, r, 1.0 / 24)
        p = step(p, r, 1.0 / 6)
        p = step(p, r, 0.5)
        p = step(p, r, 1)
        p = step(p, r, 1)
        let scale = unsafeBitCast(unsafeBitCast(biased, to: Bits.self) &<< 23, to: Vector.self)
        return p * scale
    }

    /// Each 32-bit integer as the nearest float. Written lane by lane, which the optimiser
    /// turns into one conversion instruction (`vcvtdq2ps`); the standard library's
    /// `SIMD16<Float>(_:)` from integers was left a call, in `gloss`, into a copy compiled for
    /// SSE (0.6% of a page read by the neural reader on VNNI).
    @_transparent
    public static func float(_ integers: SIMD16<Int32>) -> Vector {
        var result = Vector()
        for lane in 0..<16 { result[lane] = Float(integers[lane]) }
        return result
    }

    /// One step of Horner's rule, `p * x + c`, in one rounding.
    @_transparent
    public static func step(_ p: Vector, _ x: Vector, _ c: Float) -> Vector {
        Vector(repeating: c).addingProduct(p, x)
    }

    /// `1 / (1 + e^-x)`.
    @_transparent
    public static func sigmoid(_ x: Vector) -> Vector {
        Vector(repeating: 1) / (Vector(repeating: 1) + exp(-x))
    }

    /// The exact GELU, `x * Phi(x)` with `Phi(x) = (1 + erf(x / sqrt 2)) / 2`. The tail
    /// `q = 1 - erf(|z|)` is Abramowitz and Stegun's 7.1.26 (absolute error at most 1.5e-7):
    /// `q = t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-z^2)`, `t = 1 / (1 + p |z|)`. Taking
    /// `Phi = q / 2` below zero and `1 - q / 2` above avoids subtracting nearly equal numbers.
    @_transparent
    public static func gelu(_ x: Vector) -> Vector {
        let z = x * Vector(repeating: 0.707_106_781_186_547_5)
        let magnitude = maximum(z, -z)
        let t = Vector(repeating: 1) / Vector(repeating: 1).addingProduct(magnitude, Vector(repeating: 0.327_591_1))
        var p = Vector(repeating: 1.061_405_429)
        p = step(p, t, -1.453_152_027)
        p = step(p, t, 1.421_413_741)
        p = step(p, t, -0.284_496_736)
        p = step(p, t, 0.254_829_592)
        let half = Vector(repeating: 0.5) * p * t * exp(-(magnitude * magnitude))
        var phi = Vector(repeating: 1) - half
        phi.replace(with: half, where: x .< 0)
        return x * phi
    }
}

/// The stores that end every packed product: a row of sixteen sums through the activation and
/// the residual into the output, and the integer products' sums scaled back to floats first.
/// Transparent, so each kernel module compiles them for its own processor: `GlossNeuralNetwork`
/// for AVX2 (a vector of sixteen in two registers), `GlossNeuralKernelsAVX512` for AVX-512 (one).
public enum Epilogue {
    /// Stores one row of a block's sums: the activation, the residual's row, then the first
    /// `columns` values (all sixteen when `padded`, or when the row is whole).
    @_transparent
    public static func store(
        _ sum: SIMD16<Float>, columns: Int, activation: Activation, residual: UnsafePointer<Float>?,
        output: UnsafeMutablePointer<Float>, padded: Bool
    ) {
        var value = activation.apply(sum)
        if let residual {
            if columns == 16 {
                value += UnsafeRawPointer(residual).loadUnaligned(as: SIMD16<Float>.self)
            } else {
                for lane in 0..<columns { value[lane] += residual[lane] }
            }
        }
        if padded || columns == 16 {
            UnsafeMutableRawPointer(output).storeBytes(of: value, as: SIMD16<Float>.self)
        } else {
            for lane in 0..<columns { output[lane] = value[lane] }
        }
    }

    /// A block of integer sums: `rows` rows of sixteen 32-bit sums, `stride` apart, each
    /// scaled back by its row's scale (`rowScales[firstRow + r]`) and its columns'
    /// (`columnScales`), then stored with the bias, activation and residual (`store`).
    @_transparent
    public static func storeIntegers(
        _ sums: UnsafePointer<Int32>, stride: Int, rows: Int, firstRow: Int, rowScales: UnsafePointer<Float>,
        columnScales: SIMD16<Float>, column: Int, width: Int, bias: UnsafePointer<Float>?, activation: Activation,
        residual: UnsafePointer<Float>?, residualStride: Int, output: UnsafeMutablePointer<Float>, rowStride: Int, padded: Bool
    ) {
        for r in 0..<rows {
            let integers = UnsafeRawPointer(sums + r * stride).loadUnaligned(as: SIMD16<Int32>.self)
            var sum = VectorMath.float(integers) * (columnScales * rowScales[firstRow + r])
            if let bias { sum += SIMD16<Float>(repeating: bias[firstRow + r]) }
            store(sum, columns: width, activation: activation,
                  residual: residual.map { $0 + (firstRow + r) * residualStride + column },
                  output: output + r * rowStride, padded: padded)
        }
    }
}
