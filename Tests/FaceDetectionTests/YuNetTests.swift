import Foundation
import GlossContract
import GlossFaceDetection
import GlossGeometry
import GlossImaging
import GlossModels
import GlossNeuralNetwork
import Testing

/// The Swift YuNet against upstream's C++ on the same pixels (`Golden/yunet/README.md` says how
/// the golden files were recorded), then on what it must and must not find.
@Suite(.serialized)
struct YuNetTests {
    struct Golden: Decodable {
        struct Box: Decodable { var x1: Float, y1: Float, x2: Float, y2: Float }
        struct Detection: Decodable {
            var score: Float
            var box: Box
            var landmarks: [Float]
        }

        var input: String
        var width: Int
        var height: Int
        var detections: [Detection]
        /// The ten best candidates before suppression: numbers to compare on pages with no face.
        var top_priors: [Detection]
    }

    static let goldenFolder = Fixtures.root + "/Tests/FaceDetectionTests/Golden/yunet"
    static let goldenFiles: [String] = (try? FileManager.default.contentsOfDirectory(atPath: goldenFolder))?
        .filter { $0.hasSuffix(".json") }.sorted() ?? []

    /// At upstream's own threshold, so the near misses are compared too.
    static func detector() throws -> YuNetDetector {
        var options = YuNetDetector.Options()
        options.scoreThreshold = 0.2
        return try YuNetDetector.bundled(options: options)
    }

    @Test func everyGoldenFileIsThere() {
        #expect(Self.goldenFiles.count == 10, "\(Self.goldenFiles)")
    }

    @Test(arguments: goldenFiles)
    func matchesTheReference(file: String) throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: URL(fileURLWithPath: Self.goldenFolder + "/" + file)))
        let image = try ImageFile(contentsOf: Fixtures.root + "/" + golden.input).decodePage().raster
        #expect(image.width == golden.width && image.height == golden.height)
        let found = try Self.detector().detections(in: image)
        #expect(found.count == golden.detections.count, "\(found.map(\.score)) against \(golden.detections.map(\.score))")
        for (mine, theirs) in zip(found, golden.detections) {
            #expect(abs(mine.score - theirs.score) < 0.01, "score \(mine.score) against \(theirs.score)")
            let corners = [(mine.x1, theirs.box.x1), (mine.y1, theirs.box.y1), (mine.x2, theirs.box.x2), (mine.y2, theirs.box.y2)]
            for (a, b) in corners + zip(mine.landmarks, theirs.landmarks).map({ ($0, $1) }) {
                #expect(abs(a - b) < 1, "\(file): \(a) against \(b)")
            }
        }
        // Every candidate, unsuppressed: the best ten agree too, even far below any threshold.
        var options = YuNetDetector.Options()
        options.scoreThreshold = 0
        options.overlapThreshold = 1
        options.maximumFaces = 10
        let candidates = try YuNetDetector.bundled(options: options).detections(in: image)
        #expect(candidates.count == golden.top_priors.count)
        for (mine, theirs) in zip(candidates, golden.top_priors) {
            #expect(abs(mine.score - theirs.score) < 0.01 && abs(mine.x1 - theirs.box.x1) < 1 && abs(mine.y2 - theirs.box.y2) < 1,
                    "\(file): \(mine) against \(theirs)")
        }
    }

    @Test func findsTheAstronautWithHerLandmarksInPlace() throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let faces = try YuNetDetector.bundled().detect(in: image)
        let face = try #require(faces.first)
        #expect(faces.count == 1)
        let box = PixelRect(face.box, in: image.size)
        // The face in astronaut.png, as the cascade tests place it.
        #expect((160...200).contains(box.x) && (55...80).contains(box.y) && (80...110).contains(box.width), "\(box)")
        let left = PixelPoint(try #require(face.leftEye).position, in: image.size)
        let right = PixelPoint(try #require(face.rightEye).position, in: image.size)
        let nose = PixelPoint(try #require(face.nose).position, in: image.size)
        let mouth = PixelPoint(try #require(face.mouth).position, in: image.size)
        #expect(left.x < nose.x && nose.x < right.x, "the nose between the eyes")
        #expect(left.y < nose.y && right.y < nose.y && nose.y < mouth.y, "eyes above the nose above the mouth")
        #expect(face.leftEye?.source == .detected && face.mouth?.source == .detected)
        #expect(face.confidence > 0.8 && face.confidence <= 1)
    }

    /// A face the picture's edge cuts is decoded past the edge (the network sees the picture
    /// padded to 32): its box and landmarks stay within the picture, 0...1. Crops of astronaut.png
    /// whose faces came out at x -4 and at 1.05 of the width before.
    @Test func aFaceCutByTheEdgeStaysWithinThePicture() throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        func crop(_ left: Int, _ top: Int, _ right: Int, _ bottom: Int) -> Raster {
            let channels = image.layout.rawValue, width = right - left
            var pixels: [UInt8] = []
            for y in top..<bottom {
                let start = (y * image.width + left) * channels
                pixels += image.pixels[start..<(start + width * channels)]
            }
            return Raster(width: width, height: bottom - top, layout: image.layout, pixels: pixels)
        }
        for picture in [crop(205, 80, 360, 300), crop(120, 20, 250, 150)] {
            let faces = try YuNetDetector.bundled().detect(in: picture)
            #expect(!faces.isEmpty)
            for face in faces {
                let box = face.box
                #expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1 && box.y + box.height <= 1, "\(box)")
                for landmark in [face.leftEye, face.rightEye, face.nose, face.mouth, face.mouthLeft, face.mouthRight] {
                    let point = try #require(landmark).position
                    #expect((0...1).contains(point.x) && (0...1).contains(point.y), "\(point)")
                }
            }
        }
    }

    /// Hand-measured landmarks of astronaut.png (512 px): eye centres (205, 101) and (247, 103),
    /// mouth centre (225, 145). The network sees the photo as it is, at 512 px.
    @Test func placesTheLandmarksWhereAPersonDoes() throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let face = try #require(try YuNetDetector.bundled().detect(in: image).first)
        for (landmark, x, y) in [(face.leftEye, 205.0, 101.0), (face.rightEye, 247.0, 103.0), (face.mouth, 225.0, 145.0)] {
            let point = PixelPoint(try #require(landmark).position, in: image.size)
            #expect(abs(point.x - x) <= 8 && abs(point.y - y) <= 8, "\(point) against (\(x), \(y))")
        }
    }

    /// The group canvas at the size the pipeline scans (640 px): one face in each tile and none
    /// on the shuttle beside them, which the cascade takes for a face.
    @Test func findsEveryFaceOfTheGroupCanvasAndNothingElse() throws {
        let image = try Fixtures.raster("faces/astronaut-trio.png")
        let scanned = image.downsampled(toFit: 640)
        let faces = try YuNetDetector.bundled().detect(in: scanned)
        #expect(faces.count == 3)
        let tiles = [PixelRect(x: 32, y: 32, width: 320, height: 320), PixelRect(x: 384, y: 64, width: 256, height: 256),
                     PixelRect(x: 672, y: 96, width: 192, height: 192)]
        for tile in tiles {
            // The face of the astronaut fills about the middle third of her tile.
            let found = faces.map { PixelRect($0.box, in: image.size) }.filter { box in
                let centreX = box.x + box.width / 2, centreY = box.y + box.height / 2
                return centreX > tile.x && centreX < tile.maxX && centreY > tile.y && centreY < tile.maxY
                    && box.width > tile.width / 8 && box.width < tile.width / 2
            }
            #expect(found.count == 1, "\(tile): \(faces.map { PixelRect($0.box, in: image.size) })")
        }
    }

    /// A grey picture is read through the stem's weights summed over B, G and R: the same
    /// candidates as its three identical planes read by the full stem.
    @Test func readsAGreyPictureAsItsColourCopy() throws {
        let grey = try Fixtures.raster("faces/astronaut-trio.png").downsampled(toFit: 640).grayscale()
        let colour = Raster(width: grey.width, height: grey.height, layout: .rgb, pixels: grey.pixels.flatMap { [$0, $0, $0] })
        var options = YuNetDetector.Options()
        options.scoreThreshold = 0
        options.overlapThreshold = 1
        options.maximumFaces = 20
        let detector = try YuNetDetector.bundled(options: options)
        let fromGrey = try detector.detections(in: grey), fromColour = try detector.detections(in: colour)
        #expect(fromGrey.count == 20 && fromColour.count == 20)
        for (a, b) in zip(fromGrey, fromColour) {
            #expect(abs(a.score - b.score) < 1e-4 && abs(a.x1 - b.x1) < 0.01 && abs(a.y2 - b.y2) < 0.01, "\(a) against \(b)")
        }
        #expect(try YuNetDetector.bundled().detect(in: grey).count == 3, "the three astronauts in grey")
    }

    @Test(arguments: ["text/sans.png", "text/serif.png", "text/mono.png", "scans/page.png", "formats/page.webp"])
    func findsNoFaceOnADocument(fixture: String) throws {
        let image = try Fixtures.raster(fixture).downsampled(toFit: 640)
        #expect(try YuNetDetector.bundled().detect(in: image).isEmpty)
    }

    @Test func aCorruptModelIsOneClearError() throws {
        var bytes = Models.yunet
        bytes[20] ^= 0xFF
        #expect(throws: ModelError.self) { _ = try YuNetDetector(model: try ModelFile(bytes: bytes, path: "bad.bin"), path: "bad.bin") }
        #expect(throws: ModelError.self) { _ = try ModelFile(bytes: Array(Models.yunet.dropLast(4)), path: "short.bin") }
        #expect(throws: ModelError.self) { _ = try ModelFile(bytes: Array("GLOSSNN2".utf8) + Models.yunet.dropFirst(8), path: "v.bin") }
        do {
            _ = try ModelFile(contentsOf: "/nonexistent/yunet.bin")
            Issue.record("a missing model was read")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/yunet.bin: model: cannot be read"))
        }
    }
}
