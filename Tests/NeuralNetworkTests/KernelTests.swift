#if canImport(Glibc)
import Glibc
#endif
@testable import GlossNeuralKernelChoice
@testable import GlossNeuralNetwork
import Testing

/// The packed matrix product against a plain loop at sizes that cut its panels and tiles, the
/// vectorised activations against the C library, and the fused steps against the layers they
/// replace.
struct KernelTests {
    /// `act(bias + weights x input) + residual`, straight from the definition.
    static func product(_ weights: [Float], rows: Int, inner: Int, _ input: [Float], columns: Int, bias: [Float],
                        residual: [Float]?, activation: Activation) -> [Float] {
        var out = [Float](repeating: 0, count: rows * columns)
        for o in 0..<rows {
            for p in 0..<columns {
                var sum = Double(bias[o])
                for k in 0..<inner { sum += Double(weights[o * inner + k]) * Double(input[k * columns + p]) }
                out[o * columns + p] = activation.apply(Float(sum)) + (residual?[o * columns + p] ?? 0)
            }
        }
        return out
    }

    /// `Kernels.matrixProduct` of `weights` by `input` (`[inner][columns]`), into a new array
    /// (NaN where nothing was written), with `kernels`.
    static func matrixProduct(_ weights: PackedMatrix, _ input: [Float], columns: Int, bias: [Float], residual: [Float]?,
                              activation: Activation, kernels: KernelSet = KernelChoice.current.kernels) -> [Float] {
        var workspace = [Float](repeating: 0, count: Kernels.matrixProductWorkspace(inner: weights.inner))
        var out = [Float](repeating: .nan, count: weights.rows * columns)
        input.withUnsafeBufferPointer { x in
            out.withUnsafeMutableBufferPointer { o in
                workspace.withUnsafeMutableBufferPointer { w in
                    Kernels.matrixProduct(weights, input: x.baseAddress!, inputStride: columns, columns: columns, bias: bias,
                                          activation: activation, residual: residual, residualStride: columns,
                                          output: o.baseAddress!, outputStride: columns, workspace: w.baseAddress!,
                                          kernels: kernels)
                }
            }
        }
        return out
    }

    @Test(arguments: [(1, 1, 1), (7, 5, 17), (13, 40, 33), (24, 864, 70), (6, 3, 600)])
    func matrixProductMatchesTheDefinition(rows: Int, inner: Int, columns: Int) {
        // Rows past a panel of six, columns past a tile of 16 and a block (600 > 512 at depth 3).
        let weights = LayerTests.values(rows * inner, seed: 1), input = LayerTests.values(inner * columns, seed: 2)
        let bias = LayerTests.values(rows, seed: 3), residual = LayerTests.values(rows * columns, seed: 4)
        let packed = PackedMatrix(weights, rows: rows, inner: inner, products: .fp32)
        for withResidual in [false, true] {
            let out = Self.matrixProduct(packed, input, columns: columns, bias: bias, residual: withResidual ? residual : nil,
                                         activation: .relu)
            let expected = Self.product(weights, rows: rows, inner: inner, input, columns: columns, bias: bias,
                                        residual: withResidual ? residual : nil, activation: .relu)
            let worst = zip(out, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 1e-4 * Float(max(1, inner / 16)), "\(rows)x\(inner)x\(columns): largest difference \(worst)")
        }
    }

    @Test func activationsMatchTheCLibrary() {
        // -12...12 in steps of 1/64: GELU within 2e-7 of x * (1 + erf(x / sqrt 2)) / 2 relative to
        // max(1, |x|), the sigmoid within 2e-7 of 1 / (1 + exp(-x)).
        var worstGelu: Float = 0, worstSigmoid: Float = 0
        for step in -768...768 {
            let x = Float(step) / 64
            let gelu = 0.5 * Double(x) * (1 + erf(Double(x) / 2.0.squareRoot()))
            worstGelu = max(worstGelu, abs(Activation.gelu.apply(x) - Float(gelu)) / max(1, abs(x)))
            worstSigmoid = max(worstSigmoid, abs(Activation.sigmoid.apply(x) - Float(1 / (1 + exp(-Double(x))))))
        }
        #expect(worstGelu < 2e-7, "GELU off by \(worstGelu)")
        #expect(worstSigmoid < 2e-7, "sigmoid off by \(worstSigmoid)")
        // e^x at the ends of its range stays finite and positive.
        let ends = VectorMath.exp(Layers.Vector(repeating: 200)), zero = VectorMath.exp(Layers.Vector(repeating: -200))
        #expect(ends[0].isFinite && ends[0] > 1e38 && zero[0] >= 0 && zero[0] < 1e-37)
    }

    @Test func theFusedMixerEqualsItsThreeLayers() {
        // 5 channels, 10 hidden, a 7 x 9 map (63 pixels: tiles of 16 and a tail).
        let input = LayerTests.map(5, 7, 9, seed: 5)
        let first = LayerTests.values(50, seed: 6), firstBias = LayerTests.values(10, seed: 7)
        let second = LayerTests.values(50, seed: 8), secondBias = LayerTests.values(5, seed: 9)
        var hidden = ProgramLayerTests.empty(), projected = ProgramLayerTests.empty(), expected = ProgramLayerTests.empty()
        var scratch: [Float] = []
        Layers.convolution(input, weights: first, bias: firstBias, kernel: (1, 1), stride: (1, 1), padding: (0, 0, 0, 0),
                           activation: .gelu, into: &hidden, scratch: &scratch)
        Layers.convolution(hidden, weights: second, bias: secondBias, kernel: (1, 1), stride: (1, 1),
                           padding: (0, 0, 0, 0), activation: .none, into: &projected, scratch: &scratch)
        Layers.combine(input, projected, multiply: false, into: &expected)
        var fused = ProgramLayerTests.empty(), workspace: [Float] = []
        let finished = Layers.channelMixer(input, expand: PackedMatrix(first, rows: 10, inner: 5, products: .fp32), expandBias: firstBias,
                                           project: PackedMatrix(second, rows: 5, inner: 10, products: .fp32), projectBias: secondBias,
                                           into: &fused, workspace: &workspace, isCancelled: { false })
        #expect(finished)
        LayerTests.expectClose(fused, expected)
        // Cancelled before its first block, it says so.
        #expect(!Layers.channelMixer(input, expand: PackedMatrix(first, rows: 10, inner: 5, products: .fp32), expandBias: firstBias,
                                     project: PackedMatrix(second, rows: 5, inner: 10, products: .fp32), projectBias: secondBias,
                                     into: &fused, workspace: &workspace, isCancelled: { true }))
    }

    @Test func aSumWithAnEnlargedMapEqualsTheTwoLayers() {
        let fine = LayerTests.map(2, 6, 8, seed: 10), coarse = LayerTests.map(2, 3, 4, seed: 11)
        var enlarged = ProgramLayerTests.empty(), expected = ProgramLayerTests.empty(), fused = ProgramLayerTests.empty()
        Layers.enlarge(coarse, by: 2, into: &enlarged)
        Layers.combine(fine, enlarged, multiply: false, into: &expected)
        Layers.addEnlarged(fine, coarse, by: 2, into: &fused)
        #expect(Array(fused.values) == Array(expected.values))
    }

    @Test func aConvolutionOfPartsEqualsOneOfTheirConcatenation() {
        let a = LayerTests.map(2, 5, 6, seed: 12), b = LayerTests.map(3, 5, 6, seed: 13)
        var joined = ProgramLayerTests.empty(), expected = ProgramLayerTests.empty(), parts = ProgramLayerTests.empty()
        Layers.concatenate([a, b], into: &joined)
        let weights = LayerTests.values(4 * 5 * 9, seed: 14), bias = LayerTests.values(4, seed: 15)
        var scratch: [Float] = [], workspace: [Float] = []
        Layers.convolution(joined, weights: weights, bias: bias, kernel: (3, 3), stride: (2, 2), padding: (1, 1, 1, 1),
                           activation: .none, into: &expected, scratch: &scratch)
        Layers.convolution(parts: 2, { $0 == 0 ? a : b }, weights: PackedMatrix(weights, rows: 4, inner: 45, products: .fp32), bias: bias,
                           kernel: (3, 3), stride: (2, 2), padding: (1, 1, 1, 1), activation: .none, into: &parts,
                           scratch: &scratch, workspace: &workspace)
        LayerTests.expectClose(parts, expected)
    }

    @Test(arguments: [(2, 9), (2, 75), (1, 41)])
    func aPooledPartIsReadThroughItsMaxPool(stride: Int, width: Int) {
        // The stem's form: concat(maxpool(a), b), 3x3 stride 2; widths odd so the pool's
        // clamped right column and bottom row are read, and wide enough for whole tiles of
        // sixteen outputs (read a vector at a time) beside the edges' lanes.
        let a = LayerTests.map(2, 7, width, seed: 16), b = LayerTests.map(1, 7, width, seed: 17)
        var pooled = ProgramLayerTests.empty(), joined = ProgramLayerTests.empty()
        var expected = ProgramLayerTests.empty(), parts = ProgramLayerTests.empty()
        Layers.maxPool2x2SameUpper(a, into: &pooled)
        Layers.concatenate([pooled, b], into: &joined)
        let weights = LayerTests.values(2 * 3 * 9, seed: 18), bias = LayerTests.values(2, seed: 19)
        var scratch: [Float] = [], workspace: [Float] = []
        Layers.convolution(joined, weights: weights, bias: bias, kernel: (3, 3), stride: (stride, stride), padding: (1, 1, 1, 1),
                           activation: .relu, into: &expected, scratch: &scratch)
        Layers.convolution(parts: 2, { $0 == 0 ? a : b }, pooled: { $0 == 0 }, weights: PackedMatrix(weights, rows: 2, inner: 27, products: .fp32),
                           bias: bias, kernel: (3, 3), stride: (stride, stride), padding: (1, 1, 1, 1), activation: .relu, into: &parts,
                           scratch: &scratch, workspace: &workspace)
        #expect(parts.values == expected.values)
    }

    @Test func aSecondRunAtTheSameOrASmallerSizeKeepsEveryBuffer() throws {
        var network = try DetectorGoldenTests.detector()
        func buffers() -> [Int] {
            (network.slots.map(\.storage) + [network.scratch, network.workspace]).map { storage in
                storage.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
            }
        }
        _ = try network.run(LayerTests.map(3, 64, 96, seed: 16))
        let first = buffers()
        _ = try network.run(LayerTests.map(3, 64, 96, seed: 17))
        _ = try network.run(LayerTests.map(3, 32, 64, seed: 18))
        #expect(buffers() == first)
    }
}
