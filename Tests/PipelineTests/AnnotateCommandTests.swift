import Foundation
import GlossContract
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

/// The `gloss` binary run as a user runs it, on a folder of good and broken files.
@Suite(.serialized)
struct AnnotateCommandTests {
    static let hostileName = "<img src=x onerror=alert(1)>.png"

    @Test func aBatchWithBrokenFilesReadsTheRestAndSaysWhichFailed() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: input + "/nested", withIntermediateDirectories: true)
        for (fixture, name) in [("text/sans.png", "sans.png"), ("text/two-pages.tif", "nested/two-pages.tif"),
                                ("bad/empty.png", "empty.png"), ("bad/truncated.png", "truncated.png"),
                                ("bad/not-an-image.png", "not-an-image.png"), ("text/mono.png", Self.hostileName)] {
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: input + "/" + name)
        }

        let run = try Gloss.run(["annotate", input, "-o", output])
        #expect(run.status == 1)
        let errorLines = Gloss.problems(in: run.standardError)
        #expect(errorLines.count == 3, "\(run.standardError)")
        for name in ["empty.png", "truncated.png", "not-an-image.png"] {
            #expect(errorLines.filter { $0.contains("/in/" + name + ":") }.count == 1, "\(name): \(run.standardError)")
        }

        let manifest = try JSONOutput.decode(BatchManifest.self, from: try [UInt8](Data(contentsOf: URL(fileURLWithPath: output + "/gloss.json"))))
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == [
            Self.hostileName, "empty.png", "two-pages.tif", "two-pages.tif", "not-an-image.png", "sans.png", "truncated.png",
        ])
        #expect(manifest.pages.map(\.status) == [.ok, .failed, .ok, .ok, .failed, .ok, .failed])
        for entry in manifest.pages where entry.status == .ok {
            #expect(Set(entry.outputs.keys) == ["json", "html", "image", "thumbnail"])
            for file in entry.outputs.values {
                #expect(FileManager.default.fileExists(atPath: output + "/" + file), "\(file)")
            }
            let report = try JSONOutput.decode(PageReport.self, from: try [UInt8](Data(contentsOf: URL(fileURLWithPath: output + "/" + entry.outputs["json"]!))))
            #expect(report.words.count > 10)
            #expect(report.timings["ocr"] != nil && report.timings["decode"] != nil)
        }
        #expect(manifest.pages[2].id != manifest.pages[3].id)

        let hostile = try String(contentsOfFile: output + "/" + manifest.pages[0].outputs["html"]!, encoding: .utf8)
        #expect(hostile.contains("&lt;img src=x onerror=alert(1)&gt;.png"))
        #expect(!hostile.contains("<img src=x"))
        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(!index.contains("<img src=x"))
        #expect(index.contains("file is empty"))
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: output).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func ocrPrintsThePageJSON() throws {
        let run = try Gloss.run(["ocr", Fixtures.path("text/two-pages.tif"), "--page", "2"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONOutput.decode(PageReport.self, from: Array(run.standardOutput.utf8))
        let truth = try Fixtures.truth("text/two-pages.json")[1]
        #expect(report.pageIndex == 1 && report.width == truth.width && report.height == truth.height)
        #expect(characterAccuracy(report.text, expected: truth.text) >= 0.98)
        #expect(run.standardError.isEmpty)
    }

    @Test func ocrOfABrokenFileFailsWithOneLine() throws {
        let path = Fixtures.path("bad/truncated.png")
        let run = try Gloss.run(["ocr", path])
        #expect(run.status == 1)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(path))
    }

    @Test(arguments: [
        ["annotate", "x.png"], ["annotate", "-o"], ["frobnicate"], ["ocr"], ["ocr", "a.png", "--psm", "99"],
        ["ocr", "a.png", "--lang", "../etc"], ["annotate", "a.png", "-o", "out", "--jobs", "0"], ["ocr", "--bogus", "a"],
    ])
    func usageErrorsExitWithTwo(arguments: [String]) throws {
        let run = try Gloss.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("gloss: "))
    }

    @Test func helpAndVersion() throws {
        #expect(try Gloss.run(["--version"]).standardOutput.hasPrefix("gloss "))
        let help = try Gloss.run(["annotate", "--help"])
        #expect(help.status == 0 && help.standardOutput.contains("--output DIR"))
    }
}

/// Runs the `gloss` executable built beside the tests.
enum Gloss {
    typealias Run = ProgramRun

    static let executable: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [beside, beside.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("gloss").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return URL(fileURLWithPath: Fixtures.folder).deletingLastPathComponent().appendingPathComponent(".build/debug/gloss").path
    }()

    /// The commands that read text, and the options that say how (or that none is read).
    static let readingCommands: Set<String> = ["annotate", "ocr"]
    static let readingOptions: Set<String> = ["--text", "--no-text", "--engine"]

    /// `arguments` reading with `--text fast` unless they say how to read: the tests of
    /// everything but the reading itself (batches, formats, PDFs, safety) read with Tesseract
    /// alone, as fast as CI needs; the tests of the reading say `--text` or `--engine`, or run
    /// the default through `runReadingByDefault`.
    static func readingFast(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, readingCommands.contains(command),
              !arguments.contains(where: { readingOptions.contains($0.split(separator: "=").first.map(String.init) ?? $0) })
        else { return arguments }
        return [command, "--text", "fast"] + arguments.dropFirst()
    }

    /// Starts the executable with its output discarded, for tests that signal it.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = readingFast(arguments)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func run(_ arguments: [String]) throws -> Run { try run(executable, arguments) }

    /// The executable run with `arguments` as they are: the default reading (`--text accurate`).
    static func runReadingByDefault(_ arguments: [String]) throws -> Run { try ProgramRun.run(executable, arguments) }

    /// The lines of a batch's stderr that are about problems: not a page read (`gloss: ok`),
    /// not the summary at the end (from `gloss: done in` on).
    static func problems(in standardError: String) -> [Substring] {
        let lines = standardError.split(separator: "\n")
        let summary = lines.firstIndex { $0.hasPrefix("gloss: done in ") } ?? lines.endIndex
        return lines[..<summary].filter { !$0.hasPrefix("gloss: ok ") }
    }

    /// Any program run to its end (in `folder`, or the tests' own), with its status and both outputs.
    /// `gloss` itself reads with `--text fast` unless told otherwise (`readingFast`).
    static func run(_ program: String, _ arguments: [String], in folder: String? = nil) throws -> Run {
        try ProgramRun.run(program, program == executable ? readingFast(arguments) : arguments, in: folder)
    }
}

extension AnnotationSettings {
    /// The default settings, reading with Tesseract alone (`--text fast`): for the tests of
    /// everything but the plan's reading, as `Gloss.readingFast` is for the command's.
    static func readingFast(formats: Set<OutputFormat>? = nil, detectFaces: Bool? = nil) -> AnnotationSettings {
        var settings = AnnotationSettings(formats: formats, detectFaces: detectFaces)
        settings.textMode = .fast
        return settings
    }
}

/// A temporary folder removed when the test ends.
final class ScratchFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The standard formats through the whole pipeline, on a two-page TIFF.
struct FormatsCommandTests {
    @Test func everyFormatPerPageAndOneHOCRAndALTOForTheWholeFile() throws {
        let scratch = try ScratchFolder()
        let run = try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), "-o", scratch.path, "--no-faces",
                                 "--format", "hocr,alto,tsv,txt,json"])
        #expect(run.status == 0, "\(run.standardError)")
        let manifest = try JSONOutput.decode(
            BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/gloss.json"))))
        #expect(manifest.pages.count == 2)
        for entry in manifest.pages {
            // With txt, each page also names its document's whole text in documents/.
            #expect(Set(entry.outputs.keys) == ["hocr", "alto", "tsv", "txt", "json", "documentText"], "no html, so no display copy")
        }
        let id = manifest.pages[0].id.replacingOccurrences(of: "-p1", with: "")
        let hocr = try String(contentsOfFile: scratch.path + "/pages/\(id).hocr", encoding: .utf8)
        let alto = try String(contentsOfFile: scratch.path + "/pages/\(id).alto.xml", encoding: .utf8)
        #expect(hocr.components(separatedBy: "class=\"ocr_page\"").count - 1 == 2)
        #expect(alto.components(separatedBy: "<Page ").count - 1 == 2)
        let text = try String(contentsOfFile: scratch.path + "/" + manifest.pages[1].outputs["txt"]!, encoding: .utf8)
        let truth = try Fixtures.truth("text/two-pages.json")[1]
        #expect(characterAccuracy(text, expected: truth.text) >= 0.98)
    }
}
