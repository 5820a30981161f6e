import GlossContract
import GlossImaging
import GlossModels
import GlossNeuralReading
import GlossReading
import GlossTestSupport
import GlossTextRecognition
import Testing

/// The plan with both real readers on a rendered page whose every word is known.
@Suite struct EndToEndTests {
    /// Tesseract's reading of a page with its first line taken out, as its layout drops text.
    struct TesseractDroppingTheFirstLine: PageTextReader {
        let engine: TextRecognizer
        let raster: Raster

        mutating func readPage(cancellation: CancellationFlag) throws -> RecognizedText {
            var text = try engine.recognize(raster, resolution: nil, cancellation: cancellation)
            text.blocks[0].paragraphs[0].lines.removeFirst()
            return text
        }

        /// The measure of ink without words is the pipeline's (`InkCoverage`, `SurePageTests`);
        /// here the page says its dropped line's ink is uncovered.
        func uncoveredText(of text: RecognizedText) -> Double { 1 }
    }

    @Test func theLineTesseractDroppedIsReadByTheNeuralReaderAndEveryOtherStands() throws {
        let truth = try Fixtures.truth("text/sans.json")[0]
        let raster = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        var page = TesseractDroppingTheFirstLine(engine: try TextRecognizer(), raster: raster)
        var lines = NeuralLines(reader: try NeuralReader.bundled(), raster: raster)
        let signals = PageSignals.measured(grey: raster.layout == .gray ? raster : raster.grayscale(), statedResolution: nil)
        let reading = try PlanExecution.read(signals: signals, mode: .accurate, policy: FusionPolicy(), page: &page, lines: &lines,
                                             cancellation: CancellationFlag())
        let detected = try #require(reading.plan.lines).lines
        #expect(detected.count == 6)
        #expect(reading.actions.first == .readInstead)
        #expect(reading.rules.contains(.uncoveredLine))
        // Every detected line is read, the first by the neural reader, the rest by Tesseract.
        #expect(reading.text.lines.count == detected.count)
        #expect(reading.text.lines.first?.reader == .neural)
        #expect(reading.text.lines.dropFirst().allSatisfy { $0.reader == .tesseract })
        #expect(reading.text.words.map(\.text) == truth.words.map(\.text))
    }
}
