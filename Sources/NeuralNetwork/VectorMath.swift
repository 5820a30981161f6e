/// The transcendental functions the activations need, on whole vectors, so a kernel applies
/// them as it stores its sums instead of calling `expf` or `erff` once a value.
///
/// Each is `@_transparent`, inlined before the optimiser weighs anything: with
/// `@inline(__always)` it declined them in the integer stores, the AVX2 micro-kernel and
/// `Activation.apply`, and called a GELU compiled in 128-bit halves there, 28% of the
/// recogniser's time on VNNI (`bench/neural/README.md`, "16-bit products on AVX-512 VNNI").
enum VectorMath {
    typealias Vector = Layers.Vector
    typealias Bits = SIMD16<UInt32>

    /// `e^x` to about 2 ulp for `x` in `-87.3...88` (outside, the ends of that range):
    /// `x = n ln 2 + r` with `|r| <= ln 2 / 2`, `e^r` by its Taylor series to degree 7
    /// (remainder below 5e-9 relative), `2^n` written straight into the exponent bits.
    @_transparent
    static func exp(_ x: Vector) -> Vector {
        let x = Layers.minimum(Layers.maximum(x, Vector(repeating: -87.3)), Vector(repeating: 88))
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

    /// One step of Horner's rule, `p * x + c`, in one rounding.
    @_transparent
    static func step(_ p: Vector, _ x: Vector, _ c: Float) -> Vector {
        Vector(repeating: c).addingProduct(p, x)
    }

    /// `1 / (1 + e^-x)`.
    @_transparent
    static func sigmoid(_ x: Vector) -> Vector {
        Vector(repeating: 1) / (Vector(repeating: 1) + exp(-x))
    }

    /// The exact GELU, `x * Phi(x)` with `Phi(x) = (1 + erf(x / sqrt 2)) / 2`. The tail
    /// `q = 1 - erf(|z|)` is Abramowitz and Stegun's 7.1.26 (absolute error at most 1.5e-7):
    /// `q = t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-z^2)`, `t = 1 / (1 + p |z|)`. Taking
    /// `Phi = q / 2` below zero and `1 - q / 2` above avoids subtracting nearly equal numbers.
    @_transparent
    static func gelu(_ x: Vector) -> Vector {
        let z = x * Vector(repeating: 0.707_106_781_186_547_5)
        let magnitude = Layers.maximum(z, -z)
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
