import GlossContract
import GlossImaging
import GlossTextRecognition

/// Text through Tesseract: one engine per lane, the page at up to 300 ppi; then the ink the
/// words leave uncovered, for review.
struct TextAnalyzer: Analyzer {
    let options: RecognitionOptions
    /// Whether the text copy is prepared (`--prepare auto`) and dropped text read again.
    var preparing = false

    var name: String { "ocr" }
    var readsText: Bool { true }
    /// Scans above 300 ppi are reduced to it: Tesseract gains nothing from more, and a 600 ppi
    /// page takes four times as long. Grey, which is what Tesseract reads: a colour page's
    /// copy is a third of its size.
    var image: ImageRequest { ImageRequest(maximumResolution: 300, layout: .gray) }

    func makeEngine() throws -> TextRecognizer { try TextRecognizer(options: options) }

    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, cancellation: CancellationFlag) throws -> PageFindings {
        // The small copy the ink is measured on is made first: Tesseract copies the pixels, and
        // from then on its copy is the only full-size one.
        let small = InkCoverage.workingCopy(of: image.raster)
        // Preparing, the copy stays for the regions the layout dropped to be read from it.
        let page = preparing ? image.raster : nil
        var text = try engine.recognize(image.takeRaster(), resolution: image.resolution, cancellation: cancellation)
        var preparation: PagePreparation?
        if let page {
            let start = ContinuousClock.now
            let reread = try DroppedText.reread(text, page: page, small: small, engine: engine,
                                                resolution: image.resolution, cancellation: cancellation)
            text = reread.text
            var record = PagePreparation()
            record.regionsReread = reread.regionsReread
            record.wordsAdded = reread.wordsAdded
            record.timings.record("reread", ContinuousClock.now - start)
            preparation = record
        }
        let coverage = InkCoverage(page: small, words: text.words.map(\.box))
        return PageFindings(text: text, review: coverage.review, preparation: preparation)
    }
}
