import Foundation
@testable import GlossCommandLine
import GlossPipeline
import GlossReports
import Testing

/// The command line as it is declared: the parser and the help are made from the options'
/// declarations, and neither can misread a word. No engine runs: each test takes milliseconds.
@Suite struct ArgumentTests {
    static let annotate = GlossCommand.annotateCommand

    /// The usage error `words` give `command`, or nil when they parse.
    static func refusal(_ words: [String], _ command: CommandSpec = annotate) -> String? {
        do {
            _ = try command.parse(ArraySlice(words))
            return nil
        } catch {
            return (error as? UsageError)?.description ?? "not a usage error: \(error)"
        }
    }

    @Test func aValueThatLooksLikeAnOptionIsRefused() throws {
        #expect(Self.refusal(["in", "--output", "--force"]) == "--output needs a folder; --force is an option")
        #expect(Self.refusal(["in", "-o", "-q"]) == "-o needs a folder; -q is an option")
        let unknown = try #require(Self.refusal(["in", "--output", "--forse"]))
        #expect(unknown.hasPrefix("--output needs a folder; --forse looks like an option"), "\(unknown)")
        #expect(Self.refusal(["in", "--jobs"]) == "--jobs needs a number (N)")

        // `-` alone stays a value (stdin), and `=` gives a value that starts with a dash on purpose.
        let stdin = try Self.annotate.parse(["--input-list", "-", "-o", "out"])
        #expect(stdin.value("input-list") == "-" && stdin.value("output") == "out")
        let dashed = try Self.annotate.parse(["in", "--output=--force"])
        #expect(dashed.value("output") == "--force" && !dashed.has("force"))
    }

    @Test func shortFlagsPack() throws {
        let packed = try Self.annotate.parse(["in", "-qo", "out"])
        #expect(packed.has("quiet") && packed.value("output") == "out" && packed.operands == ["in"])
        let withValue = try Self.annotate.parse(["-qj2", "in", "-o", "out"])
        #expect(withValue.has("quiet") && withValue.value("jobs") == "2" && withValue.operands == ["in"])
        let attached = try Self.annotate.parse(["-oout", "-j=3"])
        #expect(attached.value("output") == "out" && attached.value("jobs") == "3")
        #expect(Self.refusal(["-qx"]) == "unknown option '-x' in '-qx'")
        #expect(Self.refusal(["-qo"]) == "-o needs a folder (DIR)")
    }

    @Test func anUnknownOptionSuggestsTheNearestOne() {
        #expect(Self.refusal(["--fromat", "html"]) == "unknown option '--fromat'; did you mean --format?")
        #expect(Self.refusal(["--outptu", "x"]) == "unknown option '--outptu'; did you mean --output?")
        #expect(Self.refusal(["--no-face"]) == "unknown option '--no-face'; did you mean --no-faces?")
        #expect(Self.refusal(["--iiif"]) == "unknown option '--iiif'; did you mean --iiif-base?", "what it starts")
        #expect(Self.refusal(["--zebra-stripes"]) == "unknown option '--zebra-stripes'", "nothing near: no guess")
        #expect(ParsedArguments.editDistance("fromat", "format") == 1)
        #expect(ParsedArguments.editDistance("", "abc") == 3 && ParsedArguments.editDistance("kitten", "sitting") == 3)
    }

    @Test func doubleDashEndsTheOptions() throws {
        let parsed = try Self.annotate.parse(["-o", "out", "--", "--force", "-q", "-"])
        #expect(parsed.operands == ["--force", "-q", "-"])
        #expect(!parsed.has("force") && !parsed.has("quiet"))
    }

    @Test func valuesAreCheckedAgainstTheAllowedOnes() throws {
        #expect(Self.refusal(["--faces", "dnn"]) == "--faces takes cnn, cascade or none, not 'dnn'")
        let format = try #require(Self.refusal(["--format", "html,xml"]))
        #expect(format.contains("'xml'") && format.contains("alto") && format.contains("iiif"), "\(format)")
        #expect(try Self.annotate.parse(["--format", "HTML, json,iiif"]).value("format") == "HTML, json,iiif")
    }

    /// The line of the help that describes `--long`.
    static func helpLine(_ long: String, in help: String) throws -> Substring {
        try #require(help.split(separator: "\n").first { $0.contains("--\(long) ") || $0.hasSuffix("--\(long)") })
    }

    @Test func theHelpIsMadeFromTheDeclarations() throws {
        let help = Self.annotate.help
        for option in Self.annotate.options {
            #expect(help.contains("--\(option.long)"), "\(option.long)")
            if let value = option.defaultValue { #expect(try Self.helpLine(option.long, in: help).hasSuffix("(default: \(value))")) }
        }
        // Each default shown is the code's own.
        let defaults = AnnotationSettings()
        #expect(try Self.helpLine("pdf-resolution", in: help).hasSuffix("(default: \(defaults.pdfResolution))"))
        #expect(try Self.helpLine("max-pixels", in: help).hasSuffix("(default: \(defaults.pixelLimit))"))
        #expect(try Self.helpLine("psm", in: help).hasSuffix("(default: \(defaults.recognition.pageSegmentationMode))"))
        #expect(try Self.helpLine("lang", in: help).hasSuffix("(default: \(defaults.recognition.languages.joined(separator: "+")))"))
        #expect(try Self.helpLine("faces", in: help).hasSuffix("(default: \(defaults.faceDetector.rawValue))"))
        let size = try #require(try Self.helpLine("max-file-size", in: help).split(separator: "(default: ").last?.dropLast())
        let parsed = try ParsedArguments(["--max-file-size", String(size)], options: Self.annotate.options)
        #expect(try parsed.byteCount("max-file-size") == Annotator().maxFileSize, "\(size)")
        let formats = try Self.helpLine("format", in: help)
        #expect(formats.hasSuffix("(default: " + OutputFormat.allCases.filter(defaults.formats.contains).map(\.rawValue)
            .joined(separator: ",") + ")"))
        for format in OutputFormat.allCases { #expect(formats.contains(format.rawValue), "\(format)") }
        #expect(GlossCommand.searchCommand.help.contains("(default: \(GlossCommand.defaultSearchLimit))"))
    }

    /// `ß` upper-cases to two letters, which `Character(_:)` took as one and trapped on.
    @Test func aSizeEndingInALetterThatUppercasesToTwoIsRefused() throws {
        for text in ["500ß", "2ﬀ"] {
            let parsed = try ParsedArguments(["--max-file-size", text], options: Self.annotate.options)
            #expect(throws: UsageError.self) { try parsed.byteCount("max-file-size") }
        }
        let parsed = try ParsedArguments(["--max-file-size", "2g"], options: Self.annotate.options)
        #expect(try parsed.byteCount("max-file-size") == 2 << 30)
    }

    @Test func flattenIsListedInTheHelpAndTheError() throws {
        let line = try Self.helpLine("prepare", in: Self.annotate.help)
        let error = try #require(Self.refusal(["--prepare", "straighten"]))
        for (name, _) in PreparationSteps.named {
            #expect(line.contains(name), "\(name) in \(line)")
            #expect(error.contains(name), "\(name) in \(error)")
        }
        #expect(line.contains("flatten") && error.contains("flatten"))
        let parsed = try Self.annotate.parse(["--prepare", "flatten"])
        #expect(try GlossCommand.settings(from: parsed).prepare == .flatten)
    }

    @Test func thePDFStandardIsPDFAUnlessNoneIsAsked() throws {
        #expect(try GlossCommand.settings(from: Self.annotate.parse(["in"])).pdfStandard == .pdfA2b)
        #expect(try GlossCommand.settings(from: Self.annotate.parse(["--pdf-standard", "none"])).pdfStandard == .none)
        let error = try #require(Self.refusal(["--pdf-standard", "pdfa-1b"]))
        #expect(error.contains("pdfa-2b") && error.contains("none"), "\(error)")
        #expect(try Self.helpLine("pdf-standard", in: Self.annotate.help).hasSuffix("(default: pdfa-2b)"))
    }

    /// The cases `tests-browser/search_conformance.py` types into the report's search box.
    struct SharedWords: Decodable {
        struct Case: Decodable {
            var words: [String]
            var query: String
            init(from decoder: any Decoder) throws {
                var pair = try decoder.unkeyedContainer()
                words = try pair.decode([String].self)
                query = try pair.decode(String.self)
            }
        }
        var cases: [Case]
    }

    @Test func searchWordsJoinAsTheSearchBoxReadsThem() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let data = try Data(contentsOf: url.appendingPathComponent("tests-browser/query_words.json"))
        let shared = try JSONDecoder().decode(SharedWords.self, from: data)
        #expect(shared.cases.count >= 5)
        for pair in shared.cases {
            let parsed = try GlossCommand.searchCommand.parse(ArraySlice(["out"] + pair.words))
            #expect(GlossCommand.searchQuery(parsed.operands.dropFirst()) == pair.query, "\(pair.words)")
        }
        #expect(GlossCommand.searchQuery([String]()) == nil)
    }
}
