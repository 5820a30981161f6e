import Foundation
import GlossContract
@testable import GlossCommandLine
@testable import GlossPipeline
import GlossTestSupport
import Testing

/// Command lines that cannot make a batch are refused with status 2 before anything is
/// written; output paths however they are spelt make one where they say.
@Suite(.serialized)
struct CommandLineCheckTests {
    /// A small page, read in well under a second.
    static let page = Fixtures.path("formats/page.pgm")

    /// `gloss` run in `folder`, to its end.
    static func run(_ arguments: [String], in folder: String) throws -> Gloss.Run {
        try Gloss.run(Gloss.executable, arguments, in: folder)
    }

    static func contents(of folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func aLanguageWithoutItsModelIsRefusedBeforeAnythingIsWritten() throws {
        let scratch = try ScratchFolder()
        let existing = scratch.path + "/existing"
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: true)
        for (output, languages, package) in [(scratch.path + "/new/out", "fra", "tesseract-ocr-fra"),
                                             (existing, "eng+chi_sim", "tesseract-ocr-chi-sim")] {
            let run = try Gloss.run(["annotate", Self.page, "-o", output, "--lang", languages, "--no-faces"])
            #expect(run.status == 2, "\(run.standardError)")
            let language = languages.split(separator: "+").last!
            #expect(run.standardError.contains("no Tesseract model for language '\(language)' (looked for \(language).traineddata in "),
                    "\(run.standardError)")
            #expect(run.standardError.contains("); install the Debian package \(package)\n"), "\(run.standardError)")
            #expect(Gloss.problems(in: run.standardError).count == 1, "one line, not one per page: \(run.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/new"))
        #expect(Self.contents(of: existing).isEmpty, "no gloss.lock, no pages/: \(Self.contents(of: existing))")
    }

    @Test func anOutputPathThatIsAFileIsRefusedSayingSo() throws {
        let scratch = try ScratchFolder()
        let file = scratch.path + "/report"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: file))
        for output in [file, file + "/", file + "/inside"] {
            let run = try Gloss.run(["annotate", Self.page, "-o", output, "--no-faces"])
            #expect(run.status == 2, "\(output): \(run.standardError)")
            #expect(run.standardError.hasPrefix("gloss: \(file) is a file"), "\(run.standardError)")
        }
        #expect(Self.contents(of: scratch.path) == ["report"])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine")
    }

    @Test(arguments: ["https://a.example/x\"y z/", "https://a.example/x y/", "https://a.example/<b>/",
                      "https://a.example/50%/", "https://a.example/a\\b/"])
    func anIIIFBaseThatIsNotAURIIsRefused(base: String) throws {
        let scratch = try ScratchFolder()
        let run = try Gloss.run(["annotate", Self.page, "-o", scratch.path + "/out", "--iiif-base", base, "--no-faces"])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.hasPrefix("gloss: --iiif-base takes an http(s) URL"), "\(run.standardError)")
        #expect(Self.contents(of: scratch.path).isEmpty)
    }

    @Test func anIIIFBaseThatIsAURIIsTaken() throws {
        #expect(try GlossCommand.iiifBase("https://a.example/a%20b/x~y") == "https://a.example/a%20b/x~y/")
        #expect(try GlossCommand.iiifBase("http://127.0.0.1:8080/batch/") == "http://127.0.0.1:8080/batch/")
    }

    /// Relative output paths, short and spelt every way, each a batch in `X` of the current folder.
    @Test(arguments: ["X", "./X", "X/", "a/../X", "X//", "./a/../X/."])
    func anOutputPathSpeltAnyWayMakesTheBatchWhereItSays(output: String) throws {
        let scratch = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: scratch.path + "/a", withIntermediateDirectories: true)
        let run = try Self.run(["annotate", Self.page, "-o", output, "--no-faces", "-q"], in: scratch.path)
        #expect(run.status == 0, "\(output): \(run.standardError)")
        #expect(try BatchTests.manifest(scratch.path + "/X").pages.map(\.status) == [.ok])
        #expect(Self.contents(of: scratch.path + "/a").isEmpty)
    }

    @Test func theCurrentFolderIsAnOutputFolderLikeAnyOther() throws {
        let scratch = try ScratchFolder()
        let here = scratch.path + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let run = try Self.run(["annotate", Self.page, "-o", ".", "--no-faces", "-q"], in: here)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try BatchTests.manifest(here).pages.map(\.status) == [.ok])
    }

    @Test func aSearchNestedPastTheLimitIsAUsageError() throws {
        let scratch = try ScratchFolder()
        let made = try Gloss.run(["annotate", Self.page, "-o", scratch.path, "--no-faces", "-q"])
        try #require(made.status == 0, "\(made.standardError)")
        for depth in [33, 100, 10_000] {
            let query = String(repeating: "(", count: depth) + "page OR text" + String(repeating: ")", count: depth)
            let run = try Gloss.run(["search", scratch.path, query])
            #expect(run.status == 2, "\(depth): \(run.standardError.prefix(300))")
            #expect(run.standardError.hasSuffix(": it nests parentheses \(depth) deep; at most 32 are allowed\n"),
                    "\(run.standardError.suffix(200))")
        }
    }

    @Test func pathsAreTakenApartAsText() {
        #expect(PathText.parent(of: "X") == nil)
        #expect(PathText.parent(of: "X/") == nil)
        #expect(PathText.parent(of: ".") == nil)
        #expect(PathText.parent(of: "/") == nil)
        #expect(PathText.parent(of: "/X") == "/")
        #expect(PathText.parent(of: "a//b/") == "a")
        #expect(PathText.parent(of: "a/../X/pages") == "a/../X")
        #expect(PathText.trimmingSlashes("///") == "/")
    }
}
