import GlossNeuralNetwork
import Testing

/// A run whose input the caller writes into the network's own map gives the values of a run on
/// a map of its own, and a fill of another shape is refused.
struct InputFillTests {
    @Test func aFilledInputGivesTheSameMap() throws {
        var network = try DetectorGoldenTests.detector()
        let (input, _) = try DetectorGoldenTests.golden()
        let expected = try network.run(input)
        var fresh = try DetectorGoldenTests.detector()
        let filled = try fresh.run(height: input.height, width: input.width, filling: { map in
            for index in 0..<input.count { map.storage[index] = input.storage[index] }
        })
        #expect(Array(filled.values) == Array(expected.values))
        #expect(throws: NetworkError.self) {
            _ = try fresh.run(height: input.height, width: input.width, filling: { map in
                map.reshape(channels: 3, height: input.height / 2, width: input.width)
            })
        }
    }
}
