@testable import GlossFaceDetection
import GlossGeometry
import GlossModels
import Testing

/// The shape policy's decisions, on detections made up to sit on each side of its thresholds.
@Suite struct ShapePolicyTests {
    static let copy = PixelSize(width: 640, height: 640)

    static func detection(width: Float, height: Float, score: Float) -> YuNetDetector.Detection {
        YuNetDetector.Detection(x1: 100, y1: 100, x2: 100 + width, y2: 100 + height, score: score,
                                landmarks: [Float](repeating: 0, count: 10), merged: 0)
    }

    @Test func aSmallSquareBoxScoringUnderTheBarIsNoFace() {
        let policy = YuNetDetector.ShapePolicy()
        // The wristwatch dial of the benchmark's magazine page: 66 px, height / width 1.004, 0.705.
        #expect(!policy.admits(Self.detection(width: 66, height: 66.3, score: 0.705), in: Self.copy))
    }

    @Test func aFaceIsKeptByItsShapeItsScoreOrItsSize() {
        let policy = YuNetDetector.ShapePolicy()
        #expect(policy.admits(Self.detection(width: 66, height: 80, score: 0.62), in: Self.copy), "taller than wide")
        #expect(policy.admits(Self.detection(width: 66, height: 66, score: 0.85), in: Self.copy), "sure of itself")
        #expect(policy.admits(Self.detection(width: 450, height: 457, score: 0.66), in: Self.copy), "a close-up")
        #expect(!policy.admits(Self.detection(width: 150, height: 150, score: 0.66), in: Self.copy), "a quarter of the side or less")
    }

    @Test func detectKeepsWhatThePolicyAdmitsAndNoPolicyKeepsAll() throws {
        let found = [Self.detection(width: 66, height: 80, score: 0.9), Self.detection(width: 66, height: 66, score: 0.7)]
        var options = YuNetDetector.Options()
        let detector = try YuNetDetector.bundled(options: options)
        #expect(detector.faces(among: found, in: Self.copy) == [found[0]])
        options.shape = nil
        #expect(try YuNetDetector.bundled(options: options).faces(among: found, in: Self.copy) == found)
    }
}
