import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

/// What a run into an earlier batch keeps, makes again and refuses: a file's documents without
/// page JSON, an input that cannot be opened now, a record that does not read.
@Suite(.serialized)
struct ResumedRunTests {
    static let reading = ["--no-faces", "--text", "fast"]

    static func copy(_ fixture: String, into folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + (fixture as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: path)
        return path
    }

    /// Without `json`, a page kept has no report to make its file's documents from: they were
    /// never made again once deleted (or left stale), and the run said all was well.
    @Test func aMultiPageFilesDocumentsComeBackWithoutPageJSON() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copy("text/two-pages.tif", into: scratch.path + "/in")
        let output = scratch.path + "/out"
        let arguments = ["annotate", scratch.path + "/in", "-o", output, "--format", "hocr,txt"] + Self.reading
        let first = try Gloss.run(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let manifest = try BatchTests.manifest(output)
        let text = try #require(manifest.pages.first?.outputs["documentText"])
        let combined = try FileManager.default.contentsOfDirectory(atPath: output + "/pages")
            .filter { $0.hasSuffix(".hocr") && !$0.contains("-p1.") && !$0.contains("-p2.") }
        try #require(combined.count == 1, "\(combined)")
        let written = try String(contentsOfFile: output + "/" + text, encoding: .utf8)

        // Nothing missing: nothing is read again.
        let kept = try Gloss.run(arguments)
        #expect(kept.status == 0 && kept.standardError.contains("0 pages read, 2 skipped"), "\(kept.standardError)")

        for file in [output + "/" + text, output + "/pages/" + combined[0]] { try FileManager.default.removeItem(atPath: file) }
        let again = try Gloss.run(arguments)
        #expect(again.status == 0 && again.standardError.contains("2 pages read"), "\(again.standardError)")
        #expect(try String(contentsOfFile: output + "/" + text, encoding: .utf8) == written)
        #expect(FileManager.default.fileExists(atPath: output + "/pages/" + combined[0]))
    }

    /// A format added (or a display size changed) reads no page again: each page's files are
    /// written from its JSON. A setting that changes the reading reads them again.
    @Test func anotherFormatIsWrittenFromTheReadingWithoutReadingAgain() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copy("text/two-pages.tif", into: scratch.path + "/in")
        _ = try Self.copy("text/sans.png", into: scratch.path + "/in")
        let output = scratch.path + "/out"
        let read = ["annotate", scratch.path + "/in", "-o", output] + Self.reading
        let first = try Gloss.run(read + ["--format", "html,json"])
        #expect(first.status == 0 && first.standardError.contains("3 pages read"), "\(first.standardError)")
        let pages = try BatchTests.manifest(output).pages
        let json = try pages.map { try Data(contentsOf: URL(fileURLWithPath: output + "/" + $0.outputs["json"]!)) }

        let more = try Gloss.run(read + ["--format", "html,json,alto,txt"])
        #expect(more.status == 0 && more.standardError.contains("0 pages read, 3 written again from an earlier reading"),
                "\(more.standardError)")
        let after = try BatchTests.manifest(output).pages
        #expect(after.map(\.id) == pages.map(\.id))
        for (page, before) in zip(after, json) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: output + "/" + page.outputs["json"]!)) == before, "not read again")
            let alto = try String(contentsOfFile: output + "/" + (try #require(page.outputs["alto"])), encoding: .utf8)
            #expect(page.words > 0 && alto.components(separatedBy: "<String ").count - 1 == page.words, "\(page.id)")
            #expect(FileManager.default.fileExists(atPath: output + "/" + page.outputs["html"]!))
        }
        #expect(after.first { $0.source.hasSuffix("two-pages.tif") }?.outputs["documentText"] != nil)

        let same = try Gloss.run(read + ["--format", "html,json,alto,txt"])
        #expect(same.standardError.contains("0 pages read, 3 skipped"), "\(same.standardError)")
        let reread = try Gloss.run(read + ["--format", "html,json,alto,txt", "--prepare", "none"])
        #expect(reread.standardError.contains("3 pages read, 0 failed"), "\(reread.standardError)")
    }

    /// What a page written again from its JSON must not do: keep corrections a run discards,
    /// lose its reading's fingerprint to a correction, trap on a damaged JSON, or leave the
    /// combined files of a format no longer asked for.
    @Test func aRewriteStopsWhereTheReadingOrItsRecordsChange() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copy("text/two-pages.tif", into: scratch.path + "/in")
        let sans = try Self.copy("text/sans.png", into: scratch.path + "/in")
        let output = scratch.path + "/out"
        let read = ["annotate", scratch.path + "/in", "-o", output] + Self.reading
        #expect(try Gloss.run(read + ["--format", "html,json,alto"]).status == 0)
        let combined = try FileManager.default.contentsOfDirectory(atPath: output + "/pages")
            .filter { $0.hasPrefix("two-pages") && $0.hasSuffix(".alto.xml") && !$0.contains("-p1.") && !$0.contains("-p2.") }
        try #require(combined.count == 1, "\(combined)")

        // A correction keeps the page's reading fingerprint: a format added writes it again.
        let page = try #require(try BatchTests.manifest(output).pages.first { $0.source == sans })
        let report = try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/" + page.outputs["json"]!))))
        let retype = try Correction.retype(1, to: "Quixotic", on: report, page: page.id, by: "Ana")
        try Data(try JSONOutput.encode(CorrectionFile(corrections: [retype], versions: [:]))).write(to: URL(fileURLWithPath: scratch.path + "/fix.json"))
        let corrected = try Gloss.run(["correct", output, scratch.path + "/fix.json"])
        #expect(corrected.status == 0, "\(corrected.standardError)")
        #expect(try BatchTests.manifest(output).pages.first { $0.source == sans }?.readingHash == page.readingHash)
        let added = try Gloss.run(read + ["--format", "html,json,alto,txt"])
        #expect(added.standardError.contains("0 pages read, 3 written again"), "\(added.standardError)")

        // A format dropped takes the combined file of a multi-page input with it.
        let dropped = try Gloss.run(read + ["--format", "html,json,txt"])
        #expect(dropped.standardError.contains("0 pages read, 3 written again"), "\(dropped.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output + "/pages/" + combined[0]))

        // Corrections discarded: the corrected page is read again, as it was before them.
        let discarded = try Gloss.run(read + ["--format", "html,json", "--discard-corrections"])
        #expect(discarded.standardError.contains("1 page read, 2 written again"), "\(discarded.standardError)")
        let json = try #require(try BatchTests.manifest(output).pages.first { $0.source == sans }?.outputs["json"])
        #expect(try !String(contentsOfFile: output + "/" + json, encoding: .utf8).contains("Quixotic"))

        // A page JSON edited out of its page's bounds is read again, and the batch goes on.
        var text = try String(contentsOfFile: output + "/" + json, encoding: .utf8)
        let x = try #require(text.range(of: #""x" : \d+"#, options: .regularExpression))
        text.replaceSubrange(x, with: "\"x\" : 9223372036854775000")
        try text.write(toFile: output + "/" + json, atomically: true, encoding: .utf8)
        let damaged = try Gloss.run(read + ["--format", "html,json,hocr"])
        #expect(damaged.status == 0 && damaged.standardError.contains("1 page read, 2 written again"), "\(damaged.standardError)")
    }

    /// Faces are found on a copy made from the display copy when there is one: a display copy
    /// added (the page view) reads the page again where faces are found.
    @Test func aDisplayCopyAddedReadsAgainWhereFacesAreFound() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copy("faces/astronaut.png", into: scratch.path + "/in")
        let read = ["annotate", scratch.path + "/in", "-o", scratch.path + "/out", "--text", "fast"]
        #expect(try Gloss.run(read + ["--format", "json"]).status == 0)
        let alto = try Gloss.run(read + ["--format", "json,alto"])
        #expect(alto.standardError.contains("0 pages read, 1 written again"), "\(alto.standardError)")
        let html = try Gloss.run(read + ["--format", "html,json,alto"])
        #expect(html.standardError.contains("1 page read, 0 failed"), "\(html.standardError)")
    }

    /// An input that cannot be opened now keeps the pages an earlier run read, though they were
    /// read under other settings: a failure is not written over good pages.
    @Test func anInputNotOpenedKeepsItsPagesReadUnderOtherSettings() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copy("text/two-pages.tif", into: scratch.path + "/in")
        let output = scratch.path + "/out"
        let first = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--format", "html,json"] + Self.reading)
        #expect(first.status == 0, "\(first.standardError)")
        let pages = try BatchTests.manifest(output).pages
        try #require(pages.count == 2 && pages.allSatisfy { $0.status == .ok })

        let refused = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--format", "html,json,txt",
                                     "--max-file-size", "1K"] + Self.reading)
        #expect(refused.standardError.contains("its 2 pages as read before are kept"), "\(refused.standardError)")
        let after = try BatchTests.manifest(output).pages
        #expect(after.map(\.id) == pages.map(\.id) && after.allSatisfy { $0.status == .ok }, "\(after)")
        for page in after {
            for path in page.outputs.values { #expect(FileManager.default.fileExists(atPath: output + "/" + path), "\(path)") }
        }
        // Readable again, the pages are written as the settings ask (another format: from their reading).
        let read = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--format", "html,json,txt"] + Self.reading)
        #expect(read.status == 0 && read.standardError.contains("2 written again from an earlier reading"), "\(read.standardError)")
        #expect(try BatchTests.manifest(output).pages.allSatisfy { $0.outputs["txt"] != nil })
    }

    /// An input not opened now keeps its failed pages as recorded beside its good ones.
    @Test func anInputNotOpenedKeepsItsFailedPagesToo() throws {
        let scratch = try ScratchFolder()
        let input = try Self.copy("bad/broken-second-page.tif", into: scratch.path + "/in")
        let output = scratch.path + "/out"
        let read = ["annotate", scratch.path + "/in", "-o", output, "--format", "html,json"] + Self.reading
        _ = try Gloss.run(read)
        let pages = try BatchTests.manifest(output).pages
        try #require(pages.map(\.status) == [.ok, .failed], "\(pages)")
        try Data((0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: URL(fileURLWithPath: input))
        let kept = try Gloss.run(read)
        #expect(kept.standardError.contains("its 2 pages as read before are kept"), "\(kept.standardError)")
        #expect(try BatchTests.manifest(output).pages.map(\.id) == pages.map(\.id))
    }

    /// A `gloss.json` that does not read (a newer Gloss's) was taken for no earlier run: the
    /// pages of inputs not named again left the records, their files left behind.
    @Test func aRecordThatDoesNotReadRefusesTheRun() throws {
        let scratch = try ScratchFolder()
        let sans = try Self.copy("text/sans.png", into: scratch.path + "/a")
        let serif = try Self.copy("text/serif.png", into: scratch.path + "/b")
        let output = scratch.path + "/out"
        let first = try Gloss.run(["annotate", sans, serif, "-o", output, "--format", "html,json"] + Self.reading)
        #expect(first.status == 0, "\(first.standardError)")
        let record = output + "/gloss.json"
        let newer = try String(contentsOfFile: record, encoding: .utf8).replacingOccurrences(of: "\"status\" : \"ok\"",
                                                                                          with: "\"status\" : \"deferred\"")
        try #require(newer.contains("deferred"))
        try newer.write(toFile: record, atomically: true, encoding: .utf8)
        let pagesBefore = try FileManager.default.contentsOfDirectory(atPath: output + "/pages").sorted()

        let run = try Gloss.run(["annotate", sans, "-o", output, "--format", "html,json"] + Self.reading)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("\(record): the batch's record does not read"), "\(run.standardError)")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == newer, "the record stays as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output + "/pages").sorted() == pagesBefore)
    }
}
