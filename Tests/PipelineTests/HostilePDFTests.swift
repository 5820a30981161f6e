import Foundation
import GlossContract
import GlossPipeline
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PDFs made to exhaust a reader (`fixtures/make-pdf-fixtures.py`, issue 26 cases 10 and 11):
/// each page fails alone, for its own reason and within seconds, and the batch goes on. Timed
/// (Tests/timed-suites): it asserts wall-clock bounds.
@Suite(.serialized)
struct HostilePDFTests {
    /// The words each hostile PDF's page must fail with.
    static let expected: [String: String] = [
        "image-bomb.pdf": "the page draws an image of 30000x30000 = 900000000 pixels, above the limit of 20000000 (see --max-pixels)",
        "many-operations.pdf": "timed out after 6 s (decode)",
        "page-tree-loop.pdf": "page 1 cannot be read from the page tree",
        "deep-nesting.pdf": "drawing the page needs more than the",
    ]

    /// The four in one batch with a blank page, under a small pixel limit and a timeout.
    @Test func aBatchOfHostilePDFsFailsEachPageForItsReason() throws {
        let scratch = try ScratchFolder()
        let inputs = Self.expected.keys.sorted().map { Fixtures.path("bad/" + $0) } + [Fixtures.path("odd/one-pixel.png")]
        let start = ContinuousClock.now
        let run = try Gloss.run(["annotate"] + inputs + ["-o", scratch.path + "/out", "--no-faces", "--jobs", "2",
                                                         "--timeout", "6", "--max-pixels", "20000000"])
        let elapsed = ContinuousClock.now - start
        #expect(run.status == 1, "\(run.standardError)")
        let problems = Gloss.problems(in: run.standardError)
        for (name, reason) in Self.expected {
            let mine = problems.filter { $0.contains("/" + name) }
            #expect(mine.count == 1 && mine.first?.contains(reason) == true, "\(name): \(mine)")
        }
        #expect(problems.count == Self.expected.count, "\(problems)")
        let manifest = try BatchTests.manifest(scratch.path + "/out")
        #expect(manifest.pages.filter { $0.status == .ok }.map { ($0.source as NSString).lastPathComponent } == ["one-pixel.png"])
        // Four hostile pages and a blank one on two workers: a few seconds each at most (the
        // timeout is 6 s; the renderer of the deep nesting fills its memory in about 4 s).
        #expect(elapsed < .seconds(20), "\(elapsed)")
    }

    /// Three million operands before the page's first operator, in 692 bytes: the reading of a
    /// PDF input's own text (for its graft) holds none of them, and the page is read. It held
    /// every one until their operator: 958 MB (3.6 GB for twelve million, in 40 KB).
    @Test func anOperandFloodIsReadInLittleMemory() throws {
        let scratch = try ScratchFolder()
        let run = try ProgramRun.run("/usr/bin/time", ["-f", "peak %M KB", Gloss.executable, "annotate", Fixtures.path("bad/operand-flood.pdf"),
                                                       "-o", scratch.path + "/out", "--no-faces", "--format", "json,pdf", "--text", "fast", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let peak = run.standardError.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.split(separator: " ")[1]) }
        #expect((peak ?? .max) < 400_000, "\(run.standardError)")
    }

    /// The image bomb at the default limit: refused from its declared size, nothing decoded, in
    /// a fraction of the 3.6 GB and the minutes drawing it took.
    @Test func anImageBombIsRefusedBeforeItIsDecoded() throws {
        let start = ContinuousClock.now
        let run = try Gloss.run(["ocr", Fixtures.path("bad/image-bomb.pdf")])
        #expect(run.status == 1)
        #expect(run.standardError.contains("draws an image of 30000x30000 = 900000000 pixels, above the limit of 150000000 (see --max-pixels)"),
                "\(run.standardError)")
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    /// Ctrl-C while Poppler draws a page of six million operations: the batch stops within a
    /// second, and the page is cancelled in the stage that was drawing it.
    @Test func anInterruptStopsAPageBeingDrawn() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let process = try Gloss.start(["annotate", Fixtures.path("bad/many-operations.pdf"), "-o", output, "--no-faces",
                                       "--jobs", "1"])
        // The page is being drawn once its file is read and hashed (a fraction of a second).
        Thread.sleep(forTimeInterval: 1.5)
        #expect(process.isRunning, "the page takes far longer than this to draw")
        let drawing = Self.renderers(of: process.processIdentifier)
        #expect(drawing.count == 1, "one gloss-render draws the page")
        let interrupted = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        // A second, as the issue asks of a release build; a sanitizer's build exits slower.
        #expect(ContinuousClock.now - interrupted < .seconds(Sanitizers.areOn ? 5 : 1), "\(ContinuousClock.now - interrupted)")
        #expect(process.terminationStatus == 130)
        let page = try #require(try BatchTests.manifest(output).pages.first)
        #expect(page.status == .cancelled)
        #expect(page.error?.hasSuffix("cancelled (decode)") == true, "\(page.error ?? "")")
        for child in drawing {
            #expect(!FileManager.default.fileExists(atPath: "/proc/\(child)"), "gloss-render \(child) is left behind")
        }
    }

    /// The `gloss-render` processes whose parent is `parent`.
    static func renderers(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  stat.contains("(gloss-render)"), let close = stat.range(of: ")") else { return nil }
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }
}
