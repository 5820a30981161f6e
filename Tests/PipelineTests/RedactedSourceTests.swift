import Foundation
import GlossContract
import GlossIndex
import GlossPipeline
import GlossTestSupport
import Testing

/// Case 9 of issue 26: a URL's password and query values are never shown or stored, against
/// the test server on 127.0.0.1.
@Suite(.serialized)
struct RedactedSourceTests {
    static let password = "pw-Xq7zK9", token = "SECRET-t0k3n"

    @Test(arguments: [
        ("http://user:pw@host/scan.png?token=SECRET", "http://host/scan.png?token=REDACTED#hidden-"),
        ("https://host/a/b.png?x=1&token=SECRET&flag", "https://host/a/b.png?x=REDACTED&token=REDACTED&REDACTED#hidden-"),
        ("https://user@host:8443/b.png#access_token=SECRET", "https://host:8443/b.png#hidden-"),
        ("https://host/plain.png", "https://host/plain.png"),
    ])
    func aURLIsShownWithoutItsUserInformationOrQueryValues(url: String, shown: String) {
        let redacted = RedactedURL.shown(url)
        #expect(redacted.hasPrefix(shown), "\(redacted)")
        #expect(!redacted.contains("SECRET") && !redacted.contains("pw@"), "\(redacted)")
        #expect(RedactedURL.shown(url) == redacted, "the same URL is shown the same on every run")
        if shown.hasSuffix("#hidden-") { #expect(redacted.count == shown.count + 16) }
    }

    @Test func twoURLsThatDifferOnlyInTheirTokenStayTwoSources() {
        let one = RedactedURL.shown("https://host/scan.png?token=A"), other = RedactedURL.shown("https://host/scan.png?token=B")
        #expect(one != other)
        #expect(pageIdentifier(source: one, pageIndex: 0, pageCount: 1) != pageIdentifier(source: other, pageIndex: 0, pageCount: 1))
    }

    @Test func noFileAndNoLogLineHoldsThePasswordOrTheTokenAndAReRunSkipsThePage() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            let output = scratch.path + "/out"
            let url = "http://user:\(Self.password)@127.0.0.1:\(server.port)/ok.png?token=\(Self.token)"
            let arguments = ["annotate", url, "-o", output, "--no-faces", "--jobs", "1", "--fetch-timeout", "20",
                             "--format", "html,json,hocr,alto,tsv,txt,pdf,iiif", "--iiif-base", "https://archive.example/b/"]
            let run = try Gloss.run(arguments)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(try await server.requests("/ok.png") == 1, "the full URL was fetched")

            let manifest = try BatchTests.manifest(output)
            let source = try #require(manifest.pages.first?.source)
            #expect(source.hasPrefix("http://127.0.0.1:\(server.port)/ok.png?token=REDACTED#hidden-"), "\(source)")
            #expect(run.standardError.contains("ok.png"), "the log names the page: \(run.standardError)")
            let written = SmallShards.files(below: output)
            for format in ["html", "json", "hocr", "alto.xml", "tsv", "txt", "pdf"] {
                #expect(written.contains { $0.hasSuffix("." + format) }, "a .\(format) file is written")
            }
            #expect(written.contains(BatchIndex.fileName) && written.contains { $0.hasPrefix("data/") }
                    && written.contains { $0.hasPrefix("iiif/") })
            for file in written {
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output + "/" + file)), as: UTF8.self)
                #expect(!text.contains(Self.password) && !text.contains(Self.token), "\(file)")
            }
            let pdf = try #require(written.first { $0.hasSuffix(".pdf") })
            let title = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output + "/" + pdf)), as: UTF8.self)
            #expect(title.contains("/Title (ok.png?token=REDACTED"), "the title is the redacted name")
            #expect(!run.standardError.contains(Self.password) && !run.standardError.contains(Self.token), "\(run.standardError)")

            let again = try Gloss.run(arguments)
            #expect(again.status == 0, "\(again.standardError)")
            #expect(again.standardError.contains("1 skipped"), "\(again.standardError)")
            #expect(!again.standardError.contains(Self.password) && !again.standardError.contains(Self.token))
            #expect(try BatchTests.manifest(output).pages.map(\.id) == manifest.pages.map(\.id))
        }
    }

    @Test func aFailedFetchNamesTheURLRedacted() async throws {
        try await withTestServer { server in
            let scratch = try ScratchFolder()
            let url = "http://user:\(Self.password)@127.0.0.1:\(server.port)/missing?token=\(Self.token)"
            let run = try Gloss.run(["annotate", url, "-o", scratch.path + "/out", "--no-faces", "--fetch-timeout", "20"])
            #expect(run.status == 1)
            let error = try #require(try BatchTests.manifest(scratch.path + "/out").pages.first?.error)
            #expect(error.contains("HTTP 404") && error.contains("/missing?token=REDACTED"), "\(error)")
            #expect(!error.contains(Self.password) && !error.contains(Self.token), "\(error)")
            #expect(!run.standardError.contains(Self.password) && !run.standardError.contains(Self.token), "\(run.standardError)")
        }
    }
}
