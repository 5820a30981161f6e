import CPPOCRModels
@testable import GlossNeuralKernelChoice
@testable import GlossNeuralNetwork
import Testing

/// The reduced products (bf16 on AMX: `BF16ProductTests`; 16-bit integers on AVX2:
/// `IntegerProductTests`) on the real models, each where this processor runs it: every matrix
/// of the recogniser and the detector within its rounding's bound, the golden lines read as
/// onnxruntime reads them, and the cascade's fp32 twin reading as a network built in fp32.
struct ReducedProducts {
    /// The reduced products whose kernels this processor runs.
    static let runnable: [Products] = (BF16ProductTests.runsAMX ? [.bf16] : []) + (IntegerProductTests.runsIntegers ? [.int16] : [])
    /// Those the process's networks run (`KernelChoice.current`).
    static let chosen: [Products] = KernelChoice.current.kernels.products == .fp32 ? [] : [KernelChoice.current.kernels.products]

    /// Each matrix by 40 columns of random activations in -1...1, against the fp32 product.
    @Test(arguments: runnable)
    func everyMatrixOfTheModelsIsWithinItsRounding(products: Products) throws {
        let matrices = try Self.modelMatrices(products: products)
        for (name, weights, values, input) in matrices {
            try #require(products == .bf16 ? weights.tiles != nil : weights.integers != nil)
            let bias = [Float](repeating: 0, count: weights.rows)
            let (worst, unwritten) = products == .bf16
                ? BF16ProductTests.compare(weights, values: values, input: input, columns: 40, bias: bias, activation: .none)
                : IntegerProductTests.compare(weights, values: values, input: input, columns: 40, bias: bias)
            #expect(!unwritten && worst <= 1, "\(products) \(name): \(worst) of the bound")
        }
        #expect(matrices.count > 50, "only \(matrices.count) matrices")
    }

    /// The same best class as onnxruntime at every step of each golden line, the same text, and
    /// probabilities within 0.2 of onnxruntime's in bf16 (measured: 0.128 sans, 0.035 serif,
    /// 0.098 mono) and 0.02 in integers (fp32: 1e-3, `RecogniserGoldenTests`).
    @Test(arguments: chosen)
    func theRecogniserReadsTheGoldenLines(products: Products) throws {
        for name in ["sans", "serif", "mono"] {
            let (worst, disagreements, readsText) = try Self.goldenLine(name, products: products)
            #expect(disagreements == 0, "\(products) \(name): \(disagreements) steps whose best class differs from onnxruntime's")
            #expect(worst < (products == .bf16 ? 0.2 : 0.02), "\(products) \(name): largest difference from onnxruntime \(worst)")
            #expect(readsText, "\(products) \(name)")
        }
    }

    /// The recogniser built reduced and then made fp32 (`withFP32Products`, the cascade's
    /// second reader, sharing the weights) reads a golden line exactly as the one built in fp32,
    /// and otherwise than the reduced one.
    @Test(arguments: chosen)
    func aReducedNetworkMadeFP32ReadsAsOneBuiltSo(products: Products) throws {
        let (asBuilt, reducedDiffers) = try Self.madeFP32(products: products)
        #expect(asBuilt)
        #expect(reducedDiffers)
    }

    /// Every packed matrix of a network.
    static func matrices(_ network: Network) -> [PackedMatrix] {
        network.steps.flatMap { step -> [PackedMatrix] in
            switch step.operation {
            case .convolution(_, let packed?, _, _, _, _, _, _, _): [packed]
            case .transposed(let taps, _, _, _): [taps]
            case .linear(_, let packed, _, _): [packed]
            case .channelMixer(let expand, _, let project, _): [expand, project]
            case .banded(let group): group.members.map(\.weights)
            default: []
            }
        }
    }

    /// Each matrix of the recogniser and the detector built with `products`, with its weights
    /// row-major (read back from its panels) and 40 columns of random activations in -1...1.
    static func modelMatrices(products: Products) throws -> [(name: String, weights: PackedMatrix, values: [Float], input: [Float])] {
        var found: [(name: String, weights: PackedMatrix, values: [Float], input: [Float])] = []
        for (model, name) in [(gloss_ppocr_recogniser, "ppocr-rec.bin"), (gloss_ppocr_detector, "ppocr-det.bin")] {
            var count = 0
            let bytes = UnsafeRawBufferPointer(start: try #require(model(&count)), count: count)
            let network = try Network(model: try ModelFile(bytes: bytes, path: name), path: name, products: products)
            for (index, weights) in matrices(network).enumerated() {
                let rows = weights.rows, inner = weights.inner
                let values = (0..<(rows * inner)).map { weights.panels[($0 / inner / 6 * inner + $0 % inner) * 6 + $0 / inner % 6] }
                found.append(("\(name) matrix \(index) \(rows)x\(inner)", weights, values,
                              LayerTests.values(inner * 40, seed: UInt64(index))))
            }
        }
        return found
    }

    /// The recogniser built with `products` on golden line `name`: its largest difference from
    /// onnxruntime's probabilities, the steps whose best class differs, and whether it reads
    /// the line's text.
    static func goldenLine(_ name: String, products: Products) throws -> (worst: Float, disagreements: Int, readsText: Bool) {
        var count = 0
        let bytes = UnsafeRawBufferPointer(start: try #require(gloss_ppocr_recogniser(&count)), count: count)
        var network = try Network(model: try ModelFile(bytes: bytes, path: "ppocr-rec.bin"), path: "ppocr-rec.bin", products: products)
        let line = try RecogniserGoldenTests.line(name)
        let output = try network.run(line.input)
        let (worst, disagreements) = RecogniserGoldenTests.compare(output, line)
        let text = RecogniserGoldenTests.decode(output, characters: try RecogniserGoldenTests.characters())
        return (worst, disagreements, text == line.text)
    }

    /// The recogniser built with `products` and then made fp32 (`withFP32Products`, the
    /// cascade's second reader, sharing the weights), on a golden line: whether it gives the
    /// values of one built in fp32, and whether the reduced one gives others.
    static func madeFP32(products: Products) throws -> (asBuilt: Bool, reducedDiffers: Bool) {
        var count = 0
        let bytes = UnsafeRawBufferPointer(start: try #require(gloss_ppocr_recogniser(&count)), count: count)
        let model = try ModelFile(bytes: bytes, path: "ppocr-rec.bin")
        var reduced = try Network(model: model, path: "ppocr-rec.bin", products: products)
        var made = reduced.withFP32Products
        var built = try Network(model: model, path: "ppocr-rec.bin", products: .fp32)
        let line = try RecogniserGoldenTests.line("sans")
        let exact = try built.run(line.input).values
        return (try made.run(line.input).values == exact, try reduced.run(line.input).values != exact)
    }

    /// `weights` x `input` (`[inner][columns]`, packed in tiles here) with `kernels`; NaN where
    /// the product wrote nothing.
    static func product(_ weights: PackedMatrix, input: [Float], columns: Int, bias: [Float], activation: Activation,
                        kernels: KernelSet) -> [Float] {
        let tiles = (columns + 15) / 16
        var packed = [Float](repeating: 0, count: tiles * weights.inner * 16)
        packed.withUnsafeMutableBufferPointer {
            Kernels.pack(input, stride: columns, depth: weights.inner, columns: columns, into: $0.baseAddress!)
        }
        var out = [Float](repeating: .nan, count: weights.rows * columns)
        out.withUnsafeMutableBufferPointer { o in
            Kernels.multiplyPacked(weights, packed: packed, columns: columns, bias: bias, activation: activation,
                                   residual: nil, residualStride: 0,
                                   output: Kernels.Destination(base: o.baseAddress!, rowStride: columns, tileStride: 16),
                                   kernels: kernels)
        }
        return out
    }

    /// The largest magnitude and the sum of magnitudes of `count` values.
    static func magnitudes(_ count: Int, _ value: (Int) -> Float) -> (top: Float, sum: Float) {
        var top: Float = 0, sum: Float = 0
        for index in 0..<count {
            top = max(top, abs(value(index)))
            sum += abs(value(index))
        }
        return (top, sum)
    }
}
