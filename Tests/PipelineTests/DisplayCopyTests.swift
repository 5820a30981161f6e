import Foundation
import GlossContract
import GlossImaging
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
        // The same page with the grain of a scanner (every pixel off by up to 6 levels): too heavy
        // to be shown as it is, it gets a 16-shade copy.
        let clean = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        var state: UInt32 = 12345
        let grainy = Raster(width: clean.width, height: clean.height, layout: .gray, pixels: clean.pixels.map { value in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(clamping: Int(value) + Int(state >> 28) % 13 - 6)
        })
        try Data(try grainy.pngData()).write(to: URL(fileURLWithPath: scratch.path + "/in/grainy.png"))
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "-q", "--format", "html,json,iiif", "--iiif-base", "https://archive.example/b/"])
        #expect(run.status == 0, "\(run.standardError)")
        let pages = try BatchTests.manifest(output).pages
        let document = try #require(pages.first { $0.source.hasSuffix("sans.png") })
        let photo = try #require(pages.first { $0.source.hasSuffix("astronaut.png") })
        let copied = try #require(pages.first { $0.source.hasSuffix("grainy.png") })
        #expect(copied.outputs["image"]?.hasSuffix(".png") == true)
        let copy = try ImageFile(contentsOf: output + "/" + copied.outputs["image"]!)
        #expect(copy.byteCount * 2 < (try ImageFile(contentsOf: scratch.path + "/in/grainy.png")).byteCount)
        #expect(document.outputs["image"]?.hasSuffix(".png") == true)
        #expect(photo.outputs["image"]?.hasSuffix(".jpg") == true)
        // The scan is light and near the display size: it is shown as it is; the photo is re-encoded.
        #expect(FileManager.default.contents(atPath: output + "/" + document.outputs["image"]!)
            == FileManager.default.contents(atPath: Fixtures.path("text/sans.png")))
        for page in pages {
            let thumbnail = try #require(page.outputs["thumbnail"])
            #expect(thumbnail.hasSuffix(".thumb.jpg") && FileManager.default.fileExists(atPath: output + "/" + thumbnail))
        }

        // Read again from the 16-shade copy alone: the words are all still there.
        let reread = try Gloss.run(["ocr", output + "/" + copied.outputs["image"]!])
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
        // The display copy an older Gloss wrote in the other format, and recorded, with its own settings.
        let otherImage = String(image.dropLast(4)) + (image.hasSuffix(".png") ? ".jpg" : ".png")
        let other = output + "/" + otherImage
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: other))
        let manifestURL = URL(fileURLWithPath: output + "/gloss.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var pages = try #require(manifest["pages"] as? [[String: Any]])
        var outputs = try #require(pages[0]["outputs"] as? [String: String])
        outputs["image"] = otherImage
        pages[0]["outputs"] = outputs
        pages[0]["settingsHash"] = "older"
        manifest["pages"] = pages
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        #expect(try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "-q", "--no-faces"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(FileManager.default.fileExists(atPath: output + "/" + image))
        #expect(FileManager.default.fileExists(atPath: output + "/" + page.outputs["json"]!))
    }
}
