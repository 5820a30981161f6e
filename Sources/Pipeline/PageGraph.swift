import GlossFaceDetection
import GlossImaging
import GlossReports
import GlossTextRecognition

/// What a page becomes, written down once:
///
///     decode ──> downsample ──┬──> ocr (text lane) ───┬──> convert ──> render
///                             └──> faces (image lane) ┘
///
/// Recognition runs on the worker's text lane; decoding, downsampling, face detection and
/// rendering on its image lane, so the two branches really run at once. Every stage is timed
/// into the page JSON; a stage that throws fails the page with the stage's name, and the batch
/// goes on. Cancellation is checked before every stage and reaches into Tesseract.
struct PageGraph: Sendable {
    /// A page's report, and its manifest entry when the graph writes outputs.
    struct Outcome: Sendable {
        var report: PageReport
        var entry: ManifestEntry?
    }

    let worker: Worker
    let settings: AnnotationSettings
    let layout: OutputLayout?

    /// Runs the whole graph for page `index` of `file`; never throws: failures are reports.
    func process(page index: Int, of file: ImageFile, id: String) async -> Outcome {
        let clock = StageClock()
        /// One stage: cancellation checked first, timed, and its failure named after it.
        func step<S: PageStage>(_ stage: S, _ input: S.Input) async throws -> S.Output {
            try Task.checkCancellation()
            do {
                return try await clock.time(stage, input)
            } catch let error as CancellationError {
                throw error
            } catch {
                throw PageError(file: file.path, pageIndex: index, stage: S.stage, cause: causeText(of: error))
            }
        }
        // A display copy is made only when a page view will show it.
        let displayDimension = layout != nil && settings.formats.contains(.html) ? settings.displayDimension : nil
        do {
            let decoded = try await step(DecodeStage(lane: worker.image, file: file), index)
            let images = try await step(
                DownsampleStage(lane: worker.image, faceDimension: worker.faces == nil ? nil : settings.faceDimension,
                                displayDimension: displayDimension), decoded)
            // The two branches; one that is not wanted is not run, so it shows in no timing.
            func readText() async throws -> RecognizedText {
                guard let lane = worker.text else { return RecognizedText() }
                return try await step(RecognizeTextStage(lane: lane), images)
            }
            func findFaces() async throws -> [Face] {
                guard let detector = worker.faces else { return [] }
                return try await step(DetectFacesStage(lane: worker.image, detector: detector), images)
            }
            async let text = readText()
            async let faces = findFaces()
            let input = ConvertStage.Input(source: file.path, pageIndex: index, size: decoded.size,
                                           text: try await text, faces: try await faces)
            var report = try await step(ConvertStage(), input)
            report.timings = clock.recorded
            report.timeline = clock.timeline
            guard let layout else { return Outcome(report: report, entry: nil) }
            let entry = try await step(RenderStage(lane: worker.image, layout: layout, settings: settings),
                                       RenderStage.Input(report: report, display: images.display, id: id))
            return Outcome(report: report, entry: entry)
        } catch is CancellationError {
            // A cancelled page writes nothing: no half-finished outputs, only its manifest line.
            let cancelled = PageError(file: file.path, pageIndex: index, stage: clock.current ?? .decode, cause: "cancelled")
            let report = PageReport(source: file.path, pageIndex: index, status: .cancelled, error: cancelled.description,
                                    timings: clock.recorded)
            return Outcome(report: report, entry: layout == nil ? nil : ManifestEntry(report: report, id: id))
        } catch {
            return finish(PageReport(source: file.path, pageIndex: index, status: .failed, error: "\(error)",
                                     timings: clock.recorded), id: id)
        }
    }

    /// A page that could not be read, written in every format so the report can show why.
    func finish(_ report: PageReport, id: String) -> Outcome {
        guard let layout else { return Outcome(report: report, entry: nil) }
        do {
            return Outcome(report: report, entry: try PageFiles(layout: layout, settings: settings).write(report, display: nil, id: id))
        } catch {
            var entry = ManifestEntry(report: report, id: id)
            entry.error = (entry.error ?? "") + "; " + String(describing: error)
            return Outcome(report: report, entry: entry)
        }
    }

}

/// The lanes and engines of one worker: a text lane owning a Tesseract engine (when text is
/// wanted), and an image lane for everything else. Built once per batch, used page after page.
struct Worker: Sendable {
    let text: Lane<TextRecognizer>?
    let image: Lane<Void>
    let faces: FaceDetector?

    init(number: Int, settings: AnnotationSettings, faces: FaceDetector?) {
        let options = settings.recognition
        text = settings.recognizeText ? Lane(name: "gloss-text-\(number)") { try TextRecognizer(options: options) } : nil
        image = Lane(name: "gloss-image-\(number)") {}
        self.faces = faces
    }

    /// Loads the engine on its own thread; throws when a language model is missing.
    func start() async throws {
        try await text?.start()
    }
}
