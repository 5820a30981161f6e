import Foundation
import GlossContract
@testable import GlossCommandLine
import GlossPipeline
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A batch that loses its log reader or its terminal, or is stopped part-way: it goes on, or
/// stops cleanly, and says what it did and did not do.
@Suite(.serialized)
struct StoppedBatchTests {
    /// `gloss annotate` of `count` copies of a text page, one at a time, its stdout and stderr
    /// both into one pipe (as `2>&1 |` gives them), started.
    static func startBatch(in scratch: ScratchFolder, count: Int) throws -> (Process, Pipe) {
        _ = try BatchTests.copies(into: scratch.path + "/in", count: count)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Gloss.executable)
        process.arguments = ["annotate", scratch.path + "/in", "-o", scratch.path + "/out", "--jobs", "1", "--no-faces",
                             "--text", "fast"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return (process, pipe)
    }

    @Test func aLogReaderThatGoesAwayLeavesTheBatchToFinish() throws {
        let scratch = try ScratchFolder()
        let (process, pipe) = try Self.startBatch(in: scratch, count: 4)
        // As `grep -m1 ok` does: read up to the first page's line, then close the pipe.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("gloss: ok ") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        try pipe.fileHandleForReading.close()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "\(process.terminationReason.rawValue) \(process.terminationStatus)")
        let manifest = try BatchTests.manifest(scratch.path + "/out")
        #expect(manifest.pages.count == 4 && manifest.pages.allSatisfy { $0.status == .ok })
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/out/index.html"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out/gloss.journal"), "the run completed")
    }

    @Test func aHangupStopsTheBatchCleanlyAsSIGTERMDoes() throws {
        let scratch = try ScratchFolder()
        let status = try BatchTests.interruptBatch(in: scratch, with: SIGHUP, afterPages: 1)
        #expect(status == 130)
        let pages = try BatchTests.manifest(scratch.path + "/out").pages
        #expect(pages.contains { $0.status == .ok })
        #expect(pages.allSatisfy { $0.status == .ok || $0.status == .cancelled })
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/out/index.html"))
    }

    @Test func afterCtrlCTheSummaryAndTheIndexCountCancelledAndNotStartedApart() throws {
        let scratch = try ScratchFolder()
        let (process, pipe) = try Self.startBatch(in: scratch, count: 8)
        try BatchTests.waitForJournal(scratch.path + "/out", pages: 1)
        kill(process.processIdentifier, SIGINT)
        let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(log)")

        let manifest = try BatchTests.manifest(scratch.path + "/out")
        let read = manifest.pages.count(where: { $0.status == .ok })
        let cancelled = manifest.pages.count(where: { $0.status == .cancelled })
        let notStarted = 8 - manifest.pages.count
        #expect(read >= 1 && notStarted >= 1, "\(log)")
        #expect(manifest.pages.allSatisfy { $0.status == .ok || $0.status == .cancelled })
        #expect(manifest.notStarted == notStarted)

        let last = log.split(separator: "\n").last.map(String.init) ?? ""
        let counts = "\(read) page\(read == 1 ? "" : "s") read, " + (cancelled > 0 ? "\(cancelled) cancelled, " : "")
            + "0 failed, \(notStarted) input\(notStarted == 1 ? "" : "s") not started; "
        #expect(last.hasPrefix("gloss: interrupted after ") && last.contains(": " + counts), "\(log)")

        let index = try String(contentsOfFile: scratch.path + "/out/index.html", encoding: .utf8)
        let summary = "\(manifest.pages.count) page\(manifest.pages.count == 1 ? "" : "s") · 0 not read · "
            + (cancelled > 0 ? "\(cancelled) cancelled · " : "") + "\(notStarted) input\(notStarted == 1 ? "" : "s") not started · "
        #expect(index.contains(summary), "\(summary)")
    }

    @Test func theLiveLineCountsACancelledPageApartFromFailedOnes() {
        let screen = ProgressDisplayTests.Screen(width: 120)
        let display = ProgressDisplay(quiet: false, output: screen.output(interactive: true))
        display.show(.started(files: 5))
        display.show(.pageFinished(ProgressDisplayTests.entry("a.png")))
        var stopped = ProgressDisplayTests.entry("b.png")
        stopped.status = .cancelled
        stopped.error = "b.png: cancelled (ocr)"
        display.show(.pageFinished(stopped))
        #expect(screen.shownLine.hasPrefix("gloss: 2/5 files · 2 pages · 0 failed · 1 cancelled · "), "\(screen.shownLine)")
        let summary = BatchSummary(tally: display.tally, elapsed: .seconds(3), folder: "out")
        #expect(summary.counts == "1 page read, 1 cancelled, 0 failed, 3 inputs not started")
    }
}
