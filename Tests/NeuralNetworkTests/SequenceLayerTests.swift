import Foundation
@testable import GlossNeuralNetwork
import Testing

/// The recogniser's sequence layers (a sequence of T tokens of F features is an `F x 1 x T`
/// map) against values worked out by hand, and attention against its definition at the
/// recogniser's size.
struct SequenceLayerTests {
    static func empty() -> FeatureMap { FeatureMap(channels: 0, height: 0, width: 0) }

    @Test func layerNormOfEachTokensFeatures() {
        // Token p has features (1, 2, 3, 4) + p: mean 2.5 + p, centred (-1.5, -0.5, 0.5, 1.5),
        // variance 5 / 4 = 1.25; with epsilon 2.75 the deviation is sqrt(4) = 2, so the
        // normalised features are (-0.75, -0.25, 0.25, 0.75), times gamma (1, 2, 3, 4) plus
        // beta (0, 0, 0, 1): (-0.75, -0.5, 0.75, 4). 17 tokens: a vector of 16 and a tail.
        let tokens = 17
        var input = FeatureMap(channels: 4, height: 1, width: tokens)
        for f in 0..<4 { for p in 0..<tokens { input[f, 0, p] = Float(f + 1 + p) } }
        var output = Self.empty()
        Layers.layerNorm(input, gamma: [1, 2, 3, 4], beta: [0, 0, 0, 1], epsilon: 2.75, into: &output)
        #expect(output.channels == 4 && output.width == tokens)
        for p in 0..<tokens {
            #expect([output[0, 0, p], output[1, 0, p], output[2, 0, p], output[3, 0, p]] == [-0.75, -0.5, 0.75, 4])
        }
    }

    @Test func softmaxWritesARowPerToken() {
        // Token 0 has (0, ln 3): e^0 = 1 and e^ln 3 = 3 of 4, so (1/4, 3/4); token 1 has (5, 5):
        // (1/2, 1/2); token 2 has (-1000, 0): the first underflows, (0, 1).
        let input = FeatureMap(channels: 2, height: 1, width: 3, values: [0, 5, -1000, log(3), 5, 0])
        var output = Self.empty()
        Layers.softmaxRows(input, into: &output)
        #expect(output.channels == 1 && output.height == 3 && output.width == 2)
        let expected: [Float] = [0.25, 0.75, 0.5, 0.5, 0, 1]
        #expect(zip(output.values, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(Array(output.values))")
    }

    /// The scan `topTwo` stands for, one value at a time: a strictly larger value takes the
    /// best's place and hands the old best to the runner-up.
    static func scannedTopTwo(_ values: [Float]) -> TopTwo {
        var top = 0, probability = values[0], second = -1, secondValue = -Float.infinity
        for index in 1..<values.count {
            if values[index] > probability {
                (second, secondValue) = (top, probability)
                (top, probability) = (index, values[index])
            } else if values[index] > secondValue {
                (second, secondValue) = (index, values[index])
            }
        }
        return TopTwo(best: top, bestValue: probability, second: second, secondValue: secondValue)
    }

    /// Ties keep the first index, for the best and for the runner-up, across a vector's edge
    /// and in the tail (37 values: two vectors of 16 and 5 more); a runner-up before the best;
    /// rows of one value, of equal values, and random rows of few distinct values (so equal
    /// values are common), as long as the recogniser's 18,710 classes.
    @Test func topTwoIsTheScansBestAndRunnerUp() {
        func row(_ count: Int, _ base: Float, _ set: [Int: Float]) -> [Float] {
            var values = [Float](repeating: base, count: count)
            for (index, value) in set { values[index] = value }
            return values
        }
        let cases: [([Float], TopTwo)] = [
            (row(37, 0.1, [3: 0.9, 30: 0.9, 16: 0.7]), TopTwo(best: 3, bestValue: 0.9, second: 30, secondValue: 0.9)),
            (row(37, 0.1, [20: 0.9, 16: 0.7, 36: 0.7]), TopTwo(best: 20, bestValue: 0.9, second: 16, secondValue: 0.7)),
            (row(37, 0, [0: 0.3, 35: 0.6]), TopTwo(best: 35, bestValue: 0.6, second: 0, secondValue: 0.3)),
            ([0.5], TopTwo(best: 0, bestValue: 0.5, second: -1, secondValue: -.infinity)),
            (row(16, 0.25, [:]), TopTwo(best: 0, bestValue: 0.25, second: 1, secondValue: 0.25)),
        ]
        for (values, expected) in cases {
            let found = values.withUnsafeBufferPointer { Layers.topTwo($0.baseAddress!, count: values.count) }
            #expect(found == expected)
            #expect(Self.scannedTopTwo(values) == expected)
        }
        var state: UInt32 = 2_463_534_242
        for count in [2, 15, 16, 17, 33, 18_710] {
            // xorshift32: the same rows every run.
            let values = (0..<count).map { _ -> Float in
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                return Float(state % 8) / 8
            }
            let found = values.withUnsafeBufferPointer { Layers.topTwo($0.baseAddress!, count: count) }
            #expect(found == Self.scannedTopTwo(values), "\(values)")
        }
    }

    /// The linear layer and softmax in one against the definition, in doubles: 13 tokens (two
    /// panels of six and one past), 37 classes (two tiles of 16 and a part), 20 features.
    @Test func linearSoftmaxRowsIsTheLinearLayerThenTheSoftmax() {
        let tokens = 13, features = 20, classes = 37
        let input = FeatureMap(channels: features, height: 1, width: tokens, values: LayerTests.values(features * tokens, seed: 31))
        let weights = LayerTests.values(classes * features, seed: 32), bias = LayerTests.values(classes, seed: 33)
        var output = Self.empty(), scratch: [Float] = []
        Layers.linearSoftmaxRows(input, panels: Layers.panels(weights, outputs: classes), bias: bias, into: &output,
                                 scratch: &scratch)
        #expect(output.channels == 1 && output.height == tokens && output.width == classes)
        var worst = 0.0
        for p in 0..<tokens {
            let logits = (0..<classes).map { o in
                (0..<features).reduce(Double(bias[o])) { $0 + Double(weights[o * features + $1]) * Double(input[$1, 0, p]) }
            }
            let top = logits.max()!, total = logits.reduce(0) { $0 + Foundation.exp($1 - top) }
            for o in 0..<classes { worst = max(worst, abs(Double(output[0, p, o]) - Foundation.exp(logits[o] - top) / total)) }
        }
        #expect(worst < 1e-6, "largest difference \(worst)")
    }

    @Test func vectorExponentialAgreesWithExpf() {
        // Every 1/256 from -90 to 88: each lane within 6e-7 of expf relative (5 steps of the
        // float); below -87, e^-87.
        var x: Float = -90
        while x + 1.0 / 16 <= 88 {
            let lanes = Layers.Vector((0..<16).map { x + Float($0) / 256 })
            let e = Layers.exponential(lanes)
            for lane in 0..<16 {
                let expected = expf(max(lanes[lane], -87))
                #expect(abs(e[lane] - expected) <= 6e-7 * expected, "exp(\(lanes[lane])) = \(e[lane]), not \(expected)")
            }
            x += 1.0 / 16
        }
        // e^0 = 1 and e^1 = 2.7182817 to the float.
        #expect(Layers.exponential(Layers.Vector(repeating: 0))[0] == 1)
        #expect(abs(Layers.exponential(Layers.Vector(repeating: 1))[0] - 2.718_281_8) < 3e-7)
    }

    @Test func attentionOfTwoHeadsOverTwoTokens() {
        // Heads of size 1, scale 1/2; channels Q0, Q1, K0, K1, V0, V1, each over tokens (0, 1).
        // Head 0: q = (2, 0), k = (ln 3, 0). Token 0's scores 1/2 * 2 * (ln 3, 0) = (ln 3, 0)
        // give weights (3/4, 1/4), so with v = (10, 20) it reads 7.5 + 5 = 12.5; token 1's
        // scores (0, 0) give (1/2, 1/2): 15.
        // Head 1: q = (2, 4), k = (ln 3, 0), v = (4, 8). Token 0 as above: 3 + 2 = 5; token 1's
        // scores (2 ln 3, 0) give (9/10, 1/10): 3.6 + 0.8 = 4.4.
        let ln3 = Float(log(3.0))
        let input = FeatureMap(channels: 6, height: 1, width: 2, values: [2, 0, 2, 4, ln3, 0, ln3, 0, 10, 20, 4, 8])
        var output = Self.empty(), scratch: [Float] = []
        Layers.attention(input, heads: 2, scale: 0.5, into: &output, scratch: &scratch)
        #expect(output.channels == 2 && output.height == 1 && output.width == 2)
        let expected: [Float] = [12.5, 15, 5, 4.4]
        #expect(zip(output.values, expected).allSatisfy { abs($0 - $1) < 1e-5 }, "\(Array(output.values))")
    }

    @Test func attentionMatchesTheDefinitionAtTheRecognisersSize() {
        // 8 heads of 15 over 37 tokens (two vectors and a tail of the products).
        let heads = 8, size = 15, tokens = 37, width = heads * size
        let input = LayerTests.map(3 * width, 1, tokens, seed: 11)
        var output = Self.empty(), scratch: [Float] = []
        let scale: Float = 0.258
        Layers.attention(input, heads: heads, scale: scale, into: &output, scratch: &scratch)
        var expected = FeatureMap(channels: width, height: 1, width: tokens)
        for h in 0..<heads {
            for i in 0..<tokens {
                var scores = (0..<tokens).map { j in
                    (0..<size).reduce(Float(0)) { $0 + scale * input[h * size + $1, 0, i] * input[width + h * size + $1, 0, j] }
                }
                let largest = scores.max()!
                scores = scores.map { exp($0 - largest) }
                let sum = scores.reduce(0, +)
                for d in 0..<size {
                    expected[h * size + d, 0, i] = (0..<tokens).reduce(Float(0)) {
                        $0 + scores[$1] / sum * input[2 * width + h * size + d, 0, $1]
                    }
                }
            }
        }
        LayerTests.expectClose(output, expected)
    }

    @Test func poolsOfWholeWindows() {
        // A 3 x 5 ramp 0...14 in 3x2 windows, stride 3x2: columns 0-1 hold 0, 1, 5, 6, 10, 11
        // (mean 33 / 6 = 5.5), columns 2-3 hold 2, 3, 7, 8, 12, 13 (45 / 6 = 7.5); column 4 is
        // past the last whole window.
        let ramp = FeatureMap(channels: 1, height: 3, width: 5, values: (0..<15).map(Float.init))
        var output = Self.empty()
        Layers.pool(ramp, kernel: (3, 2), stride: (3, 2), maximum: false, into: &output)
        #expect(output.height == 1 && output.width == 2 && Array(output.values) == [5.5, 7.5])
        // 2x2 maxima, stride 2, two channels: (1, 2, 5, 6) -> 6, (3, 4, 7, 8) -> 8; negated -> -1, -3.
        let two = FeatureMap(channels: 2, height: 2, width: 4, values: (1...8).map(Float.init) + (1...8).map { -Float($0) })
        Layers.pool(two, kernel: (2, 2), stride: (2, 2), maximum: true, into: &output)
        #expect(output.channels == 2 && output.height == 1 && Array(output.values) == [6, 8, -1, -3])
    }

    @Test func hardSwishAsAConvolutionsActivation() {
        // x * clip(x + 3, 0, 6) / 6: -4 -> 0, -1.5 -> -1.5 * 1.5 / 6 = -0.375, 0 -> 0,
        // 1 -> 4 / 6, 3 -> 3, 4 -> 4; 18 pixels, so a vector of 16 and a tail of 2.
        let xs: [Float] = [-4, -1.5, 0, 1, 3, 4, -4, -1.5, 0, 1, 3, 4, -4, -1.5, 0, 1, 3, 4]
        let input = FeatureMap(channels: 1, height: 1, width: xs.count, values: xs)
        var output = Self.empty(), scratch: [Float] = []
        Layers.convolution(input, weights: [1], bias: [0], kernel: (1, 1), stride: (1, 1), padding: (0, 0, 0, 0),
                           activation: .hardSwish, into: &output, scratch: &scratch)
        let expected: [Float] = [0, -0.375, 0, 4.0 / 6, 3, 4]
        for (index, value) in output.values.enumerated() {
            #expect(abs(value - expected[index % 6]) < 1e-6, "pixel \(index): \(value)")
        }
    }
}
