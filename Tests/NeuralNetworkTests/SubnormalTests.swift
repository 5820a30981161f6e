import GlossNeuralNetwork
import Testing

/// While a network runs, values below float's smallest normal are flushed to zero (each one
/// read by a product costs a microcode assist: the GELU's far tail made the detector 2.5 times
/// slower), and the thread's own floating-point control is back once the run ends.
struct SubnormalTests {
    @Test func aRunFlushesSubnormalsAndPutsTheThreadsControlBack() throws {
        let program = """
            t1 = conv input weight=L1.weight bias=L1.bias kernel=1x1 stride=1x1 pad=0,0,0,0 group=1 act=none
            output t1

            """
        let f = ModelFileTests.float32
        let bytes = ModelFileTests.file(tensors: [("L1.weight", [1, 1, 1, 1], 0, f([1e-20])), ("L1.bias", [1], 0, f([0]))],
                                        program: program)
        var network = try Network(model: try ModelFile(bytes: bytes, path: "tiny.bin"), path: "tiny.bin", products: .fp32)
        // 1e-20 x 1e-20 is 1e-40, below the smallest normal (1.2e-38); 1e-20 x 1 is not.
        let output = try network.run(FeatureMap(channels: 1, height: 1, width: 2, values: [1e-20, 1]))
        #expect(Array(output.values) == [0, 1e-20])
        // After the run the same product is a subnormal again, not zero (the value comes from
        // the run, so the compiler cannot work it out beforehand).
        let small = output.values[1]
        #expect(small * small > 0)
    }
}
