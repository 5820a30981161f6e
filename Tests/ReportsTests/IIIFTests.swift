import Foundation
import GlossContract
import GlossGeometry
import GlossReports
import Testing

/// The IIIF documents of the sample page, read back as JSON.
struct IIIFTests {
    static let base = "https://archive.example/batch1/"

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func build(base: String? = Self.base, languages: [String] = ["eng"])
        throws -> (manifest: [String: Any], pages: [String: [String: Any]]) {
        let presentation = IIIFPresentation(base: base, label: "batch1", languages: languages)
        let image = IIIFPresentation.Image(path: "pages/sample.png", width: 300, height: 200)
        let built = try #require(try presentation.canvas(for: SamplePage.report(), pageID: "sample", image: image))
        var pages: [String: [String: Any]] = [:]
        for file in built.files { pages[file.path] = try object(file.bytes) }
        let files = try presentation.manifest(of: [built.canvas])
        #expect(files.map(\.path) == [IIIFPresentation.manifestPath, IIIFPresentation.contextPath])
        return (try object(files[0].bytes), pages)
    }

    static func items(_ page: [String: Any]?) -> [[String: Any]] { page?["items"] as? [[String: Any]] ?? [] }

    @Test func aCanvasPerPagePaintedWithTheSmallerDisplayCopy() throws {
        let (manifest, _) = try Self.build()
        #expect(manifest["id"] as? String == Self.base + "iiif/manifest.json")
        #expect(manifest["@context"] as? String == "http://iiif.io/api/presentation/3/context.json")
        let canvases = Self.items(manifest)
        try #require(canvases.count == 1)
        let canvas = canvases[0]
        #expect(canvas["id"] as? String == Self.base + "iiif/canvas/sample")
        #expect(canvas["width"] as? Int == 600 && canvas["height"] as? Int == 400)
        #expect((canvas["label"] as? [String: [String]])?["none"] == ["<img src=x onerror=alert(1)>.png · page 1"])
        let painting = try #require(Self.items(Self.items(canvas).first).first)
        #expect(painting["motivation"] as? String == "painting")
        #expect(painting["target"] as? String == Self.base + "iiif/canvas/sample")
        let body = try #require(painting["body"] as? [String: Any])
        #expect(body["id"] as? String == Self.base + "pages/sample.png")
        #expect(body["type"] as? String == "Image" && body["format"] as? String == "image/png")
        #expect(body["width"] as? Int == 300 && body["height"] as? Int == 200)
        let references = try #require(canvas["annotations"] as? [[String: Any]])
        #expect(references.compactMap { $0["id"] as? String } == ["lines", "words", "faces"].map {
            Self.base + "iiif/annotations/sample-\($0).json"
        })
        #expect(references.allSatisfy { $0["type"] as? String == "AnnotationPage" && $0["items"] == nil })
    }

    @Test func aWordTargetsItsBoxWithWordGranularity() throws {
        let (_, pages) = try Self.build()
        let page = try #require(pages["iiif/annotations/sample-words.json"])
        #expect(page["@context"] as? [String] == ["http://iiif.io/api/extension/text-granularity/context.json",
                                                 "http://iiif.io/api/presentation/3/context.json"])
        #expect(page["id"] as? String == Self.base + "iiif/annotations/sample-words.json")
        let words = Self.items(page), report = SamplePage.report()
        #expect(words.count == report.words.count)
        for (annotation, word) in zip(words, report.words) {
            let box = word.box
            #expect(annotation["target"] as? String
                    == Self.base + "iiif/canvas/sample#xywh=\(box.x),\(box.y),\(box.width),\(box.height)")
            #expect(annotation["motivation"] as? String == "supplementing")
            #expect(annotation["textGranularity"] as? String == "word")
            let body = try #require(annotation["body"] as? [String: Any])
            #expect(body["type"] as? String == "TextualBody" && body["value"] as? String == word.text)
            #expect(body["format"] as? String == "text/plain" && body["language"] as? String == "en")
        }
        let lines = Self.items(pages["iiif/annotations/sample-lines.json"])
        #expect(lines.map { ($0["body"] as? [String: Any])?["value"] as? String } == report.lines.map(\.text))
        #expect(lines.allSatisfy { $0["textGranularity"] as? String == "line" })
    }

    @Test func facesAreTaggedWithTheirConfidence() throws {
        let (_, pages) = try Self.build()
        let page = try #require(pages["iiif/annotations/sample-faces.json"])
        #expect(page["@context"] as? [String] == [Self.base + "iiif/context.json", "http://iiif.io/api/presentation/3/context.json"])
        let faces = Self.items(page)
        try #require(faces.count == 1)
        #expect(faces[0]["motivation"] as? String == "tagging")
        #expect((faces[0]["body"] as? [String: Any])?["value"] as? String == "face")
        #expect(faces[0]["gloss:confidence"] as? Double == 0.875)
        #expect(faces[0]["target"] as? String == Self.base + "iiif/canvas/sample#xywh=420,200,120,140")
    }

    @Test func withoutABaseIdsAreRelativeToTheirOwnFile() throws {
        let (manifest, pages) = try Self.build(base: nil)
        #expect(manifest["id"] as? String == "manifest.json")
        let canvas = try #require(Self.items(manifest).first)
        #expect(canvas["id"] as? String == "canvas/sample")
        let body = (Self.items(Self.items(canvas).first).first?["body"] as? [String: Any])?["id"] as? String
        #expect(body == "../pages/sample.png")
        let word = try #require(Self.items(pages["iiif/annotations/sample-words.json"]).first)
        #expect((word["target"] as? String)?.hasPrefix("../canvas/sample#xywh=") == true)
    }

    @Test func theLanguageIsGivenOnlyWhenItIsKnownAndSingle() throws {
        for (languages, expected) in [(["eng", "osd"], "en"), (["frk"], "de"), (["eng", "deu"], nil), (["xyz"], nil)] as [([String], String?)] {
            #expect(IIIFPresentation(base: nil, label: "", languages: languages).language == expected, "\(languages)")
        }
    }

    @Test func aPageNotReadHasNoCanvasAndBoxesAreCutToTheCanvas() throws {
        let presentation = IIIFPresentation(base: Self.base, label: "batch1", languages: ["eng"])
        let failed = PageReport(source: "a.png", pageIndex: 0, status: .failed, error: "broken")
        #expect(try presentation.canvas(for: failed, pageID: "a", image: nil) == nil)
        var report = SamplePage.report()
        report.faces[0].box = PixelRect(x: 550, y: -20, width: 100, height: 100)
        report.faces.append(FaceReport(box: PixelRect(x: 700, y: 10, width: 20, height: 20), confidence: 0.5, neighbors: 1))
        let built = try #require(try presentation.canvas(for: report, pageID: "a", image: nil))
        let faces = try Self.object(try #require(built.files.first { $0.path.hasSuffix("-faces.json") }).bytes)
        #expect(Self.items(faces).compactMap { $0["target"] as? String } == [Self.base + "iiif/canvas/a#xywh=550,0,50,80"])
    }
}
