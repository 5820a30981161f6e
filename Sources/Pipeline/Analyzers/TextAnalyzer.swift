import GlossContract
import GlossImaging
import GlossPreparation
import GlossTextRecognition

/// Text through Tesseract: one engine per lane, the page at up to 300 ppi; then the ink the
/// words leave uncovered, for review.
struct TextAnalyzer: Analyzer {
    let options: RecognitionOptions
    /// The preparation steps asked for (`--prepare`); this analyzer does scaling and re-reading.
    var steps: PreparationSteps = .none

    var name: String { "ocr" }
    var readsText: Bool { true }
    /// Scans above 300 ppi are reduced to it: Tesseract gains nothing from more, and a 600 ppi
    /// page takes four times as long. In the page's own colours: Tesseract thresholds a colour
    /// page channel by channel, and reads coloured text that a grey copy loses (three colour
    /// pages of the Scribe benchmark read 0.03 to 0.05 F1 better so, as the `tesseract`
    /// command reads them).
    var image: ImageRequest { ImageRequest(maximumResolution: 300) }

    func makeEngine() throws -> TextRecognizer { try TextRecognizer(options: options) }

    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, cancellation: CancellationFlag) throws -> PageFindings {
        // One grey copy serves every measure of the page (the ink, the paper, the letters): a
        // colour page is converted once. The small copy the ink is measured on is made first:
        // Tesseract copies the pixels, and from then on its copy is the only full-size one.
        let grey = image.raster.layout == .gray ? image.raster : image.raster.grayscale()
        let small = InkCoverage.workingCopy(of: grey)
        // Scaling and re-reading are this analyzer's steps of `--prepare`; turning and
        // levelling were done before the copy was made.
        var preparation = steps.isDisjoint(with: [.flatten, .scale, .reread]) ? nil : PagePreparation()
        var raster = image.takeRaster(), resolution = image.resolution
        // The copy at its own size, kept when its small letters are enlarged: both are read,
        // this one at the resolution its file states (as the `tesseract` command reads it).
        var asItCame: (raster: Raster, resolution: Int?)?
        if steps.contains(.flatten) {
            let started = ContinuousClock.now
            let recipe = PixelRecipe.chosen(for: grey).recipe
            if !recipe.isIdentity {
                raster = recipe.rendered(grey)
                preparation?.binarization = recipe.summary
            }
            preparation?.timings.record("flatten", ContinuousClock.now - started)
        }
        if steps.contains(.scale) {
            let started = ContinuousClock.now
            // Flattened, the copy is grey already; else its grey copy has the same letters.
            let letters = LetterSize(of: raster.layout == .gray ? raster : grey)
            let scale = TextScale(letters: letters, statedResolution: resolution, size: raster.size)
            if cancellation.isRaised { throw CancellationError() }
            if scale.factor > 1 {
                asItCame = (raster, resolution)
            }
            if scale.factor != 1 {
                let size = scale.scaled(raster.size)
                raster = scale.factor > 1 ? raster.enlarged(width: size.width, height: size.height)
                                          : raster.resampled(width: size.width, height: size.height)
            }
            resolution = scale.resolution
            preparation?.xHeight = letters.map { Double($0.xHeight) }
            preparation?.scale = (scale.factor * 1000).rounded() / 1000
            preparation?.timings.record("scale", ContinuousClock.now - started)
        }
        // Preparing, the copy read stays for the regions the layout dropped to be read again
        // from the same pixels, at the same resolution.
        var page = steps.contains(.reread) ? raster : nil
        var text = try engine.recognize(raster, resolution: resolution, cancellation: cancellation)
        if let asItCame {
            // Small letters read better enlarged on most pages (a map's labels: 0.49 to 0.78
            // F1), and worse on some (a book page at x-height 10: 0.99 to 0.97); the reading
            // Tesseract is the more confident of is the better one on all 11 such real pages.
            let started = ContinuousClock.now
            let unscaled = try engine.recognize(asItCame.raster, resolution: asItCame.resolution, cancellation: cancellation)
            if (unscaled.meanConfidence ?? 0) > (text.meanConfidence ?? 0) {
                text = unscaled
                resolution = asItCame.resolution
                if page != nil { page = asItCame.raster }
                if var record = preparation {
                    record.enlargementSetAside = record.scale
                    record.scale = 1
                    preparation = record
                }
            }
            preparation?.timings.record("compare", ContinuousClock.now - started)
        }
        if let page, var record = preparation {
            let start = ContinuousClock.now
            let reread = try DroppedText.reread(text, page: page, small: small, engine: engine,
                                                resolution: resolution, cancellation: cancellation)
            text = reread.text
            record.regionsReread = reread.regionsReread
            record.wordsAdded = reread.wordsAdded
            record.timings.record("reread", ContinuousClock.now - start)
            preparation = record
        }
        let coverage = InkCoverage(page: small, words: text.words.map(\.box))
        return PageFindings(text: text, review: coverage.review, preparation: preparation)
    }
}

