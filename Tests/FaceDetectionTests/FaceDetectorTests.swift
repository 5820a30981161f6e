import GlossContract
import GlossFaceDetection
import GlossGeometry
import GlossImaging
import Testing

@Suite struct FaceDetectorTests {
    let detector: FaceDetector

    init() throws {
        detector = try FaceDetector.standard()
    }

    /// Measured by hand on astronaut.png (512x512, pixels, top-left origin): the face spans
    /// about x 180-270 (cheek to cheek) and y 77-180 (hairline to chin); eye centres at
    /// (205, 101) and (247, 103); mouth centre at (225, 145).
    @Test func astronautHasOneFaceWithEyesWhereTheyAre() throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let faces = try detector.detect(in: image)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        let box = PixelRect(face.box, in: image.size)
        #expect(abs(box.centreX - 225) <= 10, "box \(box)")
        #expect(abs(box.centreY - 118) <= 15, "box \(box)")
        #expect((80...115).contains(box.width) && (80...115).contains(box.height), "box \(box)")
        #expect(face.confidence > 0.5 && face.confidence < 1)
        #expect(face.neighbors > 3)

        let left = try #require(face.leftEye), right = try #require(face.rightEye)
        #expect(left.source == .detected && right.source == .detected)
        let l = PixelPoint(left.position, in: image.size), r = PixelPoint(right.position, in: image.size)
        // Core Image's convention: "left" is the eye on the image's left.
        #expect(l.x < r.x)
        for (eye, expected) in [(l, PixelPoint(x: 205, y: 101)), (r, PixelPoint(x: 247, y: 103))] {
            #expect(abs(eye.x - expected.x) <= 8 && abs(eye.y - expected.y) <= 8, "eye \(eye)")
            // Inside the upper half of the box (normalised y grows upwards).
            #expect(eye.x > Double(box.x) && eye.x < Double(box.maxX))
            #expect(eye.y > Double(box.y) && eye.y < box.centreY)
        }

        let mouth = try #require(face.mouth)
        let m = PixelPoint(mouth.position, in: image.size)
        #expect(abs(m.x - 225) <= 12 && abs(m.y - 145) <= 14, "mouth \(m) \(mouth.source)")
        #expect(face.hasSmile == (mouth.source == .detected))
    }

    @Test func threeCopiesGiveAFaceInEachTileAndNoFalseAlarmWhenAnEyeIsRequired() throws {
        // frontalface_default alone also fires (as OpenCV does) on the shuttle beside the two
        // larger copies; the eye cascade finds nothing there.
        let image = try Fixtures.raster("faces/astronaut-trio.png")
        var options = FaceDetector.Options()
        options.requireDetectedEye = true
        let strict = FaceDetector(faceCascade: try Cascade.load(.frontalFaceDefault), eyeCascade: try Cascade.load(.eye),
                                  smileCascade: try Cascade.load(.smile), options: options)
        let faces = try strict.detect(in: image)
        #expect(faces.count == 3)
        #expect(faces.allSatisfy { $0.leftEye?.source == .detected || $0.rightEye?.source == .detected })
        let tiles = [PixelRect(x: 32, y: 32, width: 320, height: 320), PixelRect(x: 384, y: 64, width: 256, height: 256),
                     PixelRect(x: 672, y: 96, width: 192, height: 192)]
        for (face, tile) in zip(faces, tiles) {
            // Largest first; the face sits where it sits in astronaut.png, scaled into the tile.
            let s = Double(tile.width) / 512
            let b = PixelRect(face.box, in: image.size)
            #expect(abs(b.centreX - (Double(tile.x) + 225 * s)) <= 12 * s + 2, "\(b) in \(tile)")
            #expect(abs(b.centreY - (Double(tile.y) + 118 * s)) <= 15 * s + 2, "\(b) in \(tile)")
        }
    }

    @Test func blankAndTextImagesHaveNoFaces() throws {
        #expect(try detector.detect(in: Raster(width: 400, height: 300, layout: .gray, filledWith: 200)).isEmpty)
        #expect(try detector.detect(in: Raster(width: 120, height: 90, layout: .rgb, filledWith: 30)).isEmpty)
        #expect(try detector.detect(in: Raster(width: 10, height: 10, layout: .gray, filledWith: 0)).isEmpty)
        #expect(try detector.detect(in: try Fixtures.raster("scans/page.png")).isEmpty)
        #expect(try detector.detect(in: try Fixtures.raster("text/sans.png").downsampled(toFit: 480)).isEmpty)
    }

    @Test func landmarksCanBeSwitchedOff() throws {
        var options = FaceDetector.Options()
        options.findLandmarks = false
        options.detectSmiles = false
        let plain = FaceDetector(faceCascade: try Cascade.load(.frontalFaceDefault), options: options)
        let faces = try plain.detect(in: try Fixtures.raster("faces/astronaut.png").downsampled(toFit: 256))
        #expect(faces.count == 1)
        #expect(faces.first?.leftEye == nil && faces.first?.mouth == nil && faces.first?.hasSmile == false)
    }

    @Test func missingEyeCascadeGivesEstimatedLandmarks() throws {
        let noEyes = FaceDetector(faceCascade: try Cascade.load(.frontalFaceDefault))
        let face = try #require(try noEyes.detect(in: try Fixtures.raster("faces/astronaut.png").downsampled(toFit: 256)).first)
        #expect(face.leftEye?.source == .estimated && face.rightEye?.source == .estimated)
        #expect(face.mouth?.source == .estimated)
        #expect(!face.hasSmile)
        let l = try #require(face.leftEye).position, r = try #require(face.rightEye).position
        #expect(l.x < r.x)
        #expect(l.y > face.box.minY + face.box.height / 2 && l.y < face.box.maxY)
    }

    @Test func cancellationStopsTheScan() async throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let detector = self.detector
        let task = Task { () throws -> [Face] in
            while !Task.isCancelled { await Task.yield() }
            return try detector.detect(in: image)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }
}
