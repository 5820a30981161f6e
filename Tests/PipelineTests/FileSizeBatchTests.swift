import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

/// No file can exhaust memory or outrun the page timeout by its size (issue 16): a file is
/// refused from its size before it is read, hashed a chunk at a time, and a download stops at
/// the same size.
@Suite(.serialized)
struct FileSizeBatchTests {
    /// A sparse 2 GiB PNG whose header (12000x12000, 16-bit RGBA) justifies its size: it passes
    /// every check, and hashing it takes several seconds.
    static func largeJustifiedPNG(in scratch: ScratchFolder) throws -> String {
        let path = scratch.path + "/large.png"
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13) + Array("IHDR".utf8)
            + bigEndian(12000) + bigEndian(12000) + [16, 6, 0, 0, 0] + bigEndian(0)
        try Data(header).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        return path
    }

    @Test func aPageWhoseTimeRunsOutWhileHashingIsTimedOut() async throws {
        let scratch = try ScratchFolder()
        let large = try Self.largeJustifiedPNG(in: scratch)
        let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1, pageTimeout: .milliseconds(500))
        let (events, continuation) = AsyncStream.makeStream(of: BatchEvent.self)
        let batch = Task { try await annotator.annotate([large], into: scratch.path + "/out", events: continuation) }
        var startedPages = 0
        for await event in events {
            if case .pageStarted = event { startedPages += 1 }
        }
        let manifest = try await batch.value
        let page = try #require(manifest.pages.first)
        #expect(page.status == .timedOut, "\(page)")
        #expect(page.error?.contains("timed out after 0.5 s") == true, "\(page.error ?? "")")
        // Stopped between chunks: a hash finished late would have let the page start decoding.
        #expect(startedPages == 0, "the page never got past hashing")
    }

    @Test func maxFileSizeRefusesALargerFileAndOnlyIt() throws {
        let scratch = try ScratchFolder()
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), Fixtures.path("formats/page.gif"),
                                 "-o", scratch.path + "/out", "--no-faces", "--max-file-size", "10K"])
        #expect(run.status == 1)
        let refused = run.standardError.split(separator: "\n").filter { $0.contains("sans.png") }
        #expect(refused.count == 1 && refused[0].contains("above the limit of 10240 (see --max-file-size) (read)"), "\(refused)")
        let manifest = try BatchTests.manifest(scratch.path + "/out")
        #expect(manifest.pages.map(\.status) == [.failed, .ok])

        let wrong = try Gloss.run(["ocr", Fixtures.path("text/sans.png"), "--max-file-size", "lots"])
        #expect(wrong.status == 2 && wrong.standardError.contains("--max-file-size takes a number of bytes"))
    }

    @Test func aDownloadStopsAtTheMaxFileSize() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1, maxFileSize: 1000)
            let manifest = try await annotator.annotate([server.url("/huge-nolength").absoluteString, server.url("/ok.png").absoluteString],
                                                        into: scratch.path + "/out")
            #expect(manifest.pages.map(\.status) == [.failed, .failed])
            for page in manifest.pages {
                #expect(page.error?.contains("over the limit of 1000 bytes") == true, "\(page.error ?? "")")
                #expect(page.error?.contains("(fetch)") == true)
            }
        }
    }
}
