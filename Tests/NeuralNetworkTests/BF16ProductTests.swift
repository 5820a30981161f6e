import Foundation
@testable import GlossNeuralKernelChoice
@testable import GlossNeuralNetwork
import Testing

/// AMX's bf16 product against the fp32 one: within what rounding both operands to bf16 can
/// change (bf16 keeps 8 bits of significand, so each operand moves by at most 2^-8 of itself
/// and each product `w * x` by at most about 2^-7 of `|w * x|`), on random shapes around the
/// tiles' edges and on the last layer; on the real models in `ReducedProducts`.
struct BF16ProductTests {
    static var runsAMX: Bool { KernelChoice.current.fastest == .amx }

    /// The products `weights` x `input` (`[inner][columns]` packed in tiles) with the fp32 wide
    /// kernel and with AMX, and the bound of each value's difference: 2^-7 of `sum |w| |x|`
    /// (with a margin for fp32's own rounding).
    static func compare(_ weights: PackedMatrix, values: [Float], input: [Float], columns: Int, bias: [Float],
                        activation: Activation) -> (worst: Float, unwritten: Bool) {
        let rows = weights.rows, inner = weights.inner
        let fp32 = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation, kernels: .avx512)
        let bf16 = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation, kernels: .amx)
        var worst: Float = 0
        for o in 0..<rows {
            for p in 0..<columns {
                var magnitude: Float = 0
                for k in 0..<inner { magnitude += abs(values[o * inner + k] * input[k * columns + p]) }
                let allowed = magnitude / 128 * 1.01 + 1e-5
                worst = max(worst, abs(bf16[o * columns + p] - fp32[o * columns + p]) / allowed)
            }
        }
        return (worst, bf16.contains { $0.isNaN })
    }

    /// Rows and columns around one and two tiles (16, 32), depths around a chunk (32) and a
    /// convolution's gathered taps. `worst` is the largest difference as a share of its bound.
    @Test(.enabled(if: runsAMX, "this processor has no AMX (or Linux refused its tiles)"),
          arguments: [(1, 1, 1), (7, 5, 17), (16, 32, 16), (17, 33, 33), (32, 64, 64), (45, 27, 100), (120, 240, 80),
                      (240, 120, 47), (6, 1000, 20)])
    func theBF16ProductIsTheFP32OneWithinBF16sRounding(rows: Int, inner: Int, columns: Int) {
        let values = LayerTests.values(rows * inner, seed: 31), input = LayerTests.values(inner * columns, seed: 32)
        let bias = LayerTests.values(rows, seed: 33)
        let weights = PackedMatrix(values, rows: rows, inner: inner, products: .bf16)
        for activation in [Activation.none, .relu] {
            let (worst, unwritten) = Self.compare(weights, values: values, input: input, columns: columns, bias: bias,
                                                  activation: activation)
            #expect(!unwritten, "\(rows)x\(inner)x\(columns): a value left unwritten")
            #expect(worst <= 1, "\(rows)x\(inner)x\(columns) \(activation): \(worst) of the bound")
        }
    }

    /// A product of sums that bf16 rounds to the same values the fp32 one gets (small
    /// integers times powers of two), exactly: the layout puts each weight by its own input.
    @Test(.enabled(if: runsAMX, "this processor has no AMX (or Linux refused its tiles)"))
    func exactValuesComeOutExactly() {
        let rows = 19, inner = 70, columns = 37
        let values = (0..<(rows * inner)).map { Float($0 % 7 - 3) }
        let input = (0..<(inner * columns)).map { Float($0 % 5 - 2) / 4 }
        let weights = PackedMatrix(values, rows: rows, inner: inner, products: .bf16)
        let (worst, unwritten) = Self.compare(weights, values: values, input: input, columns: columns,
                                              bias: [Float](repeating: 0.5, count: rows), activation: .none)
        #expect(!unwritten)
        #expect(worst * 1e-5 < 1e-9, "a difference of \(worst) of the bound (\(worst * 1e-5) at most when exact)")
    }

    /// The last layer with its softmax on AMX (the tokens rounded per run, the weights once):
    /// each log-probability within twice the largest bound of a logit's difference.
    @Test(.enabled(if: runsAMX, "this processor has no AMX (or Linux refused its tiles)"),
          arguments: [(120, 40, 200), (33, 17, 31), (7, 1, 16)])
    func theLastLayerOnBF16IsWithinBF16sRounding(inner: Int, tokens: Int, classes: Int) {
        let weights = LayerTests.values(classes * inner, seed: 41).map { $0 / 4 }
        let values = LayerTests.values(inner * tokens, seed: 42), bias = LayerTests.values(classes, seed: 43)
        let input = FeatureMap(channels: inner, height: 1, width: tokens, values: values)
        let panels = Layers.panels(weights, outputs: classes)
        let tiles = Layers.bf16Panels(panels, inner: inner, outputs: classes)
        var fp32 = FeatureMap(channels: 1, height: 1, width: 1), bf16 = fp32, scratch: [Float] = []
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, into: &fp32, scratch: &scratch, kernels: .avx512)
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, tiles: tiles, into: &bf16, scratch: &scratch, kernels: .amx)
        #expect(bf16.height == tokens && bf16.width == classes)
        var worst: Float = 0
        for p in 0..<tokens {
            var bound: Float = 0
            for o in 0..<classes {
                var magnitude: Float = 0
                for c in 0..<inner { magnitude += abs(weights[o * inner + c] * values[c * tokens + p]) }
                bound = max(bound, magnitude / 128 * 1.01 + 1e-5)
            }
            for o in 0..<classes { worst = max(worst, abs(log(bf16[0, p, o]) - log(fp32[0, p, o])) / (2 * bound)) }
        }
        #expect(worst <= 1, "\(inner)x\(tokens)x\(classes): \(worst) of the bound")
    }
}
