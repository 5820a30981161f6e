import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossIndex
@testable import GlossPipeline
import GlossTestSupport
import Synchronization
import Testing

/// An analyzer defined here alone: it marks the box around a page's dark pixels. That it reaches
/// the page JSON, the overlay and the index shows the seam needs no edit elsewhere.
struct DarkRegionAnalyzer: Analyzer {
    /// How many engines were built, across the process: one per lane, never one per page.
    static let enginesBuilt = Mutex(0)

    final class Engine {
        var pagesSeen = 0
    }

    var name: String { "dark" }
    var image: ImageRequest { ImageRequest(longestSide: 200, layout: .gray) }

    func makeEngine() throws -> Engine {
        Self.enginesBuilt.withLock { $0 += 1 }
        return Engine()
    }

    func analyze(_ image: AnalyzerImage, with engine: Engine, cancellation: CancellationFlag) throws -> PageFindings {
        engine.pagesSeen += 1
        let raster = image.raster
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<raster.height {
            for x in 0..<raster.width where raster[x, y] < 64 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return PageFindings() }
        let box = PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        return PageFindings(regions: [Region(kind: "dark", box: NormalizedRect(box, in: raster.size),
                                             label: "page \(engine.pagesSeen) of this engine", confidence: 0.75)])
    }
}

@Suite(.serialized)
struct AnalyzerSeamTests {
    /// A white page with one black rectangle at a known place.
    static func writePage(to path: String, rectangle: PixelRect) throws {
        var raster = Raster(width: 600, height: 400, layout: .gray, filledWith: 255)
        var pixels = raster.pixels
        for y in rectangle.y..<rectangle.maxY {
            for x in rectangle.x..<rectangle.maxX { pixels[y * 600 + x] = 0 }
        }
        raster = Raster(width: 600, height: 400, layout: .gray, pixels: pixels)
        try Data(try raster.pngData()).write(to: URL(fileURLWithPath: path))
    }

    @Test func aNewAnalyzerReachesTheJSONTheOverlayAndTheIndex() async throws {
        let scratch = try ScratchFolder()
        let truth = [PixelRect(x: 120, y: 90, width: 240, height: 150), PixelRect(x: 30, y: 300, width: 90, height: 60)]
        for (number, rectangle) in truth.enumerated() {
            try Self.writePage(to: scratch.path + "/page\(number).png", rectangle: rectangle)
        }
        var annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
        annotator.additionalAnalyzers = [DarkRegionAnalyzer()]
        let before = DarkRegionAnalyzer.enginesBuilt.withLock { $0 }
        let manifest = try await annotator.annotate([scratch.path], into: scratch.path + "/out")
        #expect(DarkRegionAnalyzer.enginesBuilt.withLock { $0 } == before + 1, "one engine for the lane, not one per page")
        #expect(manifest.pages.map(\.status) == [.ok, .ok])

        let index = try BatchIndex(folder: scratch.path + "/out", create: false)
        for (entry, rectangle) in zip(manifest.pages, truth) {
            let json = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out/" + entry.outputs["json"]!))
            let report = try JSONOutput.decode(PageReport.self, from: Array(json))
            let region = try #require(report.regions.first)
            #expect(report.regions.count == 1 && region.kind == "dark" && region.confidence == 0.75)
            // Found on a 200 px copy, converted to the page's 600 px: within a copy pixel of the truth.
            for (found, expected) in [(region.box.x, rectangle.x), (region.box.y, rectangle.y),
                                      (region.box.maxX, rectangle.maxX), (region.box.maxY, rectangle.maxY)] {
                #expect(abs(found - expected) <= 3, "\(region.box) against \(rectangle)")
            }
            #expect(report.timings["dark"] != nil, "the analyzer is a timed stage under its name")
            #expect(String(decoding: json, as: UTF8.self).contains("\"regions\""))

            let html = try String(contentsOfFile: scratch.path + "/out/" + entry.outputs["html"]!, encoding: .utf8)
            #expect(html.contains("<rect class=\"region\" data-kind=\"dark\" x=\"\(region.box.x)\" y=\"\(region.box.y)\""))
            #expect(try index.regions(onPage: entry.id) == report.regions)
        }
        // The engine lived across pages: one page was its first, the other its second (the
        // batch takes the larger file first, whichever it is).
        let labels = try manifest.pages.map { entry in
            try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(
                fileURLWithPath: scratch.path + "/out/" + entry.outputs["json"]!)))).regions.first?.label
        }
        #expect(Set(labels) == ["page 1 of this engine", "page 2 of this engine"])

        // A run without the analyzer does not reuse pages read with it.
        let again = try await Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
            .annotate([scratch.path], into: scratch.path + "/out")
        let reread = try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(
            fileURLWithPath: scratch.path + "/out/" + again.pages[0].outputs["json"]!))))
        #expect(reread.regions.isEmpty)
    }
}

/// The file's own stages (fetch, read, hash) are stages of the graph: cancelled and timed like the rest.
@Suite(.serialized)
struct FileStageTests {
    @Test func ctrlCDuringADownloadRecordsThePageCancelled() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            var fetching = RemoteFetchOptions()
            fetching.totalTimeout = .seconds(60)
            let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1, fetching: fetching)
            let url = server.url("/stall").absoluteString
            let batch = Task { try await annotator.annotate([url], into: scratch.path + "/out") }
            // Ctrl-C once the download has begun and stalled.
            while try await server.requests("/stall") == 0 { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(300))
            let cancelledAt = ContinuousClock.now
            batch.cancel()
            let manifest = try await batch.value
            // Well before the 60 s the download had left: it was stopped, not waited out (the
            // margin is for a loaded machine, where this took up to 6 s).
            #expect(ContinuousClock.now - cancelledAt < .seconds(20))
            let page = try #require(manifest.pages.first)
            #expect(page.status == .cancelled, "\(page)")
            #expect(page.error?.contains("cancelled (fetch)") == true, "\(page.error ?? "")")
            #expect(page.inputHash == nil, "bytes never read are never hashed, so no later run can match them")
        }
    }

    @Test func theTimeoutCoversTheDownload() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            var fetching = RemoteFetchOptions()
            fetching.totalTimeout = .seconds(60)
            // Long enough for the ordinary page on a loaded machine (the whole suite running
            // beside it took it past 1 s), far short of the stalled download's 60.
            let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1, pageTimeout: .seconds(5),
                                      fetching: fetching)
            let started = ContinuousClock.now
            let manifest = try await annotator.annotate([server.url("/stall").absoluteString, Fixtures.path("text/sans.png")],
                                                        into: scratch.path + "/out")
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(manifest.pages.map(\.status) == [.timedOut, .ok])
            #expect(manifest.pages[0].error?.contains("timed out after 5 s") == true, "\(manifest.pages[0].error ?? "")")
            #expect(manifest.pages[0].inputHash == nil)
        }
    }

    @Test func aCombinedDocumentThatCannotBeWrittenFailsItsFileAndARerunMendsIt() async throws {
        let scratch = try ScratchFolder()
        let tiff = Fixtures.path("text/two-pages.tif")
        let output = scratch.path + "/out"
        // A folder where the combined hOCR must go: renaming a file onto it fails, even for root.
        // The output is a batch (a run killed at its start leaves its lock file), or it would be
        // refused as a folder of someone else's.
        let blocker = output + "/pages/" + pageIdentifier(source: tiff, pageIndex: 0, pageCount: 1) + ".hocr"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: output + "/" + FolderLock.fileName, contents: nil))
        var settings = AnnotationSettings.readingFast(detectFaces: false)
        settings.formats = [.json, .hocr]
        let annotator = Annotator(settings: settings, jobs: 1)

        let first = try await annotator.annotate([tiff], into: output)
        #expect(first.pages.map(\.status) == [.failed, .failed])
        #expect(first.pages.allSatisfy { $0.error?.contains("(combine)") == true }, "\(first.pages.map(\.error))")

        try FileManager.default.removeItem(atPath: blocker)
        let second = try await annotator.annotate([tiff], into: output)
        #expect(second.pages.map(\.status) == [.ok, .ok])
        let combined = try String(contentsOfFile: blocker, encoding: .utf8)
        #expect(combined.components(separatedBy: "class=\"ocr_page\"").count == 3, "both pages in one document")
    }

    @Test func everyReadPageCarriesTheHashOfItsBytes() async throws {
        let scratch = try ScratchFolder()
        let path = Fixtures.path("text/sans.png")
        let manifest = try await Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
            .annotate([path], into: scratch.path + "/out")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(manifest.pages.first?.inputHash == SHA256.hex(of: bytes))
        #expect(manifest.pages.first?.inputHash?.count == 64)
    }

    /// A large file's hash stops between chunks once its page is cancelled (its timeout).
    @Test func hashingAFileStopsOnceItsTaskIsCancelled() async throws {
        let scratch = try ScratchFolder()
        let file = try ImageFile(contentsOf: try FileSizeBatchTests.largeJustifiedPNG(in: scratch))
        let hashing = Task { () throws -> String in
            while !Task.isCancelled { await Task.yield() }
            return try SHA256.hex(of: file)
        }
        hashing.cancel()
        await #expect(throws: CancellationError.self) { try await hashing.value }
    }

    /// A file is hashed a chunk at a time: any cut of the message gives the digest of the whole.
    @Test(arguments: [1, 3, 63, 64, 65, 1000])
    func hashingInChunksGivesTheDigestOfTheWhole(chunk: Int) {
        let message = Array("The quick brown fox jumps over the lazy dog, ".utf8) + (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var hasher = SHA256()
        for start in stride(from: 0, to: message.count, by: chunk) {
            message[start..<min(message.count, start + chunk)].withUnsafeBytes { hasher.update($0) }
        }
        #expect(hasher.finish() == SHA256.hex(of: message))
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
