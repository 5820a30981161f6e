import GlossFaceDetection
import GlossGeometry
import GlossImaging
import GlossReports
import GlossTextRecognition
import Synchronization

/// The stages a page goes through, named in timings and errors.
public enum Stage: String, Sendable, Codable {
    case fetch, read, decode, downsample, ocr, faces, convert, render
}

/// One step of the page graph: named, so the graph can time it and say where a page failed.
protocol PageStage: Sendable {
    associatedtype Input: Sendable
    associatedtype Output: Sendable
    static var stage: Stage { get }
    func run(_ input: Input) async throws -> Output
}

/// The copies of a page each branch works on.
struct PageImages: Sendable {
    /// For Tesseract, with the resolution to tell it.
    var text: Raster
    var textResolution: Int?
    /// For the face detector: far fewer pixels than text needs.
    var faces: Raster?
    /// For people: the picture under the report's overlay; nil when no page view shows one.
    var display: Raster?
}

struct DecodeStage: PageStage {
    static let stage = Stage.decode
    let lane: Lane<Void>
    let file: ImageFile

    func run(_ pageIndex: Int) async throws -> DecodedPage {
        try await lane.run { [file] _ in try file.decodePage(pageIndex) }
    }
}

struct DownsampleStage: PageStage {
    static let stage = Stage.downsample
    let lane: Lane<Void>
    /// The longest side of the face branch's copy; nil when faces are not wanted.
    let faceDimension: Int?
    /// The longest side of the display copy; nil when no page view shows one.
    let displayDimension: Int?
    /// Scans above this resolution are reduced to it for OCR: Tesseract gains nothing from
    /// more, and a 600 ppi page takes four times as long.
    static let textResolution = 300

    func run(_ page: DecodedPage) async throws -> PageImages {
        try await lane.run { [faceDimension, displayDimension] _ in
            var text = page.raster, resolution = page.resolution
            if let stated = page.resolution, stated > Self.textResolution * 4 / 3 {
                let scale = Double(Self.textResolution) / Double(stated)
                text = page.raster.resampled(width: max(1, Int((Double(page.raster.width) * scale).rounded())),
                                             height: max(1, Int((Double(page.raster.height) * scale).rounded())))
                resolution = Self.textResolution
            }
            let display = displayDimension.map { page.raster.downsampled(toFit: $0) }
            // A display copy at least as large holds every pixel the face copy needs, and is smaller to read.
            let faces = faceDimension.map { dimension in
                let source = display.map { max($0.width, $0.height) >= dimension } == true ? display! : page.raster
                return source.downsampled(toFit: dimension)
            }
            return PageImages(text: text, textResolution: resolution, faces: faces, display: display)
        }
    }
}

struct RecognizeTextStage: PageStage {
    static let stage = Stage.ocr
    let lane: Lane<TextRecognizer>

    func run(_ images: PageImages) async throws -> RecognizedText {
        // Tesseract cannot see Swift's cancellation; a flag its monitor polls can.
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await lane.run { recognizer in
                try recognizer.recognize(images.text, resolution: images.textResolution, cancellation: flag)
            }
        } onCancel: {
            flag.raise()
        }
    }
}

struct DetectFacesStage: PageStage {
    static let stage = Stage.faces
    let lane: Lane<Void>
    let detector: FaceDetector

    func run(_ images: PageImages) async throws -> [Face] {
        guard let image = images.faces else { return [] }
        return try await lane.run { _ in try detector.detect(in: image) }
    }
}

/// Where the normalised currency becomes page pixels: once, here, for every recogniser.
struct ConvertStage: PageStage {
    struct Input: Sendable {
        var source: String
        var pageIndex: Int
        var size: PixelSize
        var text: RecognizedText
        var faces: [Face]
    }

    static let stage = Stage.convert

    func run(_ input: Input) async throws -> PageReport {
        PageReport(source: input.source, pageIndex: input.pageIndex, size: input.size, text: input.text,
                   faces: input.faces.map { FaceReport($0, in: input.size) }, timings: StageTimings())
    }
}

/// Writes a page's outputs, each atomically, and returns its manifest entry.
struct RenderStage: PageStage {
    struct Input: Sendable {
        var report: PageReport
        var display: Raster?
        var id: String
    }

    static let stage = Stage.render
    let lane: Lane<Void>
    let layout: OutputLayout
    let settings: AnnotationSettings

    func run(_ input: Input) async throws -> ManifestEntry {
        try await lane.run { [layout, settings] _ in
            try PageFiles(layout: layout, settings: settings).write(input.report, display: input.display, id: input.id)
        }
    }
}

/// The files of one page in the batch folder: `pages/<id>.<format>` and the display copy.
struct PageFiles {
    let layout: OutputLayout
    let settings: AnnotationSettings

    /// Writes every requested format, and the display copy when there is one, each atomically.
    func write(_ report: PageReport, display: Raster?, id: String) throws -> ManifestEntry {
        var entry = ManifestEntry(report: report, id: id)
        var imageName: String?
        if let display {
            imageName = id + ".png"
            try AtomicFile.write(try display.pngData(fast: true), to: layout.pagesFolder + "/" + imageName!)
            entry.outputs["image"] = "pages/" + imageName!
        }
        let files = try renderPage(report, formats: settings.formats, context: settings.reportContext,
                                   links: PageLinks(imagePath: imageName))
        for file in files {
            let name = id + "." + file.fileExtension
            try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + name)
            entry.outputs[file.format.rawValue] = "pages/" + name
        }
        return entry
    }
}

/// Wall time per stage for one page, recorded from both branches at once.
final class StageClock: Sendable {
    private let pageStart = ContinuousClock.now
    private let state = Mutex((timings: StageTimings(), timeline: [StageSpan](), current: Stage?.none))

    func time<S: PageStage>(_ stage: S, _ input: S.Input) async throws -> S.Output {
        let start = ContinuousClock.now
        state.withLock { $0.current = S.stage }
        let output = try await stage.run(input)
        let end = ContinuousClock.now
        state.withLock {
            $0.timings.record(S.stage.rawValue, end - start)
            $0.timeline.append(StageSpan(stage: S.stage.rawValue, start: Self.milliseconds(start - pageStart),
                                         end: Self.milliseconds(end - pageStart)))
        }
        return output
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        (duration.secondsValue * 10_000).rounded() / 10
    }

    var recorded: StageTimings { state.withLock { $0.timings } }
    var timeline: [StageSpan] { state.withLock { $0.timeline } }
    /// The stage most recently started: where a cancelled page was stopped.
    var current: Stage? { state.withLock { $0.current } }
}
