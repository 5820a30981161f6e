import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

/// `gloss annotate --format iiif` and `--iiif-base` as a user runs them.
@Suite(.serialized)
struct IIIFBatchTests {
    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func canvases(_ folder: String) throws -> [[String: Any]] {
        try json(folder + "/iiif/manifest.json")["items"] as? [[String: Any]] ?? []
    }

    @Test func aCanvasPerPageReadWithWordsAndFacesUnderTheBase() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out", base = "https://archive.example/batch1/"
        let run = try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), Fixtures.path("faces/astronaut.png"),
                                 Fixtures.path("bad/empty.png"), "-o", output, "--iiif-base", "https://archive.example/batch1",
                                 "--format", "html,json,alto,hocr,pdf"])
        #expect(run.status == 1, "\(run.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.settings.iiif == IIIFOutput(base: base))
        let read = manifest.pages.filter { $0.status == .ok }
        let canvases = try Self.canvases(output)
        #expect(canvases.count == read.count && read.count == 3, "a canvas per page read, none for the empty file")
        #expect(try Self.json(output + "/iiif/manifest.json")["id"] as? String == base + "iiif/manifest.json")

        for (entry, canvas) in zip(read, canvases) {
            let report = try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/" + entry.outputs["json"]!))))
            let id = base + "iiif/canvas/" + entry.id
            #expect(canvas["id"] as? String == id)
            #expect(canvas["width"] as? Int == report.width && canvas["height"] as? Int == report.height)
            // Each canvas links its page's ALTO and hOCR, and its input's PDF, when the batch wrote them.
            let seeAlso = (canvas["seeAlso"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(seeAlso == ["alto", "hocr"].compactMap { entry.outputs[$0].map { base + $0 } }, "\(seeAlso)")
            let rendering = (canvas["rendering"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(rendering == (entry.outputs["pdf"].map { [base + $0] } ?? []))
            let annotationIDs = (canvas["annotations"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(annotationIDs.allSatisfy { $0.hasPrefix(base + "iiif/annotations/" + entry.id + "-") })
            if let word = report.words.first {
                let words = try Self.json(output + "/iiif/annotations/" + entry.id + "-words.json")
                let first = try #require((words["items"] as? [[String: Any]])?.first)
                #expect(first["target"] as? String == id + "#xywh=\(word.box.x),\(word.box.y),\(word.box.width),\(word.box.height)")
                #expect((first["body"] as? [String: Any])?["value"] as? String == word.text)
            }
            let faces = (try? Self.json(output + "/iiif/annotations/" + entry.id + "-faces.json"))?["items"] as? [[String: Any]] ?? []
            #expect(faces.count == report.faces.count)
            #expect(faces.allSatisfy { $0["motivation"] as? String == "tagging" && $0["gloss:confidence"] is Double })
        }
        #expect(read.contains { $0.faces > 0 }, "the portrait has a face")
        #expect(read.allSatisfy { $0.outputs["alto"] != nil && $0.outputs["hocr"] != nil && $0.outputs["pdf"] != nil })
    }

    @Test func anotherBaseRewritesTheManifestWithoutReadingPagesAndGonePagesLoseTheirFiles() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let inputs = [Fixtures.path("text/two-pages.tif"), Fixtures.path("text/sans.png")]
        // Without a base URL no manifest is written (relative ids are not valid IIIF), and the run says why.
        let first = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces", "--format", "iiif"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.contains("no IIIF manifest is written without --iiif-base")
                    && first.standardError.contains("gloss serve"), "\(first.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output + "/iiif"))
        #expect(!(try String(contentsOfFile: output + "/index.html", encoding: .utf8)).contains("iiif/manifest.json"))
        #expect(!FileManager.default.fileExists(atPath: output + "/pages/" + (try BatchTests.manifest(output).pages[0].id) + ".html"))

        let moved = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces", "--format", "iiif",
                                                            "--iiif-base", "https://elsewhere.example/b/"])
        #expect(moved.status == 0)
        #expect(!moved.standardError.contains("gloss: ok "), "no page is read again: \(moved.standardError)")
        let canvases = try Self.canvases(output)
        #expect(canvases.count == 3)
        #expect(canvases.allSatisfy { ($0["id"] as? String)?.hasPrefix("https://elsewhere.example/b/iiif/canvas/") == true })
        #expect(try String(contentsOfFile: output + "/index.html", encoding: .utf8).contains("href=\"iiif/manifest.json\""),
                "the index links the manifest")

        let fewer = try Gloss.run(["annotate", inputs[1], "-o", output, "--no-faces", "--format", "iiif", "--prune",
                                   "--iiif-base", "https://elsewhere.example/b/"])
        #expect(fewer.status == 0)
        let kept = try BatchTests.manifest(output).pages.map(\.id)
        let files = try FileManager.default.contentsOfDirectory(atPath: output + "/iiif/annotations")
        #expect(!files.isEmpty && files.allSatisfy { name in kept.contains { name.hasPrefix($0 + "-") } }, "\(files)")
        #expect(try Self.canvases(output).count == 1)

        let without = try Gloss.run(["annotate", inputs[1], "-o", output, "--no-faces", "--format", "json"])
        #expect(without.status == 0)
        #expect(!FileManager.default.fileExists(atPath: output + "/iiif"), "a batch without IIIF has no iiif folder")
    }
}
