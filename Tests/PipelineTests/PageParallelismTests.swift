import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

/// Pages, not files, are shared among the workers: the pages of one multi-page file are read
/// at once when there are workers free, and come out in their order all the same.
@Suite(.serialized)
struct PageParallelismTests {
    /// The most pages in flight at once during a batch, from its events, and its manifest.
    static func annotate(_ inputs: [String], jobs: Int, into output: String) async throws -> (Int, BatchManifest) {
        let settings = AnnotationSettings.readingFast(formats: [.json, .hocr, .alto], detectFaces: false)
        let annotator = Annotator(settings: settings, jobs: jobs)
        let (events, continuation) = AsyncStream.makeStream(of: BatchEvent.self)
        let batch = Task { try await annotator.annotate(inputs, into: output, events: continuation) }
        var inFlight = 0, most = 0
        for await event in events {
            switch event {
            case .pageStarted: inFlight += 1
            case .pageFinished: inFlight -= 1
            default: break
            }
            most = max(most, inFlight)
        }
        return (most, try await batch.value)
    }

    @Test func thePagesOfOneFileAreReadAtOnce() async throws {
        let scratch = try ScratchFolder()
        let pdf = Fixtures.path("pdf/scanned.pdf")
        let (most, manifest) = try await Self.annotate([pdf], jobs: 2, into: scratch.path + "/out")
        #expect(most == 2, "both pages of the file were in flight together")
        #expect(manifest.pages.map(\.pageIndex) == [0, 1])
        #expect(manifest.pages.allSatisfy { $0.status == .ok })
        let truths = try Fixtures.truth("text/sans.json") + Fixtures.truth("text/serif.json")
        for (entry, truth) in zip(manifest.pages, truths) {
            let json = try #require(entry.outputs["json"])
            let report = try JSONOutput.decode(PageReport.self, from: try [UInt8](Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out/" + json))))
            #expect(characterAccuracy(report.text, expected: truth.text) > 0.95, "page \(entry.pageIndex + 1) is its own text")
        }
        // The combined documents wait for the last page, whichever ends last.
        let pages = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out/pages")
        let combined = try #require(pages.first { $0.hasSuffix(".hocr") && !$0.contains("-p") })
        let hocr = try String(contentsOfFile: scratch.path + "/out/pages/" + combined, encoding: .utf8)
        #expect(hocr.components(separatedBy: "class=\"ocr_page\"").count - 1 == 2, "one combined hOCR of both pages")
        #expect(hocr.range(of: "ppageno 0")!.lowerBound < hocr.range(of: "ppageno 1")!.lowerBound, "in their order")
    }

    @Test func pagesReadAtOnceAreListedInTheirOrder() async throws {
        let scratch = try ScratchFolder()
        let inputs = [Fixtures.path("text/two-pages.tif"), Fixtures.path("text/sans.png")]
        let (most, manifest) = try await Self.annotate(inputs, jobs: 3, into: scratch.path + "/out")
        #expect(most >= 2)
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == ["two-pages.tif", "two-pages.tif", "sans.png"])
        #expect(manifest.pages.map(\.pageIndex) == [0, 1, 0])
    }
}
