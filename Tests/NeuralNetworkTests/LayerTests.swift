import GlossNeuralNetwork
import Testing

/// Each layer against values worked out by hand, then against a plain loop written from the
/// definition, at sizes that exercise both the vector body and the scalar tail.
struct LayerTests {
    /// Deterministic values in -1...1, so failures reproduce.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Int64(state % 2001) - 1000) / 1000
        }
    }

    static func map(_ channels: Int, _ height: Int, _ width: Int, seed: UInt64) -> FeatureMap {
        FeatureMap(channels: channels, height: height, width: width, values: values(channels * height * width, seed: seed))
    }

    static func expectClose(_ a: FeatureMap, _ b: FeatureMap, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.channels == b.channels && a.height == b.height && a.width == b.width, sourceLocation: sourceLocation)
        let worst = zip(a.values, b.values).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-4, "largest difference \(worst)", sourceLocation: sourceLocation)
    }

    // MARK: By hand

    @Test func depthwiseByHand() {
        // One 3x3 plane 1...9, the kernel picks the centre and the right neighbour, bias 0.5.
        let input = FeatureMap(channels: 1, height: 3, width: 3, values: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var scratch: [Float] = []
        Layers.depthwise3x3(input, weights: [0, 0, 0, 0, 1, 2, 0, 0, 0], bias: [0.5], relu: false, into: &output,
                            scratch: &scratch)
        // Centre + 2 x right, the right of the last column being the zero border.
        #expect(Array(output.values) == [5.5, 8.5, 3.5, 14.5, 17.5, 6.5, 23.5, 26.5, 9.5])
    }

    @Test func pointwiseByHand() {
        // Two channels of two pixels; outputs: a - b (then ReLU) and a + b + 1.
        let input = FeatureMap(channels: 2, height: 1, width: 2, values: [3, 1, 2, 5])
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        Layers.pointwise(input, weights: [1, -1, 1, 1], bias: [0, 1], relu: true, into: &output)
        #expect(Array(output.values) == [1, 0, 6, 7])
    }

    @Test func strideTwoConvolutionByHand() {
        // A 4x4 ramp, one input and one output channel, the kernel sums its 3x3 window.
        let input = FeatureMap(channels: 1, height: 4, width: 4, values: (0..<16).map(Float.init))
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var scratch: [Float] = []
        Layers.convolution3x3Stride2(input, weights: [Float](repeating: 1, count: 9), bias: [0], relu: false,
                                     into: &output, scratch: &scratch)
        // Windows centred on (0,0), (0,2), (2,0), (2,2), zero outside.
        #expect(output.height == 2 && output.width == 2)
        // 0+1+4+5, 1+2+3+5+6+7, 4+5+8+9+12+13, 5+6+7+9+10+11+13+14+15.
        let expected: [Float] = [10, 24, 51, 90]
        #expect(Array(output.values) == expected)
    }

    @Test func maxPoolAndUpsampleByHand() {
        let input = FeatureMap(channels: 1, height: 3, width: 3, values: [1, 9, 2, 3, 4, 8, 7, 5, 6])
        var pooled = FeatureMap(channels: 0, height: 0, width: 0)
        Layers.maxPool2x2(input, into: &pooled)
        #expect(pooled.height == 2 && pooled.width == 2 && Array(pooled.values) == [9, 8, 7, 6])

        var fine = FeatureMap(channels: 1, height: 3, width: 4, values: [Float](repeating: 1, count: 12))
        Layers.addUpsampled(FeatureMap(channels: 1, height: 2, width: 2, values: [10, 20, 30, 40]), to: &fine)
        #expect(Array(fine.values) == [11, 11, 21, 21, 11, 11, 21, 21, 31, 31, 41, 41])
    }

    // MARK: Against the definition

    @Test(arguments: [(3, 5, 7), (16, 24, 37), (8, 33, 16)])
    func depthwiseMatchesTheDefinition(channels: Int, height: Int, width: Int) {
        let input = Self.map(channels, height, width, seed: 1)
        let weights = Self.values(channels * 9, seed: 2), bias = Self.values(channels, seed: 3)
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var scratch: [Float] = []
        Layers.depthwise3x3(input, weights: weights, bias: bias, relu: true, into: &output, scratch: &scratch)
        var expected = FeatureMap(channels: channels, height: height, width: width)
        for c in 0..<channels {
            for y in 0..<height {
                for x in 0..<width {
                    var sum = bias[c]
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let yy = y + ky - 1, xx = x + kx - 1
                            if yy >= 0 && yy < height && xx >= 0 && xx < width { sum += input[c, yy, xx] * weights[c * 9 + ky * 3 + kx] }
                        }
                    }
                    expected[c, y, x] = max(sum, 0)
                }
            }
        }
        Self.expectClose(output, expected)
    }

    @Test(arguments: [(3, 5, 1, 7), (16, 64, 12, 21), (64, 6, 9, 9)])
    func pointwiseMatchesTheDefinition(inputs: Int, outputs: Int, height: Int, width: Int) {
        let input = Self.map(inputs, height, width, seed: 4)
        let weights = Self.values(outputs * inputs, seed: 5), bias = Self.values(outputs, seed: 6)
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        Layers.pointwise(input, weights: weights, bias: bias, relu: false, into: &output)
        var expected = FeatureMap(channels: outputs, height: height, width: width)
        for o in 0..<outputs {
            for y in 0..<height {
                for x in 0..<width {
                    var sum = bias[o]
                    for i in 0..<inputs { sum += input[i, y, x] * weights[o * inputs + i] }
                    expected[o, y, x] = sum
                }
            }
        }
        Self.expectClose(output, expected)
    }

    @Test(arguments: [(3, 16, 9, 13), (3, 4, 40, 34)])
    func strideTwoConvolutionMatchesTheDefinition(inputs: Int, outputs: Int, height: Int, width: Int) {
        let input = Self.map(inputs, height, width, seed: 7)
        let weights = Self.values(outputs * inputs * 9, seed: 8), bias = Self.values(outputs, seed: 9)
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var scratch: [Float] = []
        Layers.convolution3x3Stride2(input, weights: weights, bias: bias, relu: true, into: &output, scratch: &scratch)
        Self.expectClose(output, Self.convolution(input, weights: weights, bias: bias, kernel: 3, stride: 2, padding: 1))
    }

    /// A convolution with ReLU straight from its definition: square kernel, the same padding on
    /// every side, `weights` `[output][input][ky][kx]`.
    static func convolution(_ input: FeatureMap, weights: [Float], bias: [Float], kernel: Int, stride: Int,
                            padding: Int) -> FeatureMap {
        let inputs = input.channels, height = input.height, width = input.width
        let outHeight = (height + 2 * padding - kernel) / stride + 1, outWidth = (width + 2 * padding - kernel) / stride + 1
        var expected = FeatureMap(channels: bias.count, height: outHeight, width: outWidth)
        for o in 0..<bias.count {
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    var sum = bias[o]
                    for i in 0..<inputs {
                        for ky in 0..<kernel {
                            for kx in 0..<kernel {
                                let yy = stride * y + ky - padding, xx = stride * x + kx - padding
                                if yy >= 0 && yy < height && xx >= 0 && xx < width {
                                    sum += input[i, yy, xx] * weights[((o * inputs + i) * kernel + ky) * kernel + kx]
                                }
                            }
                        }
                    }
                    expected[o, y, x] = max(sum, 0)
                }
            }
        }
        return expected
    }

    @Test func outputsKeepTheirStorageWhenReshapedSmaller() {
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var scratch: [Float] = []
        Layers.depthwise3x3(Self.map(4, 20, 20, seed: 10), weights: Self.values(36, seed: 11), bias: Self.values(4, seed: 12),
                            relu: false, into: &output, scratch: &scratch)
        let capacity = output.storage.count
        Layers.depthwise3x3(Self.map(4, 10, 12, seed: 13), weights: Self.values(36, seed: 11), bias: Self.values(4, seed: 12),
                            relu: false, into: &output, scratch: &scratch)
        #expect(output.storage.count == capacity && output.count == 4 * 10 * 12)
    }
}
