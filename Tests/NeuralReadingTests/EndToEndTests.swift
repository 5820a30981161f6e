import GlossContract
import GlossGeometry
import GlossImaging
import GlossModels
import GlossNeuralKernelChoice
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

    /// The cascade (bf16, lines it is unsure of read again in fp32) reads the fixtures' lines
    /// as fp32 alone does, the same lines found once for both.
    @Test(.enabled(if: KernelChoice.current.kernels == .amx, "the AMX kernels do not run here (no AMX, or fp32 asked for)"))
    func theCascadeReadsAsFP32() throws {
        let exact = try NeuralReader.bundled(choice: KernelChoice.current.fp32)
        let cascade = try NeuralReader.bundled(choice: KernelChoice.current.cascading)
        var (read, again) = (0, 0)
        for name in ["text/sans.png", "text/upright.jpg"] {
            let raster = try ImageFile(contentsOf: Fixtures.path(name)).decodePage().raster
            let found = try exact.detect(raster: raster, cancellation: CancellationFlag())
            let wanted = try exact.read(lines: found, in: raster, cancellation: CancellationFlag())
            let got = try cascade.read(lines: found, in: raster, cancellation: CancellationFlag())
            #expect(got.map { $0?.text } == wanted.map { $0?.text }, "\(name)")
            #expect(!found.isEmpty, "\(name)")
            read += cascade.timings.linesRead
            again += cascade.timings.linesReadAgain
        }
        // The fp32 recogniser is there and runs on a few lines, not on all.
        #expect(again < read, "\(again) of \(read) lines read again")
    }
}
