import Foundation
import GlossContract
import GlossReports
import GlossTestSupport
import Testing

/// Faces through the whole graph: detection on the face branch's copy, converted once to page pixels.
@Suite(.serialized)
struct FacesCommandTests {
    @Test func theAstronautsFaceLandsOnHerFaceInPagePixels() throws {
        let run = try Gloss.run(["faces", Fixtures.path("faces/astronaut.png")])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONOutput.decode(PageReport.self, from: Array(run.standardOutput.utf8))
        #expect(report.words.isEmpty && report.width == 512 && report.height == 512)
        try #require(report.faces.count == 1)
        let face = report.faces[0]
        // Hand-measured: her face spans about x 175...275, y 65...165 in the 512x512 photo.
        #expect(abs(Double(face.box.x) + Double(face.box.width) / 2 - 225) <= 12)
        #expect(abs(Double(face.box.y) + Double(face.box.height) / 2 - 118) <= 15)
        let left = try #require(face.leftEye), right = try #require(face.rightEye)
        #expect(left.x < right.x, "the image's left eye is on the left")
        for eye in [left, right] {
            #expect(Double(face.box.y) < eye.y && eye.y < Double(face.box.y) + Double(face.box.height) / 2)
            #expect(["detected", "estimated"].contains(eye.source))
        }
        let mouth = try #require(face.mouth)
        #expect(mouth.y > max(left.y, right.y) && mouth.y < Double(face.box.maxY))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let faceJSON = try #require((json["faces"] as? [[String: Any]])?.first)
        #expect(Set(faceJSON.keys).isSuperset(of: ["box", "confidence", "leftEye", "rightEye", "mouth", "hasSmile"]))
    }

    @Test func aTextPageHasNoFacesAndNoFacesMeansNone() throws {
        let scratch = try ScratchFolder()
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), Fixtures.path("faces/astronaut.png"),
                                 "--no-faces", "-o", scratch.path])
        #expect(run.status == 0, "\(run.standardError)")
        let text = try Gloss.run(["faces", Fixtures.path("text/sans.png")])
        let report = try JSONOutput.decode(PageReport.self, from: Array(text.standardOutput.utf8))
        #expect(report.faces.isEmpty)
        let manifest = try String(contentsOfFile: scratch.path + "/gloss.json", encoding: .utf8)
        #expect(!manifest.contains("\"faces\" : 1"))
    }
}
