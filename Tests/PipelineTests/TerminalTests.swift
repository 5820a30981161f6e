import Foundation
import GlossContract
@testable import GlossCommandLine
import GlossPipeline
import GlossTestSupport
import Testing

/// What `gloss annotate` and `gloss search` tell a person on the terminal.
@Suite(.serialized)
struct TerminalTests {
    @Test func theSummaryCountsPagesWordsAndTimeAndSaysWhereToLook() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let inputs = [Fixtures.path("text/sans.png"), Fixtures.path("text/two-pages.tif"), Fixtures.path("bad/truncated.png")]
        let run = try Gloss.run(["annotate"] + inputs + ["-o", output, "--no-faces"])
        #expect(run.status == 1)
        let manifest = try BatchTests.manifest(output)
        let words = manifest.pages.map(\.words).reduce(0, +)
        #expect(words > 30)
        let lines = run.standardError.split(separator: "\n").map(String.init)
        let summary = Array(lines.drop { !$0.hasPrefix("gloss: done in ") })
        #expect(summary.count == 3, "\(run.standardError)")
        #expect(summary.first?.range(of: #"^gloss: done in [0-9.]+s: 3 pages read, 1 failed$"#, options: .regularExpression) != nil,
                "\(summary)")
        #expect(summary.dropFirst().first == "gloss: \(words) words, 0 faces", "\(summary)")
        #expect(summary.last == "gloss: open \(output)/index.html, or search: gloss search \(output) WORD", "\(summary)")

        let again = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", output, "--no-faces"])
        #expect(again.status == 0)
        let first = again.standardError.split(separator: "\n").first { $0.hasPrefix("gloss: done in ") }
        #expect(first?.hasSuffix(": 0 pages read, 1 skipped (finished in an earlier run), 0 failed") == true, "\(again.standardError)")

        let one = try Gloss.run(["annotate", Fixtures.path("formats/page.pgm"), "-o", scratch.path + "/one", "--no-faces"])
        #expect(one.status == 0)
        #expect(one.standardError.contains(": 1 page read, 0 failed\n"), "\(one.standardError)")
        #expect(!one.standardError.contains(" 1 pages") && !one.standardError.contains(" 1 words"), "\(one.standardError)")

        let quiet = try Gloss.run(["annotate", Fixtures.path("formats/page.pgm"), "-o", scratch.path + "/quiet", "--no-faces", "-q"])
        #expect(quiet.status == 0 && quiet.standardError.isEmpty, "\(quiet.standardError)")
    }

    @Test func summaryLinesSayOneAndManyAndQuoteAFolderForTheShell() {
        var tally = BatchTally()
        tally.read = 1
        tally.words = 1
        tally.faces = 1
        tally.suspect = 1
        let one = BatchSummary(tally: tally, elapsed: .seconds(75), folder: "my out").lines
        #expect(one == ["done in 1m15s: 1 page read, 0 failed", "1 word, 1 face; 1 page suspect (text may be missing)",
                        "open my out/index.html, or search: gloss search 'my out' WORD"])
        tally = BatchTally()
        tally.read = 5
        tally.skipped = 2
        tally.failed = 1
        tally.suspect = 2
        let many = BatchSummary(tally: tally, elapsed: .milliseconds(2345), folder: "out").lines
        #expect(many[0] == "done in 2.3s: 4 pages read, 2 skipped (finished in an earlier run), 1 failed")
        #expect(many[1] == "0 words, 0 faces; 2 pages suspect (text may be missing)")
        #expect(BatchSummary.format(.seconds(7322)) == "2h02m")
        #expect(BatchSummary.shellWord("it's") == #"'it'\''s'"#)
    }

    @Test func aMissingInputIsAUsageErrorAndWritesNothing() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out/nested"
        let missing = scratch.path + "/no-such-folder"
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), missing, "-o", output])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("gloss: no such file or folder: \(missing)\n"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out"))
    }

    @Test func anInputWithNothingToReadSaysSoAndLeavesNoFolder() throws {
        let scratch = try ScratchFolder()
        let empty = scratch.path + "/empty", texts = scratch.path + "/texts"
        for folder in [empty, texts] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: texts + "/notes.txt"))
        for input in [empty, texts] {
            let run = try Gloss.run(["annotate", input, "-o", scratch.path + "/out/batch"])
            #expect(run.status == 1)
            #expect(run.standardError.hasPrefix("gloss: nothing to read in \(input): no image or PDF files"), "\(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out"))
        }

        // An earlier batch in the folder stays as it was.
        let batch = scratch.path + "/batch"
        #expect(try Gloss.run(["annotate", Fixtures.path("formats/page.pgm"), "-o", batch, "--no-faces", "-q"]).status == 0)
        let before = try FileManager.default.subpathsOfDirectory(atPath: batch).sorted()
        let manifest = try Data(contentsOf: URL(fileURLWithPath: batch + "/gloss.json"))
        #expect(try Gloss.run(["annotate", empty, "-o", batch]).status == 1)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: batch).sorted() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: batch + "/gloss.json")) == manifest)
    }

    @Test func searchPrintsRanksAndThePageFileToOpen() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        #expect(try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), Fixtures.path("text/sans.png"), "-o", output,
                               "--no-faces", "-q"]).status == 0)
        let json = try Gloss.run(["search", output, "the", "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count >= 2)
        #expect(results.map { $0["rank"] as? Int } == Array(1...results.count))
        for result in results {
            let file = try #require(result["file"] as? String)
            #expect(file == output + "/" + (result["html"] as? String ?? "?"))
            #expect(FileManager.default.fileExists(atPath: file))
            #expect(result["score"] is Double && result["source"] is String, "the keys scripts had stay")
        }

        let text = try Gloss.run(["search", output, "the"])
        #expect(text.status == 0)
        let heads = text.standardOutput.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(heads.count == results.count, "\(text.standardOutput)")
        for (position, (head, result)) in zip(heads, results).enumerated() {
            #expect(head == "\(position + 1). \(result["file"]!)  (\(result["source"]!), page \(result["page"]!))")
        }
        #expect(!text.standardOutput.contains("score"), "no bm25 figure for people")
    }

    @Test func aMissingBatchFolderIsAUsageError() throws {
        let scratch = try ScratchFolder()
        let run = try Gloss.run(["search", scratch.path + "/nothing-here", "word"])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("gloss: \(scratch.path)/nothing-here: no such batch folder\n"), "\(run.standardError)")
    }
}

/// The progress display, driven with a clock and a terminal of the test's.
struct ProgressDisplayTests {
    final class Screen: @unchecked Sendable {
        var text = ""
        var now = ContinuousClock.now
        let width: Int

        init(width: Int) { self.width = width }

        func output(interactive: Bool) -> ProgressDisplay.Output {
            ProgressDisplay.Output(interactive: interactive, width: { self.width }, now: { self.now },
                                   write: { self.text += $0 })
        }

        /// The line now shown: what follows the last carriage return and clear.
        var shownLine: String { String(text.components(separatedBy: "\r\u{1B}[2K").last ?? "") }
    }

    /// A finished page's manifest line, as the batch reports it.
    static func entry(_ source: String, words: Int = 12) -> ManifestEntry {
        let name = String(decoding: try! JSONEncoder().encode(source), as: UTF8.self)
        let json = #"{"source":\#(name),"pageIndex":0,"id":"x","status":"ok","words":\#(words),"faces":0,"outputs":{}}"#
        return try! JSONOutput.decode(ManifestEntry.self, from: Array(json.utf8))
    }

    @Test func theLineShowsTheFileInFlightShortenedAndTheTimeSoFar() {
        let screen = Screen(width: 100)
        let display = ProgressDisplay(quiet: false, output: screen.output(interactive: true))
        display.show(.started(files: 3))
        display.show(.pageFinished(Self.entry("a.png")))
        let long = "/archive/scans/" + String(repeating: "very-long-folder-name/", count: 8) + "box 12\u{1B}[31m/0042.jpg"
        display.show(.pageStarted(source: long, pageIndex: 0))
        screen.now += .seconds(50)
        display.tick()
        let line = screen.shownLine
        // The rate gives way to the name on a narrow terminal.
        #expect(line.hasPrefix("gloss: 1/3 files · 1 page · 0 failed · ETA 1m40s · 50s · /archive/"), "\(line)")
        #expect(line.hasSuffix("…box 12\\x1B[31m/0042.jpg (50s)"), "the end of the name stays: \(line)")
        #expect(line.count == 99, "\(line.count): \(line)")
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B }, "the name is escaped")

        display.show(.pageFinished(Self.entry(long)))
        #expect(!screen.shownLine.contains("0042"), "a finished page leaves the line")
        #expect(screen.shownLine.contains(" · 2 pages · 0 failed · 2 pages/min · ETA 25s · 50s"), "\(screen.shownLine)")
        display.close()
        #expect(screen.text.hasSuffix("\r\u{1B}[2K"))
    }

    /// The line is measured in the terminal's columns: a name of wide characters (two columns
    /// each) or a terminal narrower than the counts does not wrap, which the next redraw's
    /// clearing of one row would leave on the screen.
    @Test func theLineFitsTheTerminalsColumnsWhateverItsCharacters() {
        for (width, name) in [(100, String(repeating: "文書", count: 30) + ".webp"), (100, "scans/" + String(repeating: "é", count: 90) + ".png"),
                              (40, "a.png")] {
            let screen = Screen(width: width)
            let display = ProgressDisplay(quiet: false, output: screen.output(interactive: true))
            display.show(.started(files: 3))
            display.show(.pageStarted(source: name, pageIndex: 0))
            screen.now += .seconds(5)
            display.tick()
            let line = screen.shownLine
            #expect(TerminalText.columns(line) <= width - 1 && TerminalText.columns(line) >= width - 12, "\(width): \(line)")
            #expect(width < 100 || line.hasSuffix(".webp (5.0s)") || line.hasSuffix(".png (5.0s)"), "the name's end stays: \(line)")
        }
        #expect(TerminalText.columns("文書a\u{301}") == 5, "two wide, one with a joining accent")
    }

    @Test func aLogGetsALinePerPageWithItsTimeAndOneWhenAPageRunsLong() {
        let screen = Screen(width: 80)
        let display = ProgressDisplay(quiet: false, output: screen.output(interactive: false))
        display.show(.started(files: 2))
        display.show(.pageStarted(source: "slow.png", pageIndex: 0))
        for _ in 0..<29 {
            screen.now += .seconds(1)
            display.tick()
        }
        #expect(screen.text.isEmpty, "nothing before 30 s: \(screen.text)")
        for _ in 0..<40 {
            screen.now += .seconds(1)
            display.tick()
        }
        #expect(screen.text == "gloss: still reading slow.png (30s)\ngloss: still reading slow.png (1m00s)\n", "\(screen.text)")
        screen.text = ""
        screen.now += .seconds(5)
        display.show(.pageFinished(Self.entry("slow.png", words: 1)))
        #expect(screen.text == "gloss: ok slow.png: 1 word, 0 faces in 1m14s\n", "\(screen.text)")
        #expect(display.tally.read == 1 && display.tally.words == 1)
    }

    @Test func quietShowsOnlyErrors() {
        let screen = Screen(width: 80)
        let display = ProgressDisplay(quiet: true, output: screen.output(interactive: true))
        display.show(.started(files: 1))
        display.show(.pageStarted(source: "a.png", pageIndex: 0))
        screen.now += .seconds(100)
        display.tick()
        display.show(.pageFinished(Self.entry("a.png")))
        #expect(screen.text.isEmpty)
    }
}
