import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

/// The pictures a batch writes for people: a document's display copy still reads as the page
/// did, a photo's is a JPEG, every page has a thumbnail, and a picture its page no longer names
/// does not linger.
@Suite(.serialized)
struct DisplayCopyTests {
    @Test func aDocumentsDisplayCopyReadsAsWellAsTheScan() throws {
        let scratch = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: scratch.path + "/in", withIntermediateDirectories: true)
        for fixture in ["text/sans.png", "faces/astronaut.png"] {
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture),
                                             toPath: scratch.path + "/in/" + (fixture as NSString).lastPathComponent)
        }
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "-q", "--format", "html,json,iiif"])
        #expect(run.status == 0, "\(run.standardError)")
        let pages = try BatchTests.manifest(output).pages
        let document = try #require(pages.first { $0.source.hasSuffix("sans.png") })
        let photo = try #require(pages.first { $0.source.hasSuffix("astronaut.png") })
        #expect(document.outputs["image"]?.hasSuffix(".png") == true)
        #expect(photo.outputs["image"]?.hasSuffix(".jpg") == true)
        for page in pages {
            let thumbnail = try #require(page.outputs["thumbnail"])
            #expect(thumbnail.hasSuffix(".thumb.jpg") && FileManager.default.fileExists(atPath: output + "/" + thumbnail))
        }

        // Read again from the display copy alone: the words are all still there.
        let reread = try Gloss.run(["ocr", output + "/" + document.outputs["image"]!])
        #expect(reread.status == 0, "\(reread.standardError)")
        let truth = try Fixtures.truth("text/sans.json")[0]
        let text = try JSONOutput.decode(PageReport.self, from: Array(reread.standardOutput.utf8)).text
        let accuracy = characterAccuracy(text, expected: truth.text)
        #expect(accuracy > 0.97, "\(accuracy): \(text)")

        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(index.contains(document.outputs["thumbnail"]!) && !index.contains(document.outputs["image"]!),
                "the index shows thumbnails, not display copies")
        let iiif = try String(contentsOfFile: output + "/iiif/manifest.json", encoding: .utf8)
        #expect(iiif.contains("\"image/jpeg\"") && iiif.contains("\"image/png\""), "each canvas names its picture's type")
    }

    @Test func aPictureItsPageNoLongerNamesIsRemoved() throws {
        let scratch = try ScratchFolder()
        _ = try BatchTests.copies(into: scratch.path + "/in", count: 1)
        let output = scratch.path + "/out"
        #expect(try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "-q", "--no-faces"]).status == 0)
        let page = try #require(try BatchTests.manifest(output).pages.first)
        let image = try #require(page.outputs["image"])
        // The display copy an older Gloss wrote in the other format.
        let other = output + "/" + (image.hasSuffix(".png") ? image.dropLast(4) + ".jpg" : image.dropLast(4) + ".png")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: other))
        #expect(try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "-q", "--no-faces"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(FileManager.default.fileExists(atPath: output + "/" + image))
        #expect(FileManager.default.fileExists(atPath: output + "/" + page.outputs["json"]!))
    }
}
