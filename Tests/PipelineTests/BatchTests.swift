import Foundation
import GlossContract
import GlossImaging
@testable import GlossIndex
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A batch as archives run it: long, interrupted, killed, re-run.
@Suite(.serialized)
struct BatchTests {
    /// Six copies of a text page, so a batch has something in flight when it is stopped.
    static func copies(into folder: String, count: Int = 6) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try (1...count).map { number in
            let path = folder + "/page-\(number).png"
            try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: path)
            return path
        }
    }

    /// The text fixture tiled 4x4: a page whose recognition takes seconds, to be interrupted.
    static func writeBigTextPage(to path: String, tiles: Int = 4) throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        var tiled = [UInt8]()
        for y in 0..<(page.height * tiles) {
            let row = page.pixels[(y % page.height) * page.width..<(y % page.height + 1) * page.width]
            for _ in 0..<tiles { tiled += row }
        }
        try Data(try Raster(width: page.width * tiles, height: page.height * tiles, layout: .gray, pixels: tiled).pngData())
            .write(to: URL(fileURLWithPath: path))
    }

    /// Starts a batch of six pages from `scratch/in` into `scratch/out`, sends `signal` once it
    /// has finished `pages` pages, and returns its exit status.
    static func interruptBatch(in scratch: ScratchFolder, with signal: Int32, afterPages pages: Int) throws -> Int32 {
        _ = try copies(into: scratch.path + "/in")
        let process = try Gloss.start(["annotate", scratch.path + "/in", "-o", scratch.path + "/out", "--jobs", "1", "--no-faces"])
        try waitForJournal(scratch.path + "/out", pages: pages)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func manifest(_ folder: String) throws -> BatchManifest {
        try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/gloss.json"))))
    }

    /// Waits until the running batch has finished at least `pages` pages (its journal says so).
    static func waitForJournal(_ folder: String, pages: Int) throws {
        for _ in 0..<600 {
            let journal = (try? String(contentsOfFile: folder + "/gloss.journal", encoding: .utf8)) ?? ""
            if journal.split(separator: "\n").count >= pages { return }
            usleep(50_000)
        }
        Issue.record("the batch finished no page in 30 s")
    }

    @Test func aRerunSkipsFinishedPagesAndForceRedoesThem() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copies(into: scratch.path + "/in", count: 2)
        let output = scratch.path + "/out"
        let first = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--no-faces"])
        #expect(first.status == 0, "\(first.standardError)")
        let json = output + "/" + (try Self.manifest(output).pages[0].outputs["json"]!)
        let written = try FileManager.default.attributesOfItem(atPath: json)[.modificationDate] as? Date

        let second = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--no-faces"])
        #expect(second.status == 0)
        #expect(!second.standardError.contains("gloss: ok "), "nothing is read again: \(second.standardError)")
        #expect(try Self.manifest(output).pages.map(\.status) == [.ok, .ok])
        #expect(try FileManager.default.attributesOfItem(atPath: json)[.modificationDate] as? Date == written)

        let changedSettings = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--no-faces", "--psm", "6"])
        #expect(changedSettings.standardError.components(separatedBy: "gloss: ok ").count == 3, "other settings, other results")
        let forced = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--no-faces", "--psm", "6", "--force"])
        #expect(forced.standardError.components(separatedBy: "gloss: ok ").count == 3)
    }

    /// A page is recorded before its input's document files are written from the reports; a
    /// run killed between the two (the cluster test's `kill -9` once landed there) leaves the
    /// document missing. The next run skips the page and writes the document again.
    @Test func aPageWhoseDocumentWasNotWrittenIsSkippedAndItsDocumentWritten() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copies(into: scratch.path + "/in", count: 2)
        let output = scratch.path + "/out"
        let options = ["--no-faces", "--format", "html,json,txt"]
        let first = try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + options)
        #expect(first.status == 0, "\(first.standardError)")
        let entry = try Self.manifest(output).pages[0]
        let document = output + "/" + (try #require(entry.outputs["documentText"]))
        let text = try String(contentsOfFile: document, encoding: .utf8)
        #expect(!text.isEmpty)
        try FileManager.default.removeItem(atPath: document)

        let second = try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + options)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(!second.standardError.contains("gloss: ok "), "nothing is read again: \(second.standardError)")
        #expect(try String(contentsOfFile: document, encoding: .utf8) == text)
    }

    /// A run killed after recording a changed input's page and before writing its document
    /// leaves the old document, older than the page's files: the next run reads nothing again
    /// and writes the document anew instead of keeping it for being there.
    @Test func aDocumentOlderThanItsPagesIsWrittenAgain() throws {
        let scratch = try ScratchFolder()
        _ = try Self.copies(into: scratch.path + "/in", count: 1)
        let output = scratch.path + "/out"
        let options = ["--no-faces", "--format", "json,pdf"]
        #expect(try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + options).status == 0)
        let entry = try Self.manifest(output).pages[0]
        let document = output + "/" + (try #require(entry.outputs["document"]))
        let pagePDF = output + "/" + (try #require(entry.outputs["pdf"]))
        // What the killed run left: the document of before, an hour older than the page.
        try FileManager.default.removeItem(atPath: document)
        try Data("%PDF-1.4 of an earlier reading\n".utf8).write(to: URL(fileURLWithPath: document))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: document)

        let second = try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + options)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(!second.standardError.contains("gloss: ok "), "nothing is read again: \(second.standardError)")
        #expect(FileManager.default.contents(atPath: document) == FileManager.default.contents(atPath: pagePDF))
    }

    @Test func aPageOverItsTimeIsTimedOutAndTheNextStillSucceeds() throws {
        let scratch = try ScratchFolder()
        // A big page takes seconds; one line of text, a fraction of one.
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        var line = [UInt8]()
        for y in 60..<130 { line += page.pixels[y * page.width..<(y + 1) * page.width] }
        let bigPath = scratch.path + "/a-big.png", linePath = scratch.path + "/b-line.png"
        // Eight by eight: four by four read in under the 2 s on an idle machine.
        try Self.writeBigTextPage(to: bigPath, tiles: 8)
        try Data(try Raster(width: page.width, height: 70, layout: .gray, pixels: line).pngData())
            .write(to: URL(fileURLWithPath: linePath))

        // Two seconds: under ThreadSanitizer, beside the rest of the suite, the line alone once took over 0.5 s.
        let run = try Gloss.run(["annotate", bigPath, linePath, "-o", scratch.path + "/out", "--timeout", "2", "--jobs", "1",
                                 "--no-faces"])
        #expect(run.status == 1)
        let pages = try Self.manifest(scratch.path + "/out").pages
        #expect(pages.map(\.status) == [.timedOut, .ok], "\(run.standardError)")
        #expect(pages[0].error?.contains("timed out after 2 s") == true, "\(pages[0].error ?? "")")
        #expect(pages[0].outputs.isEmpty, "a timed-out page writes nothing")
        #expect(pages[1].words >= 3)
        #expect(run.standardError.split(separator: "\n").filter { $0.contains("a-big.png") }.count == 1)
    }

    @Test func sigintStopsCleanlyAndARerunFinishesTheRest() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let status = try Self.interruptBatch(in: scratch, with: SIGINT, afterPages: 1)
        #expect(status == 130)
        let stopped = try Self.manifest(output).pages
        let done = stopped.filter { $0.status == .ok }.count
        #expect(done >= 1 && done < 6)
        #expect(stopped.allSatisfy { $0.status == .ok || $0.status == .cancelled })

        let rerun = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--jobs", "1", "--no-faces"])
        #expect(rerun.status == 0)
        #expect(try Self.manifest(output).pages.map(\.status) == Array(repeating: .ok, count: 6))
        #expect(rerun.standardError.components(separatedBy: "gloss: ok ").count - 1 == 6 - done, "done pages are skipped")
    }

    @Test func afterKillNineARerunCompletesWithNoTruncatedFile() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        _ = try Self.interruptBatch(in: scratch, with: SIGKILL, afterPages: 2)
        let killed = try BatchIndex(folder: output, create: false)
        #expect(try killed.integrityProblems().isEmpty, "the database is whole after kill -9")
        #expect(try killed.pages().count >= 2, "pages journalled are in the database too")

        let rerun = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--jobs", "1", "--no-faces"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let pages = try Self.manifest(output).pages
        #expect(pages.count == 6 && pages.allSatisfy { $0.status == .ok })
        #expect(rerun.standardError.components(separatedBy: "gloss: ok ").count - 1 <= 4, "journalled pages are kept")
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) {
            #expect(!path.contains(".tmp-"), "leftover \(path)")
            if path.hasSuffix(".json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: output + "/" + path))
                #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(path) is not whole")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: output + "/gloss.journal"))
        let index = try BatchIndex(folder: output, create: false)
        #expect(try index.integrityProblems().isEmpty)
        #expect(try index.pages().map(\.name) == pages.map(\.id), "the database and the manifest agree")
        #expect(try index.search("harbour").count == 6)
    }
}
