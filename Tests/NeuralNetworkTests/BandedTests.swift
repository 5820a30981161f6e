@testable import GlossNeuralNetwork
import Testing

/// The banded step (`Banded.swift`) against the convolutions it replaces, run whole one after
/// another, at sizes whose rows do not divide into bands; and the detector's stem found as one.
struct BandedTests {
    typealias Member = Network.BandedGroup.Member

    /// A stem like the detector's, small: `a` = conv 3x3/2 of the input, `b` = conv 2x2 of
    /// `a` (bottom and right padded), `c` = conv 2x2 of `b`, and the output a conv 3x3/2 of
    /// `a` through a 2x2 max pool and `c`.
    static func stem() -> Network.BandedGroup {
        func member(_ outputs: Int, _ inputs: Int, kernel: (Int, Int), stride: (Int, Int),
                    padding: (Int, Int, Int, Int), sources: [Member.Source], pooled: Set<Int> = [], seed: UInt64) -> Member {
            let inner = inputs * kernel.0 * kernel.1
            return Member(weights: PackedMatrix(LayerTests.values(outputs * inner, seed: seed), rows: outputs, inner: inner),
                          bias: LayerTests.values(outputs, seed: seed + 1), kernel: kernel, stride: stride,
                          padding: padding, activation: .relu, sources: sources, pooled: pooled)
        }
        return Network.BandedGroup(members: [
            member(4, 3, kernel: (3, 3), stride: (2, 2), padding: (1, 1, 1, 1), sources: [.outside(0)], seed: 20),
            member(3, 4, kernel: (2, 2), stride: (1, 1), padding: (0, 0, 1, 1), sources: [.member(0)], seed: 22),
            member(4, 3, kernel: (2, 2), stride: (1, 1), padding: (0, 0, 1, 1), sources: [.member(1)], seed: 24),
            member(5, 8, kernel: (3, 3), stride: (2, 2), padding: (1, 1, 1, 1), sources: [.member(0), .member(2)],
                   pooled: [0], seed: 26),
        ], channels: [4, 3, 4, 5])
    }

    /// Each member run whole by `Layers.convolution(parts:)`.
    static func unbanded(_ group: Network.BandedGroup, _ input: FeatureMap) -> FeatureMap {
        var maps: [FeatureMap] = []
        var scratch: [Float] = [], workspace: [Float] = []
        for member in group.members {
            let parts = member.sources.map { source -> FeatureMap in
                switch source {
                case .outside: return input
                case .member(let index): return maps[index]
                }
            }
            var output = FeatureMap(channels: 0, height: 0, width: 0)
            Layers.convolution(parts: parts.count, { parts[$0] }, pooled: { member.pooled.contains($0) },
                               weights: member.weights, bias: member.bias, kernel: member.kernel, stride: member.stride,
                               padding: member.padding, activation: member.activation, into: &output, scratch: &scratch,
                               workspace: &workspace)
            maps.append(output)
        }
        return maps[maps.count - 1]
    }

    @Test(arguments: [(37, 29, 3), (41, 23, 1), (30, 34, 16), (9, 11, 2)])
    func bandsGiveTheWholeMapsValues(height: Int, width: Int, bandRows: Int) {
        let group = Self.stem(), input = LayerTests.map(3, height, width, seed: 30)
        let expected = Self.unbanded(group, input)
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var bands: [FeatureMap] = [], workspace: [Float] = []
        let finished = Layers.banded(group, inputs: [input], bandRows: bandRows, into: &output, bands: &bands,
                                     workspace: &workspace, isCancelled: { false })
        #expect(finished)
        #expect((output.channels, output.height, output.width) == (expected.channels, expected.height, expected.width))
        #expect(Array(output.values) == Array(expected.values))
    }

    @Test func aBandedStepStopsWhenCancelled() {
        let group = Self.stem(), input = LayerTests.map(3, 37, 29, seed: 31)
        var output = FeatureMap(channels: 0, height: 0, width: 0)
        var bands: [FeatureMap] = [], workspace: [Float] = []
        var asked = 0
        let finished = Layers.banded(group, inputs: [input], bandRows: 2, into: &output, bands: &bands,
                                     workspace: &workspace, isCancelled: { asked += 1; return asked > 3 })
        #expect(!finished)
        #expect(asked == 4)
    }

    @Test func theDetectorsStemIsOneBandedStep() throws {
        let network = try DetectorGoldenTests.detector()
        let groups = network.steps.compactMap { step -> Network.BandedGroup? in
            if case .banded(let group) = step.operation { return group }
            return nil
        }
        #expect(groups.first?.members.count == 4)
        #expect(groups.first?.channels == [24, 12, 24, 24])
    }
}

/// The fused `x + x * s` (`.addProduct`) against the product and sum it replaces, whole and in
/// place, with `s` one value per channel or a map.
struct AddProductTests {
    @Test(arguments: [1, 7])
    func theFusedSumEqualsTheProductThenTheSum(scaleSize: Int) {
        let x = LayerTests.map(3, 7, 7, seed: 40), s = LayerTests.map(3, scaleSize, scaleSize, seed: 41)
        var product = FeatureMap(channels: 0, height: 0, width: 0), expected = product, fused = product
        Layers.combine(x, s, multiply: true, into: &product)
        Layers.combine(x, product, multiply: false, into: &expected)
        Layers.combine(x, s, .addProduct, into: &fused)
        #expect(Array(fused.values) == Array(expected.values))
        var inPlace = x
        Layers.combineInPlace(&inPlace, s, .addProduct)
        #expect(Array(inPlace.values) == Array(expected.values))
    }
}

/// A depthwise convolution written over its own input equals one into a map of its own.
struct DepthwiseInPlaceTests {
    @Test func inPlaceEqualsIntoAnotherMap() {
        let input = LayerTests.map(3, 9, 11, seed: 50)
        let weights = LayerTests.values(3 * 21, seed: 51), bias = LayerTests.values(3, seed: 52)
        var expected = FeatureMap(channels: 0, height: 0, width: 0), scratch: [Float] = []
        Layers.depthwiseConvolution(input, weights: weights, bias: bias, kernel: (3, 7), stride: (1, 1),
                                    padding: (1, 3, 1, 3), activation: .swish, into: &expected, scratch: &scratch)
        var map = input
        Layers.depthwiseConvolutionInPlace(&map, weights: weights, bias: bias, kernel: (3, 7), padding: (1, 3, 1, 3),
                                           activation: .swish, scratch: &scratch)
        #expect(Array(map.values) == Array(expected.values))
    }
}
