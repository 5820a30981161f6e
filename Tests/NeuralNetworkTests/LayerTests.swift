import GlossNeuralNetwork
import Testing

/// What the layer tests share: deterministic inputs, a comparison, and a convolution written
/// from its definition to check the fast ones against.
enum LayerTests {
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
}
