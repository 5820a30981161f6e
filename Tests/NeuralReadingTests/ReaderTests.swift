import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralNetwork
@testable import GlossNeuralReading
import Testing

/// The reader put together on fake networks: the order of lines, turning, filtering and
/// cancellation, in milliseconds.
@Suite struct ReaderTests {
    let page = Raster(width: 1000, height: 800, layout: .gray, filledWith: 255)
    /// Two lines in reading order, as the finder gives them: 300 x 48 (ratio 6.25) and 400 x 48
    /// (8.33, so the chunk's width is 400); the recogniser reads them widest first.
    let lines = [levelQuad(left: 100, top: 100, width: 300, height: 48), levelQuad(left: 100, top: 500, width: 400, height: 48)]

    func reader(p180: Float = 0.05, script: [Int: (String, Float)], recheck: [Int: (String, Float)]? = nil,
                cancelAfter: Int? = nil, policy: ReadingPolicy = .rapidOCR) -> NeuralReader {
        let classifier = FixedNetwork(output: FeatureMap(channels: 1, height: 1, width: 2, values: [1 - p180, p180]))
        let detector = FixedNetwork(output: FeatureMap(channels: 1, height: 32, width: 32), cancelAfter: cancelAfter)
        return NeuralReader(detector: detector, recogniser: ScriptedRecogniser(texts: script.mapValues { ($0.0, $0.1) }),
                            recheck: recheck.map { ScriptedRecogniser(texts: $0.mapValues { ($0.0, $0.1) }) },
                            classifier: classifier, characters: FakeRows.characters, policy: policy,
                            finding: GivenLines(quads: lines), cropping: RectifiedLines())
    }

    @Test func ownWidthsReadEachLineAtItsWidth() throws {
        // 300 wide (rounded up to 304 for the stride) and 400: neither padded to the other.
        var policy = ReadingPolicy()
        policy.lineWidths = .own(minimum: 160)
        let script = [304: (" ab", Float(0.9)), 400: (" c a", Float(0.9))]
        let text = try reader(script: script, policy: policy).read(raster: page, cancellation: CancellationFlag())
        #expect(text.lines.map(\.text) == ["ab", "c a"])
        // By default both are read at the chunk's 400, as RapidOCR reads them.
        let chunked = try reader(script: script, policy: ReadingPolicy()).read(raster: page, cancellation: CancellationFlag())
        #expect(chunked.lines.map(\.text) == ["c a", "c a"])
    }

    @Test func linesComeTopToBottomWithTheirWords() throws {
        // Both lines go in one chunk of width 400: the recogniser sees only that width.
        let text = try reader(script: [400: (" ab c", 0.9)]).read(raster: page, cancellation: CancellationFlag())
        #expect(text.lines.map(\.text) == ["ab c", "ab c"])
        let size = page.size
        #expect(PixelRect(text.lines[0].box, in: size) == PixelRect(x: 100, y: 100, width: 300, height: 48), "the top line first")
        // The 300-wide line is resized to 300 of the 400: a step is 8 page pixels still.
        #expect(PixelRect(text.lines[0].words[0].box, in: size) == PixelRect(x: 112, y: 100, width: 32, height: 48))
        #expect(text.words.allSatisfy { abs($0.confidence - 90) < 1e-3 })
    }

    @Test func aLineTheClassifierFindsUpsideDownIsReadTurned() throws {
        let text = try reader(p180: 0.95, script: [400: (" ab c", 0.9)]).read(raster: page, cancellation: CancellationFlag())
        // Turned, the first word lies at the line's right end.
        #expect(PixelRect(text.lines[0].words[0].box, in: page.size) == PixelRect(x: 356, y: 100, width: 32, height: 48))
        // At 0.9, RapidOCR's threshold, it is not turned.
        let kept = try reader(p180: 0.9, script: [400: (" ab c", 0.9)]).read(raster: page, cancellation: CancellationFlag())
        #expect(PixelRect(kept.lines[0].words[0].box, in: page.size).x == 112)
    }

    @Test func linesOfNoTextOrLowConfidenceAreDropped() throws {
        let unsure = try reader(script: [400: (" ab c", 0.45)]).read(raster: page, cancellation: CancellationFlag())
        #expect(unsure.lines.isEmpty, "under RapidOCR's text_score 0.5")
        let blank = try reader(script: [400: ("  ", 0.9)]).read(raster: page, cancellation: CancellationFlag())
        #expect(blank == RecognizedText())
    }

    @Test func aRaisedFlagStopsTheReading() {
        let flag = CancellationFlag()
        flag.raise()
        #expect(throws: CancellationError.self) { try reader(script: [:]).read(raster: page, cancellation: flag) }
        // A network that stops on its own check: the same error.
        #expect(throws: CancellationError.self) {
            try reader(script: [:], cancelAfter: 0).read(raster: page, cancellation: CancellationFlag())
        }
    }

    @Test func aLineReadWithTooSmallAGapIsReadAgainAndTheSecondReadingKept() throws {
        // A letter at 0.9 leads the other four classes' 0.025 by 0.875; at 0.3 by 0.125, and
        // the runner-up (the blank) would drop it.
        var policy = ReadingPolicy()
        policy.recheckGap = 0.5
        let sure = reader(script: [400: (" ab", 0.9)], recheck: [400: (" cc", 0.9)], policy: policy)
        #expect(try sure.read(raster: page, cancellation: CancellationFlag()).lines.map(\.text) == ["ab", "ab"])
        #expect((sure.timings.linesRead, sure.timings.linesReadAgain) == (2, 0))
        // Unsure, each line is read again; the exact reading is kept even where the quick one
        // would have been dropped (confidence 0.3, under 0.5).
        let unsure = reader(script: [400: (" ab", 0.3)], recheck: [400: (" ca", 0.9)], policy: policy)
        #expect(try unsure.read(raster: page, cancellation: CancellationFlag()).lines.map(\.text) == ["ca", "ca"])
        #expect((unsure.timings.linesRead, unsure.timings.linesReadAgain) == (2, 2))
        // The threshold decides: letters at 0.6 lead by 0.5, which a threshold of 0.1 trusts.
        policy.recheckGap = 0.1
        let trusted = reader(script: [400: (" ab", 0.6)], recheck: [400: (" ca", 0.9)], policy: policy)
        #expect(try trusted.read(raster: page, cancellation: CancellationFlag()).lines.map(\.text) == ["ab", "ab"])
        #expect(trusted.timings.linesReadAgain == 0)
        // Without an exact recogniser nothing is read again.
        let alone = reader(script: [400: (" ab", 0.6)], policy: policy)
        #expect(try alone.read(raster: page, cancellation: CancellationFlag()).lines.map(\.text) == ["ab", "ab"])
        #expect((alone.timings.linesRead, alone.timings.linesReadAgain) == (2, 0))
    }
}

/// A recogniser that counts its runs' widths and the times its maps are given back.
final class RecogniserLog: @unchecked Sendable {
    var widths: [Int] = []
    var releases = 0
}

struct LoggingRecogniser: NetworkRunning {
    let log: RecogniserLog

    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap {
        log.widths.append(input.width)
        var scripted = ScriptedRecogniser(texts: [:])
        return try scripted.run(input, isCancelled: isCancelled)
    }

    mutating func releaseMemory() { log.releases += 1 }
}

/// A line far longer than it is high (a rule read as text) is squeezed to the widest input, and
/// the maps that wide are given back after the page; a page of ordinary lines keeps its maps.
@Suite struct WideLineTests {
    func read(_ quads: [DetectedBox]) throws -> RecogniserLog {
        let log = RecogniserLog()
        let page = Raster(width: 3000, height: 800, layout: .gray, filledWith: 255)
        let classifier = FixedNetwork(output: FeatureMap(channels: 1, height: 1, width: 2, values: [1, 0]))
        let detector = FixedNetwork(output: FeatureMap(channels: 1, height: 32, width: 32))
        let reader = NeuralReader(detector: detector, recogniser: LoggingRecogniser(log: log), recheck: nil, classifier: classifier,
                                  characters: FakeRows.characters, policy: .rapidOCR, finding: GivenLines(quads: quads),
                                  cropping: RectifiedLines())
        _ = try reader.read(raster: page, cancellation: CancellationFlag())
        return log
    }

    @Test func aRuleReadAsTextIsSqueezedAndItsMapsGivenBack() throws {
        let rule = try read([levelQuad(left: 10, top: 100, width: 2900, height: 6)])
        #expect(rule.widths == [RecognizerInput.maximumWidth], "ratio 483 would be \(48 * 2900 / 6) wide")
        #expect(rule.releases == 1)
        let ordinary = try read([levelQuad(left: 10, top: 100, width: 2400, height: 40)])
        #expect(ordinary.widths == [2880] && ordinary.releases == 0)
    }
}
