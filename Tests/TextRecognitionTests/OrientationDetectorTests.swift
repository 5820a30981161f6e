import GlossGeometry
import GlossImaging
import GlossTestSupport
import GlossTextRecognition
import Testing

/// Tesseract's orientation detector on a real text page turned each way.
@Suite(.serialized)
struct OrientationDetectorTests {
    let detector: OrientationDetector

    init() throws { detector = try OrientationDetector() }

    /// `text/serif.png` shown as if stored with each EXIF orientation: `.left` turns it a
    /// quarter counter-clockwise, so a quarter clockwise stands it up again.
    @Test("a page turned each way is stood upright by the opposite turn", arguments: [
        (Orientation.up, 0), (.left, 90), (.down, 180), (.right, 270),
    ])
    func detectsEachTurn(stored: Orientation, rotation: Int) throws {
        let upright = try ImageFile(contentsOf: Fixtures.path("text/serif.png")).decodePage().raster
        let turned = upright.oriented(stored)
        let estimate = try #require(detector.detect(turned, resolution: 300))
        #expect(estimate.rotation == rotation, "\(estimate)")
        #expect(estimate.confidence >= 8, "\(estimate)")
        #expect(estimate.script == "Latin")
        // The answer is the turn that stands the page up: applying it gives the upright page.
        let stoodUp = turned.oriented(Self.clockwise(rotation))
        #expect(stoodUp == upright)
    }

    @Test("a photograph without text gets no confident answer")
    func photographs() throws {
        let photo = try ImageFile(contentsOf: Fixtures.path("faces/astronaut.png")).decodePage().raster
        let estimate = detector.detect(photo, resolution: 300)
        #expect((estimate?.confidence ?? 0) < 8, "\(String(describing: estimate))")
    }

    /// The orientation that turns stored pixels clockwise by `degrees` to show them.
    static func clockwise(_ degrees: Int) -> Orientation {
        switch degrees {
        case 90: .right
        case 180: .down
        case 270: .left
        default: .up
        }
    }
}
