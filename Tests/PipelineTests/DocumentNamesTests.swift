import Foundation
import GlossContract
@testable import GlossPipeline
import GlossTestSupport
import Testing

/// The files of `documents/`. One name is one input's: the names a batch gives, decided from
/// paths and the earlier run's records alone (milliseconds), then a batch read in two runs. And
/// the text's pages are separated by form feeds and by nothing else.
@Suite struct DocumentNamesTests {
    /// An earlier run's page of `source` whose document is `documents/NAME.txt`.
    static func recorded(_ source: String, _ name: String) -> ManifestEntry {
        ManifestEntry(report: PageReport(source: source, pageIndex: 0, status: .failed, error: "not read here"), id: "p",
                      outputs: ["documentText": "documents/" + name + ".txt"])
    }

    static func suffix(_ source: String) -> String {
        String(pageIdentifier(source: source, pageIndex: 0, pageCount: 1).suffix(16))
    }

    @Test func eachInputIsNamedByItsPathBelowTheCommonFolder() {
        let names = DocumentNames(sources: ["/scans/a/x.png", "/scans/b/x.png", "/scans/b/report.PDF"])
        #expect(names.name(for: "/scans/a/x.png") == "a/x.png")
        #expect(names.name(for: "/scans/b/x.png") == "b/x.png")
        #expect(names.name(for: "/scans/b/report.PDF") == "b/report")
    }

    @Test func twoInputsOfOnePlainNameInOneRunTakeTwoNames() {
        let names = DocumentNames(sources: ["/s/x.pdf", "/s/x.PDF", "/s/y.tif", "/s/y.tif.pdf"])
        #expect(names.name(for: "/s/x.pdf") == "x")
        #expect(names.name(for: "/s/x.PDF") == "x-" + Self.suffix("/s/x.PDF"))
        #expect(names.name(for: "/s/y.tif") == "y.tif")
        #expect(names.name(for: "/s/y.tif.pdf") == "y.tif-" + Self.suffix("/s/y.tif.pdf"))
    }

    @Test func aNameAnEarlierRunGaveStaysItsInputs() {
        // box1 was read alone (its common folder box1/), box2 now: both are page001.png plainly.
        let earlier = [Self.recorded("/s/box1/page001.png", "page001.png")]
        let names = DocumentNames(sources: ["/s/box2/page001.png"], earlier: earlier)
        #expect(names.name(for: "/s/box2/page001.png") == "page001.png-" + Self.suffix("/s/box2/page001.png"))
        // Read again together, each keeps the name it has.
        let both = DocumentNames(sources: ["/s/box1/page001.png", "/s/box2/page001.png"],
                                 earlier: earlier + [Self.recorded("/s/box2/page001.png", names.name(for: "/s/box2/page001.png"))])
        #expect(both.name(for: "/s/box1/page001.png") == "page001.png")
        #expect(both.name(for: "/s/box2/page001.png") == names.name(for: "/s/box2/page001.png"))
        // A batch whose two inputs were given one name (before names were kept apart): the
        // first keeps it, the other is named anew.
        let shared = DocumentNames(sources: ["/s/box2/page001.png"],
                                   earlier: earlier + [Self.recorded("/s/box2/page001.png", "page001.png")])
        #expect(shared.name(for: "/s/box2/page001.png") == "page001.png-" + Self.suffix("/s/box2/page001.png"))
    }

    @Test func aFormFeedInAPagesTextIsNoPageBreak() {
        var typed = PageReport(source: "a.png", pageIndex: 0, status: .failed, error: "")
        typed.text = "num\u{0C}ber 8"
        var next = typed
        next.text = "page two"
        #expect(DocumentFiles.sidecar([typed, next]) == "num ber 8\n\u{0C}page two\n")
    }

    /// Two boxes of scans with the same file names, read into one batch in two runs: each input
    /// keeps its own text in `documents/`. Before, the second run's replaced the first's, and
    /// both pages linked the one file.
    @Test func twoRunsOfSameNamedFilesKeepTwoDocuments() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        for (box, fixture) in [("box1", "text/sans.png"), ("box2", "text/mono.png")] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/" + box, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: scratch.path + "/" + box + "/page001.png")
            let run = try Gloss.run(["annotate", scratch.path + "/" + box, "-o", output, "--no-faces", "--format", "json,txt", "--quiet"])
            #expect(run.status == 0, "\(run.standardError)")
        }
        let pages = try BatchTests.manifest(output).pages
        try #require(pages.count == 2)
        let texts = pages.compactMap { $0.outputs["documentText"] }
        #expect(Set(texts).count == 2, "\(texts)")
        for page in pages {
            let report = try PDFInputTests.report(page, in: output)
            let document = try String(contentsOfFile: output + "/" + page.outputs["documentText"]!, encoding: .utf8)
            #expect(document == report.text + "\n", "\(page.source)")
        }
    }
}

/// The running report (the whole manifest and front page, rewritten as pages finish) grows with
/// the batch: it is spaced so that it takes at most a tenth of the recorder's time.
@Suite struct RunningReportTests {
    @Test func aSlowerRewriteWaitsLongerBeforeTheNext() {
        #expect(BatchRecorder.rewriteGap(after: .milliseconds(15)) == .seconds(2), "a small batch: every two seconds")
        #expect(BatchRecorder.rewriteGap(after: .milliseconds(200)) == .seconds(2))
        #expect(BatchRecorder.rewriteGap(after: .milliseconds(900)) == .seconds(9))
        #expect(BatchRecorder.rewriteGap(after: .seconds(3)) == .seconds(30), "at 100,000 pages: a tenth of the time")
    }
}
