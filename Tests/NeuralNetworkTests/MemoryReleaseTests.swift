import CPPOCRModels
import GlossNeuralNetwork
import Testing

/// `Network.releaseMemory`: a network done with a page gives back what its runs kept, and the
/// next run allocates it again and computes the same values.
struct MemoryReleaseTests {
    @Test func aReleasedNetworkHoldsNothingAndRunsAgainToTheSameValues() throws {
        var network = try DetectorGoldenTests.detector()
        let (input, _) = try DetectorGoldenTests.golden()
        let first = Array(try network.run(input).values)
        let kept = network.reservedFloats
        // The slots hold at least the input and the output, three channels and one.
        #expect(kept >= 4 * input.height * input.width)
        network.releaseMemory()
        #expect(network.reservedFloats == 0)
        let again = try network.run(input)
        #expect(Array(again.values) == first)
        #expect(network.reservedFloats == kept)
    }

    @Test func theMapARunReturnedOutlivesTheRelease() throws {
        var network = try DetectorGoldenTests.detector()
        let (input, _) = try DetectorGoldenTests.golden()
        let map = try network.run(input)
        let values = Array(map.values)
        network.releaseMemory()
        #expect(Array(map.values) == values && map.count == input.height * input.width)
    }
}
