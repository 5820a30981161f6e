import Foundation
import GlossContract
@testable import GlossPipeline
import GlossTestSupport
import Testing

/// A batch's workers take its largest files first, so that its last moments are not one large
/// page read alone; its manifest and index keep the inputs' order.
struct ReadingOrderTests {
    @Test func theLargestGoFirstAndUnknownSizesBeforeThem() {
        #expect(FileQueue.largestFirst([10, nil, 30, 30, 5, nil]) == [1, 5, 2, 3, 0, 4])
        #expect(FileQueue.largestFirst([]) == [])
        let queue = FileQueue(order: [2, 0, 1])
        #expect([queue.next(), queue.next(), queue.next(), queue.next()] == [2, 0, 1, nil])
    }

    @Test func aBatchStartsItsLargestFileAndListsItsInputsInOrder() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.path + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Named so that the order of their names is neither the order of their sizes nor its reverse.
        let copies = [("a.png", "text/few-words.png"), ("b.png", "text/serif.png"), ("c.png", "text/sans.png")]
        for (name, fixture) in copies {
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: folder + "/" + name)
        }
        // The walk carries each file's bytes, whether found in a folder or named directly.
        let sizes = try copies.map { try FileManager.default.attributesOfItem(atPath: folder + "/" + $0.0)[.size] as! Int }
        #expect(InputCollector.walk([folder]).inputs.map(\.byteCount) == sizes)
        #expect(InputCollector.walk([folder + "/b.png", "https://example.org/page.png"]).inputs.map(\.byteCount) == [sizes[1], nil])
        let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
        let (events, continuation) = AsyncStream.makeStream(of: BatchEvent.self)
        let batch = Task { try await annotator.annotate([folder], into: scratch.path + "/out", events: continuation) }
        var started: [String] = []
        for await event in events {
            if case .pageStarted(let source, _) = event { started.append((source as NSString).lastPathComponent) }
        }
        let manifest = try await batch.value
        #expect(started == ["b.png", "c.png", "a.png"])
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == ["a.png", "b.png", "c.png"])
        #expect(manifest.pages.allSatisfy { $0.status == .ok })
    }
}
