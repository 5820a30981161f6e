import GlossImaging
import GlossModels
import GlossNeuralKernelChoice
import GlossNeuralNetwork
@testable import GlossNeuralReading
import Testing

/// A detector that answers with an empty probability map and counts what it is asked.
struct CountingDetector: NetworkRunning {
    var runs = 0
    var releases = 0

    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap {
        runs += 1
        return FeatureMap(channels: 1, height: input.height, width: input.width)
    }

    mutating func releaseMemory() { releases += 1 }
}

/// `DetectedLines` gives the detector's maps back once a page's boxes are found, unless told not to.
struct DetectorMemoryTests {
    static func lines(releasing: Bool) throws -> CountingDetector {
        var finding = DetectedLines(releasesMemory: releasing)
        var detector: any NetworkRunning = CountingDetector()
        let page = Raster(width: 64, height: 48, layout: .gray, filledWith: 255)
        _ = try finding.lines(in: page, wordHeight: nil, detector: &detector, isCancelled: { false })
        return try #require(detector as? CountingDetector)
    }

    @Test func theDetectorIsReleasedAfterThePage() throws {
        let detector = try Self.lines(releasing: true)
        #expect(detector.runs == 1 && detector.releases == 1)
    }

    @Test func aFinderToldToKeepTheMapsDoesNotRelease() throws {
        let detector = try Self.lines(releasing: false)
        #expect(detector.runs == 1 && detector.releases == 0)
    }
}

/// The real detector, run as the reader runs it (through `NetworkRunning`), is handed its own
/// input map, already grown for the run, to write the page into, rather than a map of the
/// caller's that it then copies (the protocol's default, for fakes): an A4 page's input is
/// 33 MB held once, not twice.
struct DetectorInputInPlaceTests {
    @Test func theNetworkFillsItsOwnInputMap() throws {
        var detector: any NetworkRunning = try PPOCRNetworks.bundled(choice: KernelChoice.current.fp32).detector
        var handed = 0
        _ = try detector.run(height: 64, width: 96, filling: { map in
            handed = map.storage.count
            map.reshape(channels: 3, height: 64, width: 96)
        }, isCancelled: { false })
        #expect(handed >= 3 * 64 * 96)
    }
}
