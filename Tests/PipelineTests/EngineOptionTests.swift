import Foundation
import GlossContract
import GlossNeuralReading
import GlossTestSupport
@testable import GlossCommandLine
@testable import GlossPipeline
import Synchronization
import Testing

/// `--engine`: Tesseract by default, the neural reader when asked, and only a non-default
/// engine in the settings' record and fingerprint, so batches on disk still resume.
@Suite struct EngineOptionTests {
    @Test func theDefaultEngineLeavesTheFingerprintAsItWas() throws {
        #expect(AnnotationSettings().textEngine == .tesseract)
        // The batches on disk from before the engine were read with smiles; the fingerprint is
        // SettingsTests' for `fast` with smiles (its PreparationPolicy now version 6).
        var smiling = AnnotationSettings.readingFast()
        smiling.detectSmiles = true
        #expect(smiling.fingerprint == "eeb9cfd0ee64cdbb")
        let parsed = try GlossCommand.settings(from: GlossCommand.ocrCommand.parse(["page.png"]))
        #expect(parsed.textEngine == .tesseract && parsed.fingerprint == AnnotationSettings().fingerprint)
        let tesseract = try GlossCommand.settings(from: GlossCommand.ocrCommand.parse(["page.png", "--engine", "tesseract"]))
        #expect(tesseract.fingerprint == AnnotationSettings.readingFast().fingerprint, "one reader forced reads fast")
    }

    @Test func theNeuralEngineIsRecordedAndChangesTheFingerprint() throws {
        let settings = try GlossCommand.settings(from: GlossCommand.annotateCommand.parse(["in", "-o", "out", "--engine", "neural"]))
        #expect(settings.textEngine == .neural)
        #expect(settings.fingerprint != AnnotationSettings().fingerprint)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(settings), as: UTF8.self)
        #expect(json.contains(#""textEngine":"neural""#), "\(json)")
        #expect(try JSONDecoder().decode(AnnotationSettings.self, from: encoder.encode(settings)) == settings)
        #expect(!String(decoding: try encoder.encode(AnnotationSettings()), as: UTF8.self).contains("textEngine"))
        // The analyzer list follows the setting: one text analyzer either way, named `ocr`.
        #expect(settings.analyzers.compactMap { $0 as? NeuralTextAnalyzer }.count == 1)
        #expect(AnnotationSettings.readingFast().analyzers.compactMap { $0 as? TextAnalyzer }.count == 1)
        #expect(AnnotationSettings().analyzers.compactMap { $0 as? PlannedTextAnalyzer }.count == 1, "accurate, the default")
        #expect(settings.analyzers.filter(\.readsText).map(\.name) == ["ocr"])
    }

    /// An option of a reader or detector that does not run is refused, not ignored.
    @Test func anOptionOfAReaderThatDoesNotRunIsRefused() async throws {
        func refusal(_ words: [String], _ command: CommandSpec) -> String? {
            do {
                _ = try GlossCommand.settings(from: command.parse(ArraySlice(words)))
                var faces = AnnotationSettings()
                try GlossCommand.applyFaceOptions(command.parse(ArraySlice(words)), to: &faces)
                return nil
            } catch {
                return (error as? UsageError)?.description ?? "not a usage error: \(error)"
            }
        }
        #expect(refusal(["page.png", "--engine", "neural", "--lang", "deu"], GlossCommand.ocrCommand)
                == "--lang sets Tesseract's reading and --engine neural reads without Tesseract: give one of them")
        #expect(refusal(["page.png", "--engine", "neural", "--psm", "6"], GlossCommand.ocrCommand)?.hasPrefix("--psm sets") == true)
        #expect(refusal(["page.png", "--engine", "tesseract", "--lang", "deu", "--psm", "6"], GlossCommand.ocrCommand) == nil)
        #expect(refusal(["page.png", "--faces", "cascade", "--face-model", "m.bin"], GlossCommand.facesCommand)
                == "--face-model is a YuNet model and --faces cascade finds faces without one: give one of them")
        #expect(refusal(["page.png", "--face-model", "m.bin"], GlossCommand.facesCommand) == nil)
        #expect(await GlossCommand.main(["gloss", "ocr", "page.png", "--engine", "neural", "--lang", "zzz"]) == 2)
    }

    @Test func aBogusEngineIsAUsageError() async throws {
        let refusal = ArgumentTests.refusal(["page.png", "--engine", "bogus"], GlossCommand.ocrCommand)
        #expect(refusal == "--engine takes tesseract or neural, not 'bogus'")
        #expect(await GlossCommand.main(["gloss", "ocr", "page.png", "--engine", "bogus"]) == 2)
        #expect(await GlossCommand.main(["gloss", "annotate", "in", "-o", "out", "--engine", "bogus"]) == 2)
        let help = try ArgumentTests.helpLine("engine", in: GlossCommand.ocrCommand.help)
        #expect(help.contains("one of tesseract, neural") && help.contains("(default: tesseract)"), "\(help)")
    }
}

/// An analyzer that says what two parts of its work took.
struct TimedPartsAnalyzer: Analyzer {
    var name: String { "parts" }
    var image: ImageRequest { ImageRequest(longestSide: 100, layout: .gray) }

    func makeEngine() throws {}

    func analyze(_ image: AnalyzerImage, with engine: Void, cancellation: CancellationFlag) throws -> PageFindings {
        var findings = PageFindings()
        findings.timings.record("detect", milliseconds: 12)
        findings.timings.record("recognize", milliseconds: 34)
        return findings
    }
}

@Suite struct AnalyzerTimingsTests {
    @Test func anAnalyzersPartsJoinThePagesTimings() async throws {
        var annotator = Annotator(settings: AnnotationSettings(detectFaces: false), jobs: 1)
        annotator.settings.recognizeText = false
        annotator.additionalAnalyzers = [TimedPartsAnalyzer()]
        let report = try await annotator.read(file: Fixtures.path("text/few-words.png"))
        #expect(report.timings["detect"] == 12 && report.timings["recognize"] == 34, "\(report.timings.stages)")
        #expect(report.timings["parts"] != nil, "beside the analyzer's own stage")
    }

    /// The neural reader through the whole page graph.
    @Test func theNeuralEngineReadsAPageWithItsTimingsSplit() async throws {
        var settings = AnnotationSettings.readingFast(detectFaces: false)
        settings.textEngine = .neural
        let report = try await Annotator(settings: settings, jobs: 1).read(file: Fixtures.path("text/sans.png"))
        #expect(report.status == .ok, "\(report.error ?? "")")
        #expect(report.text.contains("quick brown fox"), "\(report.text)")
        #expect(report.timings["detect"] != nil && report.timings["recognize"] != nil && report.timings["ocr"] != nil)
    }
}

/// `--text`: the reading plan (`accurate`) unless told `fast`.
@Suite struct TextModeCommandTests {
    @Test func theDefaultReadingIsThePlansAndFastIsTesseractAlone() throws {
        let page = Fixtures.path("text/sans.png")
        let planned = try Gloss.runReadingByDefault(["ocr", page])
        #expect(planned.status == 0, "\(planned.standardError)")
        let report = try JSONOutput.decode(PageReport.self, from: Array(planned.standardOutput.utf8))
        // A clean page Tesseract reads surely stands without the detector (`sure-page`).
        #expect(report.preparation?.rules == ["sure-page"], "\(report.preparation?.rules ?? [])")
        #expect(report.text.contains("quick brown fox"), "\(report.text)")
        #expect(report.timings["detect"] == nil)

        let fast = try Gloss.run(["ocr", page])
        #expect(fast.status == 0, "\(fast.standardError)")
        let alone = try JSONOutput.decode(PageReport.self, from: Array(fast.standardOutput.utf8))
        #expect(alone.preparation?.rules == nil && alone.timings["detect"] == nil)
        #expect(alone.text.contains("quick brown fox"))
    }
}

/// `accurate` on a machine where the neural reader cannot be built (a processor without AVX2
/// and FMA): Tesseract reads alone, as `fast` does, the missing reader is named, and the pages
/// are read again by a run that has it.
@Suite struct MissingNeuralReaderTests {
    static func annotator() -> Annotator {
        var annotator = Annotator(settings: AnnotationSettings(detectFaces: false), jobs: 1)
        annotator.settings.recognizeText = false
        var planned = PlannedTextAnalyzer(options: annotator.settings.recognition, steps: annotator.settings.prepare)
        planned.neuralReader = { () throws(NeuralModelError) in throw NeuralModelError(model: nil, reason: "no AVX2 here") }
        annotator.additionalAnalyzers = [planned]
        return annotator
    }

    @Test func tesseractReadsAloneAndTheMissingReaderIsNamed() async throws {
        let told = Mutex<[String]>([])
        let report = try await Self.annotator().read(file: Fixtures.path("text/sans.png")) { name, reason in
            told.withLock { $0.append("\(name): \(reason)") }
        }
        #expect(report.status == .ok && report.words.count == 46, "\(report.words.count) words")
        #expect(report.preparation?.rules == ["tesseract-page"], "the fast plan's rule: \(report.preparation?.rules ?? [])")
        #expect(told.withLock { $0 } == ["ocr: neural reader: the neural reader (--engine neural): no AVX2 here"])
    }

    @Test func aBatchNamesItAndItsPagesAreReadAgainWithIt() async throws {
        let scratch = try ScratchFolder()
        let (events, continuation) = AsyncStream<BatchEvent>.makeStream()
        _ = try await Self.annotator().annotate([Fixtures.path("text/sans.png")], into: scratch.path, events: continuation)
        var named: [String] = []
        for await event in events { if case .analyzerUnavailable(let name, _) = event { named.append(name) } }
        #expect(named == ["ocr: neural reader"])
        let manifest = try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/gloss.json"))))
        var whole = Annotator(settings: AnnotationSettings(detectFaces: false), jobs: 1)
        whole.settings.recognizeText = false
        whole.additionalAnalyzers = [PlannedTextAnalyzer(options: whole.settings.recognition, steps: whole.settings.prepare)]
        #expect(manifest.pages.map(\.status) == [.ok])
        #expect(manifest.pages[0].settingsHash != whole.fingerprint(), "a run with the reader reads the page again")
        #expect(manifest.pages[0].settingsHash == whole.fingerprint(without: ["ocr: neural reader"]))
    }
}
