import GlossNeuralNetwork
import Testing

/// The layers a `Network` program runs, each against values worked out by hand, and the
/// convolution against a plain loop at sizes that exercise the vector body and its tails.
struct ProgramLayerTests {
    static func empty() -> FeatureMap { FeatureMap(channels: 0, height: 0, width: 0) }

    @Test func twoByTwoConvolutionPaddedBottomRight() {
        // ONNX SAME_UPPER: the window at (y, x) covers (y..y+1, x..x+1), zero past the edge.
        let input = FeatureMap(channels: 1, height: 2, width: 3, values: [1, 2, 3, 4, 5, 6])
        var output = Self.empty(), scratch: [Float] = []
        Layers.convolution(input, weights: [1, 10, 100, 1000], bias: [0.5], kernel: (2, 2), stride: (1, 1),
                           padding: (0, 0, 1, 1), activation: .none, into: &output, scratch: &scratch)
        #expect(output.height == 2 && output.width == 3)
        // (0,0): 1 + 20 + 400 + 5000; (0,2): 3 + 0 + 600 + 0; (1,0): 4 + 50; (1,2): 6.
        #expect(Array(output.values) == [5421.5, 6532.5, 603.5, 54.5, 65.5, 6.5])
    }

    @Test func convolutionMatchesTheDefinition() {
        // 5 inputs, 6 outputs (a block of four and a tail), 3x3 stride 2 and 1x1, widths
        // crossing the 32-pixel block and the 16-pixel vector.
        for (kernel, stride, pad, height, width) in [(3, 2, 1, 9, 70), (1, 1, 0, 3, 37), (3, 1, 1, 4, 33)] {
            let inputs = 5, outputs = 6
            let input = LayerTests.map(inputs, height, width, seed: 7)
            let weights = LayerTests.values(outputs * inputs * kernel * kernel, seed: 8)
            let bias = LayerTests.values(outputs, seed: 9)
            var output = Self.empty(), scratch: [Float] = []
            Layers.convolution(input, weights: weights, bias: bias, kernel: (kernel, kernel), stride: (stride, stride),
                               padding: (pad, pad, pad, pad), activation: .relu, into: &output, scratch: &scratch)
            let expected = LayerTests.convolution(input, weights: weights, bias: bias, kernel: kernel, stride: stride,
                                                  padding: pad)
            LayerTests.expectClose(output, expected)
        }
    }

    @Test func depthwiseStrideTwoAndSevenBySeven() {
        // A 4x4 ramp, kernel of ones: stride 2 sums the 3x3 windows centred on even pixels.
        let ramp = FeatureMap(channels: 1, height: 4, width: 4, values: (0..<16).map(Float.init))
        var output = Self.empty(), scratch: [Float] = []
        Layers.depthwiseConvolution(ramp, weights: [Float](repeating: 1, count: 9), bias: [1], kernel: (3, 3), stride: (2, 2),
                                    padding: (1, 1, 1, 1), activation: .none, into: &output, scratch: &scratch)
        #expect(Array(output.values) == [11, 25, 52, 91])
        // 7x7 with padding 3 on a 2x2 map: every output sees all four values; two channels.
        let two = FeatureMap(channels: 2, height: 2, width: 2, values: [1, 2, 3, 4, 10, 20, 30, 40])
        var weights = [Float](repeating: 1, count: 49) + [Float](repeating: 0, count: 49)
        weights[49 + 24] = 2  // the second channel's centre tap only
        Layers.depthwiseConvolution(two, weights: weights, bias: [0, 0], kernel: (7, 7), stride: (1, 1),
                                    padding: (3, 3, 3, 3), activation: .none, into: &output, scratch: &scratch)
        #expect(Array(output.values) == [10, 10, 10, 10, 20, 40, 60, 80])
    }

    @Test func depthwiseStrideTwoMatchesTheDefinitionAcrossVectors() {
        // Wide enough for vectors of sixteen outputs and a tail of single ones; the sums are
        // the definition's, multiplied and added tap by tap in the same order.
        let (channels, height, width) = (2, 5, 75)
        let input = LayerTests.map(channels, height, width, seed: 21)
        let weights = LayerTests.values(channels * 9, seed: 22), bias = LayerTests.values(channels, seed: 23)
        var output = Self.empty(), scratch: [Float] = []
        Layers.depthwiseConvolution(input, weights: weights, bias: bias, kernel: (3, 3), stride: (2, 2),
                                    padding: (1, 1, 1, 1), activation: .none, into: &output, scratch: &scratch)
        let (outHeight, outWidth) = ((height + 1) / 2, (width + 1) / 2)
        #expect(output.height == outHeight && output.width == outWidth)
        var expected: [Float] = []
        for c in 0..<channels {
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum = bias[c]
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let y = oy * 2 + ky - 1, x = ox * 2 + kx - 1
                            let value = y >= 0 && y < height && x >= 0 && x < width ? input.values[(c * height + y) * width + x] : 0
                            sum += weights[c * 9 + ky * 3 + kx] * value
                        }
                    }
                    expected.append(sum)
                }
            }
        }
        #expect(Array(output.values) == expected)
    }

    @Test func transposedConvolutionPaintsTwoByTwoBlocks() {
        // One input channel of 1x2 pixels (1, 2) to one output; taps [i][j] = 1, 2, 3, 4, bias 0.5.
        let input = FeatureMap(channels: 1, height: 1, width: 2, values: [1, 2])
        var output = Self.empty(), scratch: [Float] = []
        Layers.transposedConvolution2x2(input, weights: [1, 2, 3, 4], bias: [0.5], outputs: 1, activation: .none,
                                        into: &output, scratch: &scratch)
        #expect(output.height == 2 && output.width == 4)
        #expect(Array(output.values) == [1.5, 2.5, 2.5, 4.5, 3.5, 4.5, 6.5, 8.5])
    }

    @Test func maxPoolKeepsTheSize() {
        let input = FeatureMap(channels: 1, height: 2, width: 3, values: [1, 5, 2, 4, 0, 3])
        var output = Self.empty()
        Layers.maxPool2x2SameUpper(input, into: &output)
        #expect(Array(output.values) == [5, 5, 3, 4, 3, 3])
    }

    @Test func elementWiseMeanEnlargeAndConcatenate() {
        let a = FeatureMap(channels: 2, height: 1, width: 2, values: [1, 2, 3, 4])
        let scale = FeatureMap(channels: 2, height: 1, width: 1, values: [10, -1])
        var output = Self.empty()
        Layers.combine(a, scale, multiply: true, into: &output)
        #expect(Array(output.values) == [10, 20, -3, -4])
        Layers.combine(a, a, multiply: false, into: &output)
        #expect(Array(output.values) == [2, 4, 6, 8])
        Layers.channelMean(a, into: &output)
        #expect(output.height == 1 && output.width == 1 && Array(output.values) == [1.5, 3.5])
        Layers.enlarge(FeatureMap(channels: 1, height: 1, width: 2, values: [7, 8]), by: 2, into: &output)
        #expect(output.height == 2 && Array(output.values) == [7, 7, 8, 8, 7, 7, 8, 8])
        Layers.concatenate([a, FeatureMap(channels: 1, height: 1, width: 2, values: [9, 9])], into: &output)
        #expect(output.channels == 3 && Array(output.values) == [1, 2, 3, 4, 9, 9])
    }

    @Test func activations() {
        // GELU(1) = 0.5 * (1 + erf(0.7071)) = 0.841345; GELU(-1) = -0.158655.
        let input = FeatureMap(channels: 1, height: 1, width: 4, values: [1, -1, 0, 4])
        var output = Self.empty(), scratch: [Float] = []
        Layers.convolution(input, weights: [1], bias: [0], kernel: (1, 1), stride: (1, 1), padding: (0, 0, 0, 0),
                           activation: .gelu, into: &output, scratch: &scratch)
        let gelu = Array(output.values)
        #expect(abs(gelu[0] - 0.841_345) < 1e-6 && abs(gelu[1] + 0.158_655) < 1e-6 && gelu[2] == 0)
        Layers.convolution(input, weights: [1], bias: [0], kernel: (1, 1), stride: (1, 1), padding: (0, 0, 0, 0),
                           activation: .hardSigmoid(alpha: 0.2, beta: 0.5), into: &output, scratch: &scratch)
        #expect(zip(output.values, [0.7, 0.3, 0.5, 1] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 })
        Layers.convolution(input, weights: [1], bias: [0], kernel: (1, 1), stride: (1, 1), padding: (0, 0, 0, 0),
                           activation: .sigmoid, into: &output, scratch: &scratch)
        #expect(abs(output.values[output.values.startIndex] - 0.731_058_6) < 1e-6)
    }
}
