import GlossContract
import GlossImaging
import GlossTextRecognition

/// Text through Tesseract: one engine per lane, the page at up to 300 ppi.
struct TextAnalyzer: Analyzer {
    let options: RecognitionOptions

    var name: String { "ocr" }
    var readsText: Bool { true }
    /// Scans above 300 ppi are reduced to it: Tesseract gains nothing from more, and a 600 ppi
    /// page takes four times as long.
    var image: ImageRequest { ImageRequest(maximumResolution: 300) }

    func makeEngine() throws -> TextRecognizer { try TextRecognizer(options: options) }

    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, cancellation: CancellationFlag) throws -> PageFindings {
        PageFindings(text: try engine.recognize(image.raster, resolution: image.resolution, cancellation: cancellation))
    }
}
