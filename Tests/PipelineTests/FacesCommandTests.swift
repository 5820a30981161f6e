import Foundation
import GlossContract
import GlossIndex
import GlossPipeline
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

    @Test func theCNNPlacesFiveLandmarksAndTheCascadeThreeWithTheSameContract() throws {
        let cnn = try Gloss.run(["faces", Fixtures.path("faces/astronaut.png")])
        let cascade = try Gloss.run(["faces", "--faces", "cascade", Fixtures.path("faces/astronaut.png")])
        #expect(cnn.status == 0 && cascade.status == 0, "\(cnn.standardError)\(cascade.standardError)")
        let byCNN = try #require(try JSONOutput.decode(PageReport.self, from: Array(cnn.standardOutput.utf8)).faces.first)
        let byCascade = try #require(try JSONOutput.decode(PageReport.self, from: Array(cascade.standardOutput.utf8)).faces.first)
        // The same face either way (IoU well above 0.5).
        let a = byCNN.box, b = byCascade.box
        let shared = max(0, min(a.maxX, b.maxX) - max(a.x, b.x)) * max(0, min(a.maxY, b.maxY) - max(a.y, b.y))
        #expect(Double(shared) / Double(a.width * a.height + b.width * b.height - shared) > 0.5, "\(a) and \(b)")
        let nose = try #require(byCNN.nose), left = try #require(byCNN.mouthLeft), right = try #require(byCNN.mouthRight)
        #expect(nose.source == "detected" && left.x < nose.x && nose.x < right.x && nose.y < left.y)
        let mouth = try #require(byCNN.mouth)
        #expect(abs(mouth.x - (left.x + right.x) / 2) < 0.1, "the mouth is the corners' midpoint")
        #expect(byCNN.confidence > 0.8, "the model's own score")
        #expect(byCascade.nose == nil && byCascade.mouthLeft == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(cascade.standardOutput.utf8)) as? [String: Any])
        let face = try #require((json["faces"] as? [[String: Any]])?.first)
        #expect(face["nose"] is NSNull, "new keys are there for every face, null when not placed")
    }

    @Test func aModelThatDoesNotLoadIsOneClearErrorAndTheTextIsStillRead() throws {
        let scratch = try ScratchFolder()
        let corrupt = scratch.path + "/corrupt.bin"
        try Data("GLOSSNN1 but nothing more".utf8).write(to: URL(fileURLWithPath: corrupt))
        for model in [corrupt, scratch.path + "/missing.bin"] {
            let output = scratch.path + "/out-" + (model as NSString).lastPathComponent
            let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "--face-model", model, "-o", output])
            #expect(run.status == 0, "\(run.standardError)")
            let lines = run.standardError.split(separator: "\n").filter { $0.contains(model) }
            #expect(lines.count == 1 && lines[0].contains("faces cannot run"), "\(run.standardError)")
            let manifest = try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/gloss.json"))))
            #expect(manifest.pages.map(\.status) == [.ok] && manifest.pages[0].words == 46)
            // Alone, the faces command has nothing else to do: it fails with the same reason.
            let faces = try Gloss.run(["faces", "--face-model", model, Fixtures.path("faces/astronaut.png")])
            #expect(faces.status == 1 && faces.standardError.contains(model))
        }
        // With the model mended, the pages read without faces are read again.
        let folder = scratch.path + "/out-missing.bin"
        func hash() throws -> String? {
            try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/gloss.json"))))
                .pages[0].settingsHash
        }
        let without = try hash()
        let again = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", folder])
        #expect(again.status == 0 && !again.standardError.contains("cannot run"))
        #expect(try hash() != without, "read again, with faces")
    }

    /// A photo batch without text: a language with no model would stop any batch that reads
    /// text (exit 2), so this one succeeding shows Tesseract never ran; every output is written
    /// and the index holds the faces and no word.
    @Test func aBatchWithoutTextFindsFacesWritesEveryOutputAndIndexesThem() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let photos = [Fixtures.path("faces/astronaut.png"), Fixtures.path("faces/astronaut-trio.png")]
        let reading = try Gloss.run(["annotate"] + photos + ["-o", scratch.path + "/read", "--lang", "zzz", "-q"])
        #expect(reading.status == 2 && reading.standardError.contains("zzz"), "the same batch reading text needs the language")
        for flags in [["--no-text"], ["--text", "none"]] {
            let run = try Gloss.run(["annotate"] + photos + ["-o", output, "--lang", "zzz", "-q", "--force", "--format",
                                     OutputFormat.allCases.map(\.rawValue).joined(separator: ",")] + flags)
            #expect(run.status == 0, "\(flags): \(run.standardError)")
        }
        let manifest = try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/gloss.json"))))
        #expect(manifest.pages.map(\.status) == [.ok, .ok] && manifest.pages.map(\.words) == [0, 0])
        for page in manifest.pages {
            for format in OutputFormat.allCases {
                let file = try #require(page.outputs[format.rawValue], "\(format) of \(page.source)")
                #expect(FileManager.default.fileExists(atPath: output + "/" + file), "\(file)")
            }
            let json = try Data(contentsOf: URL(fileURLWithPath: output + "/" + (page.outputs["json"] ?? "")))
            let report = try JSONOutput.decode(PageReport.self, from: Array(json))
            #expect(report.words.isEmpty && report.timings["ocr"] == nil && report.timings["faces"] != nil, "\(report.timings.stages)")
        }
        let index = try BatchIndex(folder: output, create: false)
        #expect(try index.pages().map(\.faceCount) == [1, 3] && index.pages().map(\.wordCount) == [0, 0])
        #expect(try Gloss.run(["annotate"] + photos + ["-o", output, "--no-text", "--no-faces"]).status == 2, "nothing to read")
        #expect(try Gloss.run(["annotate"] + photos + ["-o", output, "--no-text", "--engine", "neural"]).status == 2)
        #expect(try Gloss.run(["ocr", photos[0], "--no-text"]).status == 2)
    }

    /// The smile cascade runs only when asked (docs/faces.md measures why): the astronaut
    /// smiles, and the cascade says so with `--smiles` and is not run without.
    @Test func aSmileIsLookedForOnlyWithSmiles() throws {
        func faces(_ flags: [String]) throws -> (faces: [FaceReport], timings: StageTimings) {
            let run = try Gloss.run(["faces", Fixtures.path("faces/astronaut-trio.png")] + flags)
            #expect(run.status == 0, "\(run.standardError)")
            let report = try JSONOutput.decode(PageReport.self, from: Array(run.standardOutput.utf8))
            return (report.faces, report.timings)
        }
        let plain = try faces([]), smiling = try faces(["--smiles"])
        #expect(plain.faces.count == 3 && plain.faces.allSatisfy { !$0.hasSmile } && plain.timings["face-smiles"] == nil)
        #expect(smiling.faces.count == 3 && smiling.faces.allSatisfy(\.hasSmile) && smiling.timings["face-smiles"] != nil)
        #expect(plain.faces.map(\.box) == smiling.faces.map(\.box), "the same faces either way")
    }
}
