import Foundation
import GlossContract
import GlossHTTP
import GlossIndex
import GlossNeuralReading
import GlossPipeline
import GlossReading
import GlossReports
import GlossServe
import GlossTextRecognition

/// The `gloss` command: parses the command line, calls the library, reports.
///
/// Exit status: 0 when every page was read, 1 when some failed (the others still complete) or
/// there was nothing to read, 2 for a wrong command line (an input that does not exist, a
/// batch folder to search that does not) or search query. `search` keeps 1 for "nothing matched", so any
/// search that could not be made at all is 2.
public enum GlossCommand {
    public static func main(_ arguments: [String]) async -> Int32 {
        StandardStreams.ignoreBrokenPipes()
        var words = arguments.dropFirst()
        guard let command = words.popFirst() else {
            StandardStreams.writeError(overview)
            return 2
        }
        do {
            switch command {
            case "annotate": return try await annotate(words)
            case "ocr": return try await ocr(words)
            case "faces": return try await faces(words)
            case "search": return try await search(words)
            case "merge": return try await merge(words)
            case "correct": return try await correct(words)
            case "serve": return try await serve(words)
            case "-h", "--help", "help":
                print(overview, terminator: "")
                return 0
            case "--version", "version":
                print("gloss \(glossVersion) (Tesseract \(TextRecognizer.engineVersion))")
                return 0
            default:
                throw UsageError("unknown command '\(command)'")
            }
        } catch let error as UsageError {
            printError("gloss: \(error)",
                       "Run 'gloss \(["annotate", "ocr", "faces", "search", "merge", "correct", "serve"].contains(command) ? command + " " : "")--help' for usage.")
            return 2
        } catch let error as MissingInputError {
            printError("gloss: \(error)", "Run 'gloss \(command) --help' for usage.")
            return 2
        } catch let error as ServeLockError {
            printError("gloss: \(error)")
            return 2
        } catch let error as ServeError {
            printError("gloss: \(error)")
            return 2
        } catch let error as HTTPServerError {
            printError("gloss: \(error)")
            return 2
        } catch let error as FolderLockError {
            printError("gloss: \(error)")
            return 2
        } catch let error as CorrectionError {
            printError("gloss: \(error)")
            return 2
        } catch let error as ForeignFolderError {
            printError("gloss: \(error)")
            return 2
        } catch let error as UnreadableManifestError {
            printError("gloss: \(error)")
            return 2
        } catch let error as QueryError {
            printError("gloss: \(error)")
            return 2
        } catch let error as OutputFolderError {
            printError("gloss: \(error)")
            return 2
        } catch let error as NeuralModelError {
            // `--engine neural` asked for a reader that cannot be built: found before any page is read.
            printError("gloss: \(error)")
            return 2
        } catch let error as TextRecognitionError {
            // A language without its model is a mistake on the command line, found before anything is written.
            printError("gloss: \(error)")
            guard case .missingLanguage = error.reason else { return 1 }
            return 2
        } catch {
            printError("gloss: \(error)")
            return command == "search" ? 2 : 1
        }
    }

    static let overview = """
        Usage: gloss <command> [options]

        Reads document scans and photos, finds their text, and writes annotated reports.

        Commands:
          annotate INPUT... -o DIR   Read images (files or folders) and write a browsable report
          ocr IMAGE                  Print one page's JSON with its text (words, lines, boxes)
          faces IMAGE                Print one page's JSON with its faces (boxes, eyes, mouth)
          search DIR QUERY...        Search the text of a batch (words, "phrases", prefix*, OR, NOT)
          merge SHARD... -o DIR      Merge batches run as shards (annotate --shard K/N) into one
          correct DIR FILE           Apply a file of reviewers' corrections to a batch
          serve DIR                  Serve a batch over HTTP, with its IIIF manifest and Content Search

        Run 'gloss <command> --help' for a command's options; 'gloss --version' for versions.

        """

    /// The settings a command starts from: every default the help shows is read from these.
    static let defaults = AnnotationSettings()

    static let recognitionOptions: [OptionSpec] = [
        .choice("text", value: "MODE", of: TextMode.allCases.map(\.rawValue) + [noTextName],
                "how the text is read: accurate fuses Tesseract's reading with the neural reader's line by line "
                    + "(docs/reading.md); fast is one reader alone; none reads no text (a batch of photographs)",
                default: defaults.textMode.rawValue),
        .flag("no-text", "the same as --text none"),
        .choice("engine", value: "ENGINE", of: TextEngine.allCases.map(\.rawValue),
                "the one reader that reads the text, alone: neural is PP-OCRv6 in Gloss's own network code",
                default: defaults.textEngine.rawValue),
        .option("lang", short: "l", value: "LANGS", "Tesseract languages, joined with +",
                default: defaults.recognition.languages.joined(separator: "+")),
        .option("psm", value: "MODE", "Tesseract page segmentation mode, 0-13, as 'tesseract --help-psm' lists them",
                default: String(defaults.recognition.pageSegmentationMode)),
        maxPixelsOption,
        maxFileSizeOption,
        .choice("pdf-standard", value: "STANDARD", of: PDFStandard.allCases.map(\.rawValue),
                "what the searchable PDF keeps to: pdfa-2b is PDF/A-2b (docs/pdf.md), none plain PDF 1.7",
                default: defaults.pdfStandard.rawValue),
        .option("pdf-resolution", value: "PPI", "render PDF pages at PPI, except full-page scans, kept at their own",
                default: String(defaults.pdfResolution)),
        .choice("pdf-mode", value: "MODE", of: PDFMode.allCases.map(\.rawValue),
                "PDF pages that hold text: skip keeps their text and reads them not; redo reads those without "
                    + "visible text, replacing old invisible text; force reads every page (docs/pdf.md)",
                default: defaults.pdfMode.rawValue),
        .flag("skip-text", "the same as --pdf-mode skip"),
        .list("prepare", value: "STEPS", of: PreparationSteps.named.map(\.name), whole: ["auto", "none"],
              "how pages are prepared: auto turns, levels, flattens and scales each as it needs and reads "
                  + "dropped text again; none reads them as they come",
              default: preparationText(defaults.prepare)),
        helpOption,
    ]

    static let helpOption = OptionSpec.flag("help", short: "h", "show this help")

    /// `--text`'s value for reading no text, beside the reading modes.
    static let noTextName = "none"

    static let maxPixelsOption = OptionSpec.option(
        "max-pixels", value: "N", "refuse images larger than N pixels before decoding", default: String(defaults.pixelLimit))

    static let maxFileSizeOption = OptionSpec.option(
        "max-file-size", value: "BYTES", "refuse files (and downloads) larger than this, such as 500M",
        default: ParsedArguments.byteText(Annotator().maxFileSize))

    /// `--prepare`'s value for `steps`: `auto`, `none`, or the steps' names.
    static func preparationText(_ steps: PreparationSteps) -> String {
        steps == .auto ? "auto" : steps.isEmpty ? "none" : steps.names.joined(separator: ",")
    }

    static let faceSizeOption = OptionSpec.option(
        "face-size", value: "PIXELS", "longest side of the copy scanned for faces",
        default: FaceDetectorKind.allCases.map { "\($0.defaultDimension) for \($0.rawValue)" }.joined(separator: ", "))

    static let faceModelOption = OptionSpec.option(
        "face-model", value: "FILE", "a YuNet model in Gloss's format instead of the built-in one (models/yunet)")

    static let smilesOption = OptionSpec.flag(
        "smiles", "look for a smile in each face YuNet finds (OpenCV's smile cascade, for hasSmile; off, it is false)")

    static let faceOptions: [OptionSpec] = [
        .choice("faces", value: "DETECTOR", of: FaceDetectorKind.allCases.map(\.rawValue) + ["none"],
                "how faces are found: cnn is YuNet, cascade OpenCV's Haar cascades", default: defaults.faceDetector.rawValue),
        .flag("no-faces", "the same as --faces none"),
        faceSizeOption,
        faceModelOption,
        smilesOption,
    ]

    /// `--faces`, `--no-faces` and `--face-size`.
    static func applyFaceOptions(_ arguments: ParsedArguments, to settings: inout AnnotationSettings) throws {
        switch arguments.value("faces") {
        case nil: break
        case "none": settings.detectFaces = false
        case let name?:
            guard let kind = FaceDetectorKind(rawValue: name) else {
                throw UsageError("--faces takes \(OptionSpec.alternatives(FaceDetectorKind.allCases.map(\.rawValue) + ["none"])), not '\(name)'")
            }
            settings.faceDetector = kind
        }
        if arguments.has("no-faces") { settings.detectFaces = false }
        settings.faceDimension = try arguments.integer("face-size", in: 64...16384) ?? settings.faceDimension
        if arguments.value("face-model") != nil && settings.faceDetector == .cascade && settings.detectFaces {
            throw UsageError("--face-model is a YuNet model and --faces cascade finds faces without one: give one of them")
        }
        settings.faceModelPath = arguments.value("face-model") ?? settings.faceModelPath
        if arguments.has("smiles") { settings.detectSmiles = true }
    }

    static func settings(from arguments: ParsedArguments) throws -> AnnotationSettings {
        var settings = defaults
        if let languages = arguments.value("lang") {
            let list = languages.split(separator: "+").map(String.init)
            guard !list.isEmpty, list.allSatisfy({ $0.allSatisfy { $0.isLetter || $0 == "_" } }) else {
                throw UsageError("--lang takes language codes joined with +, such as eng+deu, not '\(languages)'")
            }
            settings.recognition.languages = list
        }
        settings.recognition.pageSegmentationMode = try arguments.integer("psm", in: 0...13) ?? settings.recognition.pageSegmentationMode
        settings.pixelLimit = try arguments.integer("max-pixels", in: 1...Int(Int32.max)) ?? settings.pixelLimit
        // The option's table allows only these names.
        if let standard = arguments.value("pdf-standard") { settings.pdfStandard = PDFStandard(rawValue: standard) ?? settings.pdfStandard }
        settings.pdfResolution = try arguments.integer("pdf-resolution", in: 10...1200) ?? settings.pdfResolution
        // The option's table allows only these names.
        if let mode = arguments.value("pdf-mode") { settings.pdfMode = PDFMode(rawValue: mode) ?? settings.pdfMode }
        if arguments.has("skip-text") {
            guard arguments.value("pdf-mode").map({ $0 == PDFMode.skip.rawValue }) ?? true else {
                throw UsageError("--skip-text is --pdf-mode skip: give one of them")
            }
            settings.pdfMode = .skip
        }
        // The options' tables allow only these names.
        if let mode = arguments.value("text") { settings.textMode = TextMode(rawValue: mode) ?? settings.textMode }
        if arguments.value("text") == noTextName || arguments.has("no-text") { settings.recognizeText = false }
        if let engine = arguments.value("engine") {
            guard settings.recognizeText else {
                throw UsageError("--engine names the reader of the text and --text none reads none: give one of them")
            }
            // One reader, forced: the plan's fusion of two does not run.
            guard settings.textMode != .accurate || arguments.value("text") == nil else {
                throw UsageError("--engine reads with one reader and --text accurate with both: give one of them")
            }
            settings.textEngine = TextEngine(rawValue: engine) ?? settings.textEngine
            settings.textMode = .fast
            // Tesseract's settings, for a reading Tesseract takes no part in.
            if settings.textEngine == .neural, let given = ["lang", "psm"].first(where: { arguments.value($0) != nil }) {
                throw UsageError("--\(given) sets Tesseract's reading and --engine neural reads without Tesseract: give one of them")
            }
        }
        if let mode = arguments.value("prepare") {
            guard let prepare = PreparationSteps(parsing: mode) else {
                throw UsageError("--prepare takes auto, none or steps joined with commas ("
                                 + PreparationSteps.named.map(\.name).joined(separator: ",") + "), not '\(mode)'")
            }
            settings.prepare = prepare
        }
        return settings
    }

    // MARK: annotate

    static let annotateOptions: [OptionSpec] = [
        .option("output", short: "o", value: "DIR", "where to write the report (required)"),
        .option("jobs", short: "j", value: "N", "pages read at once, one engine each; a worker takes about 55 MB"
                + " beside 55 MB for the process, several times that while it reads a 100-megapixel page (docs/clusters.md)",
                default: "\(Annotator().jobs), the number of cores"),
    ] + faceOptions + [
        .list("format", short: "f", value: "LIST", of: OutputFormat.allCases.map(\.rawValue) + [iiifFormatName],
              "what to write per page (pdf: one per input file; iiif: the batch's IIIF manifest)",
              default: OutputFormat.allCases.filter(defaults.formats.contains).map(\.rawValue).joined(separator: ",")),
        .option("iiif-base", value: "URL", "where DIR will be published: write the IIIF manifest with ids under this URL"),
        .option("timeout", value: "SECONDS", "cancel a page still running after this long and mark it timedOut"),
        .option("input-list", value: "FILE", "read more inputs from FILE, one path or URL per line ('-' for stdin)"),
        .option("fetch-timeout", value: "SECONDS", "give up downloading an http(s) input after this long",
                default: secondsText(RemoteFetchOptions().totalTimeout)),
        .flag("force", "recompute pages an earlier run into DIR already finished"),
        .flag("discard-corrections", "pages read again lose their reviewers' corrections (kept in DIR/gloss.corrections)"),
        .flag("wait", "when another gloss run is writing DIR, wait for it rather than stop"),
        .flag("prune", "remove from DIR the pages of earlier inputs this run does not name (kept by default)"),
        .option("shard", value: "K/N", "read only shard K of N (from 0) of the inputs; 'auto' asks Kubernetes or Slurm"),
        .option("shard-count", value: "N", "the number of shards, for --shard auto under a Kubernetes Indexed Job"),
        .flag("quiet", short: "q", "print only errors"),
    ] + recognitionOptions

    static let annotateCommand = CommandSpec(
        usage: "gloss annotate INPUT... -o DIR [options]",
        summary: """
            Reads every page of the images given (folders are searched recursively), finds their text
            and faces, and writes DIR/index.html, DIR/gloss.json and, per page, DIR/pages/<id>.<format>.
            Re-running the same command skips the pages already finished; Ctrl-C stops cleanly.
            """,
        options: annotateOptions)

    /// `--format`'s name for the batch's IIIF manifest, which is not a page format.
    static let iiifFormatName = "iiif"

    /// A duration as a number of seconds, as `--timeout` and the like take it: `60`, `2.5`.
    static func secondsText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 ? String(seconds) : String(Double(seconds) + Double(attoseconds) / 1e18)
    }

    static func annotate(_ words: ArraySlice<String>) async throws -> Int32 {
        let arguments = try annotateCommand.parse(words)
        if arguments.has("help") {
            print(annotateCommand.help, terminator: "")
            return 0
        }
        guard let output = arguments.value("output") else { throw UsageError("annotate needs -o DIR") }
        var inputs = arguments.operands
        if let list = arguments.value("input-list") { inputs += try readInputList(list) }
        guard !inputs.isEmpty else { throw UsageError("annotate needs at least one INPUT") }
        let jobs = try arguments.integer("jobs", in: 1...256) ?? Annotator().jobs
        var settings = try settings(from: arguments)
        try applyFaceOptions(arguments, to: &settings)
        guard settings.recognizeText || settings.detectFaces else {
            throw UsageError("--text none and --faces none leave nothing to read: give one of them")
        }
        if let list = arguments.value("format") { try applyFormats(list, to: &settings) }
        if let base = arguments.value("iiif-base") { settings.iiif = IIIFOutput(base: try iiifBase(base)) }
        if let iiif = settings.iiif, iiif.base == nil, !arguments.has("quiet") {
            printError("gloss: no IIIF manifest is written without --iiif-base: its ids must be absolute URLs. Give "
                       + "--iiif-base URL (where \(output) will be published), or run 'gloss serve \(output)', which serves one")
        }
        var fetching = RemoteFetchOptions()
        if let seconds = try arguments.seconds("fetch-timeout") { fetching.totalTimeout = seconds }
        var annotator = Annotator(settings: settings, jobs: jobs, pageTimeout: try arguments.seconds("timeout"),
                                  force: arguments.has("force"), fetching: fetching, shard: try shard(from: arguments))
        annotator.waitsForFolder = arguments.has("wait")
        if let size = try arguments.byteCount("max-file-size") {
            // Downloads too: a download is a file read from memory, capped the same.
            annotator.maxFileSize = size
            annotator.fetching.maximumBytes = size
        }
        annotator.prunes = arguments.has("prune")
        annotator.discardsCorrections = arguments.has("discard-corrections")

        let (updates, continuation) = AsyncStream.makeStream(of: ProgressUpdate.self)
        let (events, eventSink) = AsyncStream.makeStream(of: BatchEvent.self)
        let batch = Task { try await annotator.annotate(inputs, into: output, events: eventSink) }
        let forwarding = Task {
            for await event in events { continuation.yield(.event(event)) }
            continuation.finish()
        }
        let ticking = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                continuation.yield(.tick)
            }
        }
        let interruption = Interruption { batch.cancel() }
        let progress = ProgressDisplay(quiet: arguments.has("quiet"))
        for await update in updates {
            switch update {
            case .event(let event): progress.show(event)
            case .tick: progress.tick()
            }
        }
        ticking.cancel()
        await forwarding.value
        progress.close()
        let manifest = try await batch.value
        if interruption.happened {
            let summary = BatchSummary(tally: progress.tally, elapsed: progress.elapsed, folder: output)
            printError("gloss: interrupted after \(BatchSummary.format(progress.elapsed)): \(summary.counts); "
                       + "\(BatchSummary.count(manifest.pages.count, "page")) recorded in \(output)/gloss.json")
            return 130
        }
        if !arguments.has("quiet") {
            let summary = BatchSummary(tally: progress.tally, elapsed: progress.elapsed, folder: output)
            for line in summary.lines { printError("gloss: " + line) }
        }
        // The pages of this run's inputs: a failed page an earlier run kept listed is not this run's failure.
        return progress.tally.failed == 0 && progress.tally.inputsKept == 0 ? 0 : 1
    }

    /// What the progress display is told: a batch event, or that a second has passed.
    enum ProgressUpdate: Sendable {
        case event(BatchEvent)
        case tick
    }

    /// `--format`: the page formats, and `iiif`, the batch-level IIIF output, which is built
    /// from the page JSON and so brings it along.
    static func applyFormats(_ list: String, to settings: inout AnnotationSettings) throws {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let pageFormats = names.filter { $0.lowercased() != iiifFormatName }
        if pageFormats.count < names.count { settings.iiif = settings.iiif ?? IIIFOutput() }
        do {
            settings.formats = pageFormats.isEmpty ? [] : try OutputFormat.parseList(pageFormats.joined(separator: ","))
        } catch {
            throw UsageError("--format: \(error), \(iiifFormatName)")
        }
    }

    /// `--iiif-base`: an absolute http(s) URL, given a trailing slash so ids append to it. It
    /// must be a URI as RFC 3986 writes one (no space, quote or other character a URI has to
    /// escape, every `%` starting an escape), since every IIIF id is made from it as it is.
    static func iiifBase(_ text: String) throws -> String {
        guard isURIText(text), let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false, url.query == nil, url.fragment == nil else {
            throw UsageError("--iiif-base takes an http(s) URL such as https://archive.example/batch1/, not '\(text)'")
        }
        return text.hasSuffix("/") ? text : text + "/"
    }

    /// Whether `text` holds only the characters of a URI (RFC 3986's unreserved and reserved
    /// ones), each `%` followed by two hex digits.
    static func isURIText(_ text: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
        let bytes = Array(text.utf8)
        for (index, byte) in bytes.enumerated() where !allowed.contains(byte) {
            guard byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                  bytes[index + 1...index + 2].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }) else { return false }
        }
        return !bytes.isEmpty
    }

    static func shard(from arguments: ParsedArguments) throws -> Shard? {
        let count = try arguments.integer("shard-count", in: 1...1_000_000)
        do {
            switch arguments.value("shard") {
            case nil:
                guard count == nil else { throw UsageError("--shard-count goes with --shard auto") }
                return nil
            case "auto": return try Shard(environment: ProcessInfo.processInfo.environment, count: count)
            case let text?: return try Shard(parsing: text)
            }
        } catch let error as ShardError {
            throw UsageError("--shard: \(error)")
        }
    }

    /// The paths and URLs of an input list, one per line; blank lines and `#` comments are skipped.
    static func readInputList(_ path: String) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            switch contentsOfNamedFile(path) {
            case .success(let bytes): data = bytes
            case .failure(let problem): throw UsageError("--input-list: cannot read '\(path)': \(problem.cause)")
            }
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    // MARK: ocr, faces

    /// The page `ocr` and `faces` read when `--page` is not given, from 1.
    static let defaultPage = 1

    static let pageOptions: [OptionSpec] = [
        .option("page", value: "N", "which page of a multi-page file, from 1", default: String(defaultPage)),
    ]

    static let ocrCommand = CommandSpec(
        usage: "gloss ocr IMAGE [options]",
        summary: "Prints the page JSON of one page: its text, words and lines with boxes in pixels.",
        options: pageOptions + recognitionOptions)

    static let facesCommand = CommandSpec(
        usage: "gloss faces IMAGE [options]",
        summary: "Prints the page JSON of one page with its faces: boxes, eyes, nose, mouth and smile, in pixels.",
        options: pageOptions + [
            .choice("faces", value: "DETECTOR", of: FaceDetectorKind.allCases.map(\.rawValue),
                    "how faces are found: cnn is YuNet, cascade OpenCV's Haar cascades", default: defaults.faceDetector.rawValue),
            faceSizeOption, faceModelOption, smilesOption, maxPixelsOption, maxFileSizeOption, helpOption,
        ])

    static func ocr(_ words: ArraySlice<String>) async throws -> Int32 {
        try await readOnePage(words, command: ocrCommand) { settings, _ in
            guard settings.recognizeText else { throw UsageError("gloss ocr reads text: --text none leaves it nothing to do") }
            settings.detectFaces = false
        }
    }

    static func faces(_ words: ArraySlice<String>) async throws -> Int32 {
        try await readOnePage(words, command: facesCommand) { settings, arguments in
            settings.recognizeText = false
            try applyFaceOptions(arguments, to: &settings)
            guard settings.detectFaces else { throw UsageError("gloss faces needs a detector: --faces cnn or cascade") }
        }
    }

    /// The shared body of the one-page commands: parse, read the page, print its JSON.
    static func readOnePage(
        _ words: ArraySlice<String>, command: CommandSpec, adjust: (inout AnnotationSettings, ParsedArguments) throws -> Void
    ) async throws -> Int32 {
        let arguments = try command.parse(words)
        if arguments.has("help") {
            print(command.help, terminator: "")
            return 0
        }
        guard arguments.operands.count == 1, let path = arguments.operands.first else {
            throw UsageError("expected exactly one IMAGE")
        }
        let page = try arguments.integer("page", in: 1...1_000_000) ?? defaultPage
        var settings = try settings(from: arguments)
        try adjust(&settings, arguments)
        var annotator = Annotator(settings: settings, jobs: 1)
        if let size = try arguments.byteCount("max-file-size") { annotator.maxFileSize = size }
        let report = try await annotator.read(file: path, pageIndex: page - 1) { name, reason in
            printError("gloss: \(name) cannot run, so the page is read without it: \(reason)")
        }
        StandardStreams.writeOutput(try JSONOutput.encode(report) + [0x0A])
        if let error = report.error { printError("gloss: \(error)") }
        return report.status == .ok ? 0 : 1
    }
}

/// Writes `lines` on stderr, one each, with their control characters escaped: a file name that
/// holds a newline or a terminal escape sequence cannot forge a line, or colour one, in a log.
/// Nothing, once stderr has lost its reader (`StandardStreams`).
func printError(_ lines: String...) {
    StandardStreams.writeError(lines.map { TerminalText.escaping($0) + "\n" }.joined())
}
