import GlossImaging
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
        _ = try finding.lines(in: page, detector: &detector, isCancelled: { false })
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
