import Foundation
import GlossContract
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

/// URLs in a batch, from an input list, against the test server on 127.0.0.1.
@Suite(.serialized)
struct RemoteBatchTests {
    @Test func aDownloadedPageReadsLikeTheLocalFileAndA404FailsOnlyItsPage() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            let list = scratch.path + "/inputs.txt"
            let lines = ["# remote and local", server.url("/ok.png").absoluteString, server.url("/missing").absoluteString,
                         "", Fixtures.path("text/sans.png")]
            try lines.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)

            let run = try Gloss.run(["annotate", "--input-list", list, "-o", scratch.path + "/out", "--no-faces",
                                     "--fetch-timeout", "20"])
            #expect(run.status == 1)
            let manifest = try JSONOutput.decode(
                BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out/gloss.json"))))
            #expect(manifest.pages.map(\.status) == [.ok, .failed, .ok])
            let missing = manifest.pages[1]
            #expect(missing.error?.contains("HTTP 404") == true && missing.error?.contains("(fetch)") == true)
            #expect(run.standardError.split(separator: "\n").filter { $0.contains("/missing") }.count == 1)

            func words(_ entry: ManifestEntry) throws -> [String] {
                let path = scratch.path + "/out/" + entry.outputs["json"]!
                return try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                    .words.map(\.text)
            }
            #expect(try words(manifest.pages[0]) == words(manifest.pages[2]))
            #expect(manifest.pages[0].inputHash == manifest.pages[2].inputHash)
        }
    }

    /// A page an earlier run read from a URL keeps that reading when the server fails now: the
    /// run says so and exits 1, and the page stands as it was, where a failure used to be
    /// written over its files.
    @Test func aURLThatFailsNowKeepsItsEarlierReading() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            let output = scratch.path + "/out", list = scratch.path + "/inputs.txt"
            try server.url("/once.png").absoluteString.write(toFile: list, atomically: true, encoding: .utf8)
            let arguments = ["annotate", "--input-list", list, "-o", output, "--no-faces", "--fetch-timeout", "20"]
            let first = try Gloss.run(arguments)
            #expect(first.status == 0, "\(first.standardError)")
            func manifest() throws -> BatchManifest {
                try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/gloss.json"))))
            }
            let before = try manifest().pages
            try #require(before.count == 1 && before[0].status == .ok)
            let json = FileManager.default.contents(atPath: output + "/" + before[0].outputs["json"]!)

            let second = try Gloss.run(arguments)
            #expect(second.status == 1)
            #expect(second.standardError.contains("HTTP 503") && second.standardError.contains("its 1 page as read before is kept"),
                    "\(second.standardError)")
            #expect(second.standardError.contains("1 input not opened (kept as read before)"), "\(second.standardError)")
            #expect(try manifest().pages == before)
            #expect(FileManager.default.contents(atPath: output + "/" + before[0].outputs["json"]!) == json)
        }
    }
}
