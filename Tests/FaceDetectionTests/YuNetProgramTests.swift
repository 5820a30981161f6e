import Foundation
import GlossFaceDetection
import GlossImaging
import Testing

/// YuNet run by `Network` from its program against what Gloss's earlier, hand-wired YuNet
/// layers found on the same pictures (`Golden/yunet-layers/README.md`): the faces, and the fifty
/// best candidates before suppression, far below any threshold, where a difference in a layer
/// would show first.
@Suite(.serialized)
struct YuNetProgramTests {
    /// The pictures, as the pipeline hands them over: a fixture at its size or brought to fit
    /// 640 px, and a grey copy (read as three equal planes).
    struct Case: Sendable, CustomStringConvertible {
        var fixture: String
        var fit: Int?
        var grey: Bool

        var description: String { fixture + (fit.map { " at \($0) px" } ?? "") + (grey ? ", grey" : "") }

        func raster() throws -> Raster {
            var image = try Fixtures.raster(fixture)
            if let fit { image = image.downsampled(toFit: fit) }
            return grey ? image.grayscale() : image
        }
    }

    static let cases = [
        Case(fixture: "faces/astronaut.png", fit: nil, grey: false),
        Case(fixture: "faces/astronaut-trio.png", fit: 640, grey: false),
        Case(fixture: "faces/astronaut-trio.png", fit: 640, grey: true),
        Case(fixture: "text/sans.png", fit: 640, grey: false),
    ]
    static let candidateCount = 50

    struct Golden: Decodable {
        struct Entry: Decodable {
            var fixture: String
            var fit: Int?
            var grey: Bool
            var width: Int
            var height: Int
            /// x1, y1, x2, y2, score, then the ten landmark coordinates; best first.
            var faces: [[Float]]
            var candidates: [[Float]]
        }

        var cases: [Entry]
    }

    /// The layers' sums run in another order (packed products), so the numbers differ in their
    /// last bits: the largest differences measured were 4.5e-7 in a score and 1.2e-4 px (a
    /// float step at 200 to 500 px), on every case.
    static let scoreTolerance: Float = 1e-4
    static let pixelTolerance: Float = 1e-3

    static func numbers(_ detection: YuNetDetector.Detection) -> [Float] {
        [detection.x1, detection.y1, detection.x2, detection.y2, detection.score] + detection.landmarks
    }

    static func golden() throws -> Golden {
        let path = Fixtures.root + "/Tests/FaceDetectionTests/Golden/yunet-layers/detections.json"
        return try JSONDecoder().decode(Golden.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: cases)
    func findsWhatTheLayersFound(picture: Case) throws {
        let entry = try #require(try Self.golden().cases.first {
            $0.fixture == picture.fixture && $0.fit == picture.fit && $0.grey == picture.grey
        })
        let image = try picture.raster()
        #expect(image.width == entry.width && image.height == entry.height)
        let faces = try YuNetDetector.bundled().detections(in: image).map(Self.numbers)
        #expect(faces.count == entry.faces.count, "\(picture): \(faces.count) faces against \(entry.faces.count)")
        for (mine, theirs) in zip(faces, entry.faces) { expectClose(mine, theirs, picture) }

        // Unsuppressed, every candidate: the best fifty, each matched to one of ours (near
        // equal scores may swap places), and the scores in order.
        var options = YuNetDetector.Options()
        options.scoreThreshold = 0
        options.overlapThreshold = 1
        options.maximumFaces = Self.candidateCount + 10
        let candidates = try YuNetDetector.bundled(options: options).detections(in: image).map(Self.numbers)
        #expect(entry.candidates.count == Self.candidateCount)
        for theirs in entry.candidates {
            let match = candidates.first { mine in zip(mine, theirs).allSatisfy { abs($0 - $1) < Self.pixelTolerance * 10 } }
            guard let mine = match else {
                Issue.record("\(picture): no candidate near \(theirs)")
                continue
            }
            expectClose(mine, theirs, picture)
        }
        for (mine, theirs) in zip(candidates, entry.candidates) {
            #expect(abs(mine[4] - theirs[4]) < Self.scoreTolerance, "\(picture): score \(mine[4]) against \(theirs[4])")
        }
    }

    func expectClose(_ mine: [Float], _ theirs: [Float], _ picture: Case) {
        #expect(mine.count == theirs.count)
        #expect(abs(mine[4] - theirs[4]) < Self.scoreTolerance, "\(picture): score \(mine[4]) against \(theirs[4])")
        for index in mine.indices where index != 4 {
            #expect(abs(mine[index] - theirs[index]) < Self.pixelTolerance, "\(picture): \(mine) against \(theirs)")
        }
    }
}
