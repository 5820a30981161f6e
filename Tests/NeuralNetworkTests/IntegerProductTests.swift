import Foundation
#if arch(x86_64)
import CNeuralKernels
#endif
@testable import GlossNeuralKernelChoice
@testable import GlossNeuralNetwork
import Testing

/// The 16-bit integer product (AVX2's kernel; VNNI's against it) against the fp32 one. Each weight is its row's scale `s_w`
/// times an integer and each activation its column's scale `s_x` times one, both rounded to
/// nearest, so a weight moves by at most `s_w / 2` and an activation by `s_x / 2`; a sum of
/// `inner` products then moves by at most `s_x / 2 * sum |w| + s_w / 2 * sum |x| + inner *
/// s_w * s_x / 4`. Checked on random shapes, on sums as large as the integers allow (none may
/// wrap) and on the last layer; on the real models in `ReducedProducts`.
struct IntegerProductTests {
    #if arch(x86_64)
    static let runsIntegers = KernelChoice.current.runsNetworks
    #else
    static let runsIntegers = false
    #endif

    /// The products `values` (`rows x inner`) x `input` (`inner x columns`) in fp32 and in
    /// integers, and the largest difference as a share of its bound (with fp32's own rounding
    /// as a margin).
    static func compare(_ weights: PackedMatrix, values: [Float], input: [Float], columns: Int, bias: [Float],
                        activation: Activation = .none) -> (worst: Float, unwritten: Bool) {
        let rows = weights.rows, inner = weights.inner
        let fp32 = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation, kernels: .avx2)
        let integers = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation,
                                               kernels: .int16)
        let rowScales = weights.integers?.scales ?? []
        var worst: Float = 0
        for p in 0..<columns {
            let x = ReducedProducts.magnitudes(inner) { input[$0 * columns + p] }
            for o in 0..<rows {
                let w = ReducedProducts.magnitudes(inner) { values[o * inner + $0] }
                let magnitude = (0..<inner).reduce(Float(0)) { $0 + abs(values[o * inner + $1] * input[$1 * columns + p]) }
                let allowed = Self.bound(weights: w.sum, weightScale: rowScales[o], inputs: x.sum,
                                         inputScale: x.top / IntegerPanels.activationLimit, inner: inner)
                    + magnitude * Float(inner + 8) * 1.2e-7
                worst = max(worst, abs(integers[o * columns + p] - fp32[o * columns + p]) / allowed)
            }
        }
        return (worst, integers.contains { $0.isNaN })
    }

    /// How far a sum of `inner` products may move when each weight moves by at most half its
    /// scale and each input by half its own (with 1% and 1e-6 for fp32's rounding).
    static func bound(weights: Float, weightScale: Float, inputs: Float, inputScale: Float, inner: Int) -> Float {
        (inputScale / 2 * weights + weightScale / 2 * inputs + Float(inner) * weightScale * inputScale / 4) * 1.01 + 1e-6
    }

    /// Random weights (`rows x inner`, kept in integers too), input (`inner x columns`) and bias,
    /// from seeds `seed`, `seed + 1` and `seed + 2`.
    static func randomProduct(rows: Int, inner: Int, columns: Int, seed: UInt64)
        -> (values: [Float], input: [Float], bias: [Float], weights: PackedMatrix) {
        let values = LayerTests.values(rows * inner, seed: seed)
        return (values, LayerTests.values(inner * columns, seed: seed + 1), LayerTests.values(rows, seed: seed + 2),
                PackedMatrix(values, rows: rows, inner: inner, products: .int16))
    }

    /// Rows around a panel (6), columns around one and two tiles (16, 32), odd and even
    /// depths from one to a convolution's gathered taps.
    @Test(.enabled(if: runsIntegers, "this processor does not run the networks"),
          arguments: [(1, 1, 1), (7, 5, 17), (6, 32, 16), (13, 33, 33), (32, 64, 64), (45, 27, 100), (120, 480, 80),
                      (480, 120, 47), (6, 1151, 20)])
    func theIntegerProductIsTheFP32OneWithinItsRounding(rows: Int, inner: Int, columns: Int) throws {
        let (values, input, bias, weights) = Self.randomProduct(rows: rows, inner: inner, columns: columns, seed: 61)
        try #require(weights.integers != nil)
        for activation in [Activation.none, .relu] {
            let (worst, unwritten) = Self.compare(weights, values: values, input: input, columns: columns, bias: bias,
                                                  activation: activation)
            #expect(!unwritten, "\(rows)x\(inner)x\(columns): a value left unwritten")
            #expect(worst <= 1, "\(rows)x\(inner)x\(columns) \(activation): \(worst) of the bound")
        }
    }

    /// Every weight of a row alike and every activation at its column's largest magnitude, of
    /// one sign or alternating, 3,000 deep: the largest sums the scales allow. A sum past 32
    /// bits would wrap and come out far from the fp32 one, of the wrong sign.
    @Test(.enabled(if: runsIntegers, "this processor does not run the networks"))
    func noSumWrapsAtTheLargestMagnitudes() {
        let rows = 8, inner = 3000, columns = 16
        let values = (0..<(rows * inner)).map { index in Float(index / inner % 2 == 0 ? 1 : -3) }
        let input = (0..<(inner * columns)).map { index in index % columns < 8 ? Float(5) : Float(index / columns % 2 == 0 ? 5 : -5) }
        let weights = PackedMatrix(values, rows: rows, inner: inner, products: .int16)
        let (worst, unwritten) = Self.compare(weights, values: values, input: input, columns: columns,
                                              bias: [Float](repeating: 0, count: rows))
        #expect(!unwritten)
        #expect(worst <= 1, "\(worst) of the bound")
    }

    /// A row of zeros and a column of zeros give zeros (their scales are 0, not a division by 0).
    @Test(.enabled(if: runsIntegers, "this processor does not run the networks"))
    func zerosStayZeros() {
        let rows = 3, inner = 9, columns = 5
        var values = LayerTests.values(rows * inner, seed: 64)
        for k in 0..<inner { values[inner + k] = 0 }
        var input = LayerTests.values(inner * columns, seed: 65)
        for k in 0..<inner { input[k * columns + 2] = 0 }
        let weights = PackedMatrix(values, rows: rows, inner: inner, products: .int16)
        let out = ReducedProducts.product(weights, input: input, columns: columns, bias: [Float](repeating: 0, count: rows),
                                          activation: .none, kernels: .int16)
        #expect((0..<columns).allSatisfy { out[columns + $0] == 0 })
        #expect((0..<rows).allSatisfy { out[$0 * columns + 2] == 0 })
        #expect(out[0] != 0 && !out.contains { $0.isNaN })
    }

    /// Whether this processor has the wide integer kernel's AVX-512 VNNI (`KernelSet.vnni`).
    static let runsVNNI: Bool = {
        #if arch(x86_64)
        let flags = KernelChoice.processorFlags() ?? []
        return (KernelChoice.wideFlags + KernelChoice.vnniFlags).allSatisfy(flags.contains) && KernelChoice.current.runsNetworks
        #else
        return false
        #endif
    }()

    /// VNNI's kernel sums four tiles of columns at once where AVX2's sums one; the integer sums
    /// are the same, so every float the product stores is too, bit for bit. Rows around a
    /// panel, columns around one to four tiles and past them, odd and even depths.
    @Test(.enabled(if: runsVNNI, "this processor lacks AVX-512 VNNI"),
          arguments: [(1, 1, 1), (7, 5, 17), (6, 32, 48), (13, 33, 64), (12, 64, 65), (45, 27, 100), (120, 480, 80),
                      (480, 120, 47), (6, 1151, 130)])
    func theWideKernelStoresWhatAVX2sStores(rows: Int, inner: Int, columns: Int) throws {
        let (_, input, bias, weights) = Self.randomProduct(rows: rows, inner: inner, columns: columns, seed: 71)
        for activation in [Activation.none, .relu, .gelu] {
            let narrow = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation,
                                                 kernels: .int16)
            let wide = ReducedProducts.product(weights, input: input, columns: columns, bias: bias, activation: activation,
                                               kernels: .vnni)
            #expect(!wide.contains { $0.isNaN }, "\(rows)x\(inner)x\(columns): a value left unwritten")
            let differing = zip(narrow, wide).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(rows)x\(inner)x\(columns) \(activation): \(differing) values differ")
        }
    }

    /// `gloss_int16_pack` against its definition, computed here one value at a time: each
    /// column's scale its largest magnitude over the limit (0 for a column of zeros), each value
    /// times the limit over that magnitude rounded to nearest (ties to even), rows 2j and 2j + 1
    /// side by side, the odd row past the depth zero. Bit for bit, on depths around the packing's
    /// four running maxima, columns around a tile, a column of zeros and a column of one large
    /// value among small ones (its maximum in a middle row).
    @Test(.enabled(if: runsIntegers, "this processor does not run the networks"),
          arguments: [(1, 1), (2, 16), (3, 17), (4, 5), (5, 32), (7, 40), (8, 16), (9, 33), (37, 47)])
    func thePackScalesEachColumnToItsLimit(depth: Int, columns: Int) {
        #if arch(x86_64)
        let tiles = (columns + 15) / 16, pairs = (depth + 1) / 2, limit = IntegerPanels.activationLimit
        let values = LayerTests.values(tiles * depth * 16, seed: UInt64(depth * 100 + columns))
        func value(_ k: Int, _ column: Int) -> Float {
            guard column < columns else { return 0 }
            let random = values[((column / 16) * depth + k) * 16 + column % 16]
            return column == 1 ? 0 : column == 2 ? (k == depth / 2 ? 900 : random / 1000) : random
        }
        var block = [Float](repeating: 0, count: tiles * depth * 16)
        for column in 0..<(tiles * 16) {
            for k in 0..<depth { block[((column / 16) * depth + k) * 16 + column % 16] = value(k, column) }
        }
        var integers = [Int16](repeating: -1, count: tiles * pairs * 32), scales = [Float](repeating: .nan, count: tiles * 16)
        gloss_int16_pack(block, Int32(depth), Int32(columns), limit, &integers, &scales)
        var wrongIntegers = 0, wrongScales = 0
        for column in 0..<(tiles * 16) {
            let top = (0..<depth).reduce(Float(0)) { max($0, abs(value($1, column))) }
            let up = top > 0 ? limit / top : 0
            if scales[column].bitPattern != (top / limit).bitPattern { wrongScales += 1 }
            for k in 0..<(2 * pairs) {
                let expected = k < depth ? Int16((value(k, column) * up).rounded(.toNearestOrEven)) : 0
                if integers[((column / 16) * pairs + k / 2) * 32 + (column % 16) * 2 + k % 2] != expected { wrongIntegers += 1 }
            }
        }
        #expect(wrongIntegers == 0 && wrongScales == 0, "\(depth)x\(columns): \(wrongIntegers) integers, \(wrongScales) scales")
        if columns > 1 { #expect(scales[1] == 0) }
        #endif
    }

    /// The last layer (18,710 classes in the recogniser: tiles of columns by the thousand) the
    /// same with either integer kernel.
    @Test(.enabled(if: runsVNNI, "this processor lacks AVX-512 VNNI"))
    func theWideKernelReadsTheLastLayerAsAVX2sDoes() {
        let inner = 120, tokens = 13, classes = 1000
        let weights = LayerTests.values(classes * inner, seed: 74).map { $0 / 4 }
        let input = FeatureMap(channels: inner, height: 1, width: tokens, values: LayerTests.values(inner * tokens, seed: 75))
        let bias = LayerTests.values(classes, seed: 76), panels = Layers.panels(weights, outputs: classes)
        let integers = IntegerColumns(panels: panels, inner: inner, outputs: classes)
        var narrow = FeatureMap(channels: 1, height: 1, width: 1), wide = narrow, scratch: [Float] = []
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, integers: integers, into: &narrow, scratch: &scratch,
                                 kernels: .int16)
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, integers: integers, into: &wide, scratch: &scratch,
                                 kernels: .vnni)
        #expect(wide.height == tokens && wide.width == classes)
        #expect(narrow.storage == wide.storage)
    }

    /// The last layer with its softmax in integers (the tokens scaled per run, the classes
    /// once, both to `IntegerColumns.limit`): each log-probability within twice the largest
    /// bound of a logit's difference (a softmax moves a log-probability by its logit's change
    /// and at most the largest other one).
    @Test(.enabled(if: runsIntegers, "this processor does not run the networks"),
          arguments: [(120, 40, 200), (33, 17, 31), (7, 1, 16)])
    func theLastLayerInIntegersIsWithinItsRounding(inner: Int, tokens: Int, classes: Int) {
        let weights = LayerTests.values(classes * inner, seed: 66).map { $0 / 4 }
        let values = LayerTests.values(inner * tokens, seed: 67), bias = LayerTests.values(classes, seed: 68)
        let input = FeatureMap(channels: inner, height: 1, width: tokens, values: values)
        let panels = Layers.panels(weights, outputs: classes)
        let integers = IntegerColumns(panels: panels, inner: inner, outputs: classes)
        var fp32 = FeatureMap(channels: 1, height: 1, width: 1), reduced = fp32, scratch: [Float] = []
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, into: &fp32, scratch: &scratch, kernels: .avx2)
        Layers.linearSoftmaxRows(input, panels: panels, bias: bias, integers: integers, into: &reduced, scratch: &scratch,
                                 kernels: .int16)
        #expect(reduced.height == tokens && reduced.width == classes)
        let limit = IntegerColumns.limit(inner: inner)
        var worst: Float = 0
        for p in 0..<tokens {
            let token = ReducedProducts.magnitudes(inner) { values[$0 * tokens + p] }
            var bound: Float = 0
            for o in 0..<classes {
                let weight = ReducedProducts.magnitudes(inner) { weights[o * inner + $0] }
                let magnitude = (0..<inner).reduce(Float(0)) { $0 + abs(weights[o * inner + $1] * values[$1 * tokens + p]) }
                bound = max(bound, Self.bound(weights: weight.sum, weightScale: weight.top / limit, inputs: token.sum,
                                              inputScale: token.top / limit, inner: inner) + magnitude * 1e-5)
            }
            for o in 0..<classes { worst = max(worst, abs(log(reduced[0, p, o]) - log(fp32[0, p, o])) / (2 * bound)) }
        }
        #expect(worst <= 1, "\(inner)x\(tokens)x\(classes): \(worst) of the bound")
    }
}
