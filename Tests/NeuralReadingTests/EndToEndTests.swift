import GlossContract
import GlossGeometry
import GlossImaging
import GlossModels
import GlossNeuralReading
import GlossTestSupport
import Testing

/// The neural reader on a rendered page whose every word position is known.
@Suite struct EndToEndTests {
    @Test func sansReadsItsWordsOnTheDrawnWords() throws {
        let truth = try Fixtures.truth("text/sans.json")[0]
        let raster = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let reader = try NeuralReader.bundled()
        let text = try reader.read(raster: raster, cancellation: CancellationFlag())
        let read = text.words.map { (text: $0.text, box: PixelRect($0.box, in: raster.size)) }
        #expect(read.map(\.text) == truth.words.map(\.text))
        for (word, expected) in zip(read, truth.words) {
            let box = word.box
            #expect(abs(box.x - expected.box.x) <= 3 && abs(box.y - expected.box.y) <= 3
                    && abs(box.maxX - expected.box.x - expected.box.width) <= 3 && abs(box.maxY - expected.box.y - expected.box.height) <= 3,
                    "\(word.text): \(box) where \(expected.box) was drawn")
        }
    }
}
