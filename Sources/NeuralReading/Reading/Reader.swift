import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

/// Milliseconds of a page's detection (the detector and its boxes) and recognition (crops,
/// classifier, recogniser, decoding), for the page's timings and the bench.
public struct ReadingTimings: Sendable, Equatable {
    public var detection: Duration = .zero
    public var recognition: Duration = .zero
    /// The lines the recogniser read, and of them those read again by the exact recogniser
    /// (`NeuralReader(recheck:)`, `ReadingPolicy.readsAgain`).
    public var linesRead = 0
    public var linesReadAgain = 0

    public init() {}
}

/// A line the detector found on a page: its box, and its crop, turned over when the classifier
/// read it upside down (`NeuralReader.detect`).
public struct FoundLine: Sendable {
    /// The detector's quadrilateral, in the page's pixels, clockwise from the top left.
    public var box: DetectedBox
    /// The line cut out and made level; its corners follow the turn.
    public var crop: CroppedLine
    /// Whether the classifier said the line is upside down, and the crop was turned over.
    public var isTurnedOver: Bool

    public init(box: DetectedBox, crop: CroppedLine, isTurnedOver: Bool) {
        self.box = box
        self.crop = crop
        self.isTurnedOver = isTurnedOver
    }
}

/// Gloss's second reader: PP-OCRv6's detector finds the lines, each line is cut out, turned
/// over when the classifier says it is upside down, read by the recogniser in RapidOCR's
/// chunks, decoded greedily, and split into words with boxes from their time steps.
///
/// One per lane: it holds the three networks and the maps they reuse from line to line and
/// page to page, so it is a class used on one thread at a time.
public final class NeuralReader {
    private var detector: any NetworkRunning
    private var recogniser: any NetworkRunning
    /// The exact recogniser that reads again a line `recogniser` (then a quick, rounder one)
    /// read with too small a margin (`ReadingPolicy.readsAgain`); nil reads each line once.
    private var recheck: (any NetworkRunning)?
    private var classifier: any NetworkRunning
    private var finding: any LineFinding
    private let cropping: any LineCropping
    public let decoder: CTCDecoder
    public let policy: ReadingPolicy
    /// How the read lines are put in reading order (`ReadingOrder`).
    public let layout: LayoutPolicy
    /// The input map of the classifier and the recogniser, reused line after line.
    private var lineInput = FeatureMap(channels: 3, height: RecognizerInput.height, width: RecognizerInput.classifierWidth)
    /// What the last page's reading cost.
    public private(set) var timings = ReadingTimings()

    public init(detector: any NetworkRunning, recogniser: any NetworkRunning, recheck: (any NetworkRunning)? = nil,
                classifier: any NetworkRunning, characters: [String], policy: ReadingPolicy = ReadingPolicy(),
                finding: any LineFinding = DetectedLines(), cropping: any LineCropping = RectifiedLines(),
                layout: LayoutPolicy = LayoutPolicy()) {
        self.detector = detector
        self.recogniser = recogniser
        self.recheck = recheck
        self.classifier = classifier
        self.decoder = CTCDecoder(characters: characters)
        self.policy = policy
        self.finding = finding
        self.cropping = cropping
        self.layout = layout
    }

    /// The page's text, every box in the one currency (0...1, origin bottom left): its lines
    /// found (`detect`), read (`read(lines:in:)`) and put in reading order. Polls
    /// `cancellation` between the networks' layers and between lines, and throws
    /// `CancellationError` when it is raised.
    public func read(raster: Raster, cancellation: CancellationFlag) throws -> RecognizedText {
        let lines = try read(lines: detect(raster: raster, cancellation: cancellation), in: raster, cancellation: cancellation)
        // Blocks and paragraphs from the lines' geometry, in the order a person reads them.
        return ReadingOrder.text(lines.compactMap { $0 }, page: raster.size, policy: layout)
    }

    /// The page's lines in RapidOCR's order (`sorted_boxes`, `BoxFinder`), each cut out and
    /// turned over when the classifier says it is upside down; a line less than a pixel wide
    /// or tall is left out. Times the detector as `timings.detection` and the cutting and
    /// classifying as the start of `timings.recognition`.
    /// `wordHeight` is the median height of the page's surely read words, in its pixels, where
    /// a reading measured it (`DetectionPolicy.shrinkingWordHeight`).
    public func detect(raster: Raster, wordHeight: Double? = nil, cancellation: CancellationFlag) throws -> [FoundLine] {
        let isCancelled = { cancellation.isRaised }
        let started = ContinuousClock.now
        let quads = try cancellable { () throws -> [DetectedBox] in
            try finding.lines(in: raster, wordHeight: wordHeight, detector: &detector, isCancelled: isCancelled)
        }
        let detected = ContinuousClock.now
        timings.detection = detected - started
        defer { timings.recognition = ContinuousClock.now - detected }

        var found: [FoundLine] = []
        found.reserveCapacity(quads.count)
        for quad in quads {
            if cancellation.isRaised { throw CancellationError() }
            var crop = cropping.crop(raster, along: quad)
            guard crop.raster.width > 0, crop.raster.height > 0 else { continue }
            RecognizerInput.fillClassifier(&lineInput, with: crop.raster)
            let turn = try cancellable { () throws -> FeatureMap in try classifier.run(lineInput, isCancelled: isCancelled) }
            // P(0°), P(180°).
            let turnedOver = turn.count >= 2 && turn.storage[1] > policy.turnOverProbability
            if turnedOver {
                crop = CroppedLine(raster: crop.raster.oriented(.down), corners: Array(crop.corners[2...] + crop.corners[..<2]))
            }
            found.append(FoundLine(box: quad, crop: crop, isTurnedOver: turnedOver))
        }
        return found
    }

    /// Each of `lines` (found on `raster` by `detect`) read by the recogniser, in RapidOCR's
    /// chunks of these lines: nil where RapidOCR's filters drop the reading (no text, or a
    /// confidence under `minimumLineConfidence`). Adds its time to `timings.recognition`.
    public func read(lines found: [FoundLine], in raster: Raster, cancellation: CancellationFlag) throws -> [TextLine?] {
        let isCancelled = { cancellation.isRaised }
        let started = ContinuousClock.now
        defer { timings.recognition += ContinuousClock.now - started }
        timings.linesRead = 0
        timings.linesReadAgain = 0
        let crops = found.map(\.crop)
        var lines = [TextLine?](repeating: nil, count: crops.count)
        let chunks = RecognizerInput.chunks(of: crops.map { ($0.raster.width, $0.raster.height) }, widths: policy.lineWidths)
        // The maps are kept at the widest line read; one much wider than a page's lines (a rule
        // read as text) gives them back after the page.
        defer {
            if chunks.contains(where: { $0.paddedWidth > RecognizerInput.keptWidth }) {
                recogniser.releaseMemory()
                recheck?.releaseMemory()
            }
        }
        for chunk in chunks {
            for index in chunk.lines {
                if cancellation.isRaised { throw CancellationError() }
                let crop = crops[index]
                let resized = RecognizerInput.resizedWidth(of: (crop.raster.width, crop.raster.height), limit: chunk.width)
                RecognizerInput.fill(&lineInput, with: crop.raster, resizedWidth: resized, width: chunk.paddedWidth)
                var decoded = try recognise(with: &recogniser, isCancelled: isCancelled)
                timings.linesRead += 1
                if recheck != nil, policy.readsAgain(decoded) {
                    decoded = try recognise(with: &recheck!, isCancelled: isCancelled)
                    timings.linesReadAgain += 1
                }
                // RapidOCR's filters: a line of no text, or scored under `text_score`.
                guard !decoded.text.allSatisfy(\.isWhitespace), decoded.confidence >= policy.minimumLineConfidence else { continue }
                let placement = LinePlacement(corners: crop.corners, resizedWidth: resized)
                lines[index] = WordBoxes.line(decoded, placement: placement, page: raster.size, crop: crop.raster)
            }
        }
        return lines
    }

    /// `lineInput` read by `network` and decoded.
    private func recognise(with network: inout any NetworkRunning, isCancelled: () -> Bool) throws -> DecodedLine {
        let output = try cancellable { () throws -> FeatureMap in try network.run(lineInput, isCancelled: isCancelled) }
        guard output.width == decoder.classCount else {
            throw NetworkError.badInput("the recogniser gave \(output.width) classes for \(decoder.classCount) characters")
        }
        return decoder.decode(output.values, steps: output.height)
    }

    /// `body`, with a network's cancellation as Swift's.
    private func cancellable<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch NetworkError.cancelled {
            throw CancellationError()
        }
    }
}
