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
        // Readable again, the pages are read under the settings asked for.
        let read = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--format", "html,json,txt"] + Self.reading)
        #expect(read.status == 0 && read.standardError.contains("2 pages read"), "\(read.standardError)")
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
