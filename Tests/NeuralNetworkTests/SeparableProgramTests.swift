import GlossNeuralNetwork
import Testing

/// The operations YuNet's program is made of (`models/yunet/README.md`), in one small program
/// worked out by hand: a 1x1 convolution without activation, a depthwise 3x3 with ReLU, a max
/// pool of 2x2 windows at stride 2, an enlargement added to a finer map (fused into one step),
/// and a concatenation of channels with an enlargement as the output.
struct SeparableProgramTests {
    static let program = """
        t1 = conv input weight=L1.weight bias=L1.bias kernel=1x1 stride=1x1 pad=0,0,0,0 group=1 act=none
        t2 = conv t1 weight=L2.weight bias=L2.bias kernel=3x3 stride=1x1 pad=1,1,1,1 group=2 act=relu
        t3 = maxpool t2 kernel_shape=2,2 strides=2,2 pads=0,0,0,0 ceil_mode=0
        t4 = resize t3 [] [1.0,1.0,2.0,2.0] coordinate_transformation_mode=asymmetric mode=nearest nearest_mode=floor
        t5 = add t2 t4
        t6 = resize t3 [] [1.0,1.0,2.0,2.0] coordinate_transformation_mode=asymmetric mode=nearest nearest_mode=floor
        t7 = concat t5 t6 axis=1
        output t7

        """

    static func network() throws -> Network {
        let f = ModelFileTests.float32
        let bytes = ModelFileTests.file(tensors: [
            // x and -x.
            ("L1.weight", [2, 1, 1, 1], 0, f([1, -1])), ("L1.bias", [2], 0, f([0, 0])),
            // Channel 0 keeps its centre; channel 1 is 95 minus the 3x3 sum around it (of x).
            ("L2.weight", [2, 1, 3, 3], 0, f([0, 0, 0, 0, 1, 0, 0, 0, 0] + [Float](repeating: 1, count: 9))),
            ("L2.bias", [2], 0, f([0, 95])),
        ], program: program)
        return try Network(model: try ModelFile(bytes: bytes, path: "separable.bin"), path: "separable.bin", products: .fp32)
    }

    /// A group count larger than the channels is refused before it is multiplied: a hostile
    /// file gave 2^62, and the product of it and the weights' channels trapped.
    @Test func aHostileGroupCountIsAnErrorNotATrap() throws {
        let f = ModelFileTests.float32
        for groups in ["4611686018427387904", "3", "0", "-2"] {
            let bytes = ModelFileTests.file(tensors: [
                ("w", [4, 2, 1, 1], 0, f([Float](repeating: 1, count: 8))), ("b", [4], 0, f([0, 0, 0, 0])),
            ], program: "t1 = conv input weight=w bias=b kernel=1x1 stride=1x1 pad=0,0,0,0 group=\(groups) act=none\noutput t1\n")
            let model = try ModelFile(bytes: bytes, path: "groups.bin")
            #expect(throws: ModelError.self, "group=\(groups)") { try Network(model: model, path: "groups.bin", products: .fp32) }
        }
    }

    @Test func byHand() throws {
        var network = try Self.network()
        let input = FeatureMap(channels: 1, height: 4, width: 4, values: (1...16).map(Float.init))
        let output = try network.run(input)
        #expect((output.channels, output.height, output.width) == (4, 4, 4))
        // t2: channel 0 is x; channel 1 is 95 - (the 3x3 sums 14 24 30 22 / 33 54 63 45 /
        // 57 90 99 69 / 46 72 78 54), ReLU'd (99 gives 0). t3, their 2x2 maxima:
        // [6 8 / 14 16] and [81 73 / 49 41].
        let sum: [Float] = [7, 8, 11, 12, 11, 12, 15, 16, 23, 24, 27, 28, 27, 28, 31, 32,
                            162, 152, 138, 146, 143, 122, 105, 123, 87, 54, 41, 67, 98, 72, 58, 82]
        let enlarged: [Float] = [6, 6, 8, 8, 6, 6, 8, 8, 14, 14, 16, 16, 14, 14, 16, 16,
                                 81, 81, 73, 73, 81, 81, 73, 73, 49, 49, 41, 41, 49, 49, 41, 41]
        #expect(Array(output.values) == sum + enlarged)
    }

    /// The pools and the sum need sides that halve evenly; a run says which line they do not fit.
    @Test func refusesASideThatDoesNotHalve() throws {
        var network = try Self.network()
        #expect(throws: NetworkError.self) { _ = try network.run(FeatureMap(channels: 1, height: 4, width: 5)) }
        #expect(throws: NetworkError.self) { _ = try network.run(FeatureMap(channels: 1, height: 3, width: 4)) }
    }
}
