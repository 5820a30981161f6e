import Foundation
import GlossContract
import GlossGeometry
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

    /// The mean word confidence from which a reading is trusted without a second. On the real
    /// pages of `bench/ocr-quality` turned four ways and skewed, and read the way the detector
    /// was unsure of, readings the wrong way up reached 64, and readings the right way up that
    /// a second reading would not have changed started at 86; of the pages told 300 ppi in
    /// place of their file's 96, the one that read better told 96 read at 79.6.
    static let confidentReading = 85.0

    /// Whether a reading is one Tesseract is unsure of, and worth a second reading to compare.
    static func isUnsure(_ text: RecognizedText) -> Bool { (text.meanConfidence ?? 0) < confidentReading }

    /// The mean word confidence under which a reading of a page whose way up the detectors
    /// were sure of is taken for garbage, and the page read turned over. Of the 63 real pages of
    /// `bench/ocr-quality` read upright, one read under 60 (a chart, at 38, whose text Tesseract
    /// barely reads any way up); a table of figures that both detectors took for upright on its
    /// head read at 46.
    static let garbledReading = 60.0

    /// Whether a reading looks like text read the wrong way up: words enough to tell, of low
    /// confidence.
    static func isGarbled(_ text: RecognizedText) -> Bool {
        text.words.count >= wordsToTell && (text.meanConfidence ?? 0) < garbledReading
    }

    /// Fewer words than this say nothing of which way up a page stands: a photograph's specks.
    static let wordsToTell = 5

    /// Bench only: families of rules switched off to measure what each adds
    /// (`GLOSS_RULES_OFF=turn,compare`).
    static let switchedOff: Set<String> = Set(
        (ProcessInfo.processInfo.environment["GLOSS_RULES_OFF"] ?? "").split(separator: ",").map(String.init))

    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, cancellation: CancellationFlag) throws -> PageFindings {
        guard let doubt = image.doubtfulOrientation, !Self.switchedOff.contains("turn") else {
            return try read(image.takeRaster(), resolution: image.resolution, with: engine, cancellation: cancellation)
        }
        // The orientation detector was unsure: the page is read both ways, and the reading
        // Tesseract is the more confident of kept, with its words carried back onto the copy
        // this analyzer was given. A page upside down reads as garbage of low confidence, so
        // a confident first reading is the page the right way up, and the second is not made.
        // Not for a page that may lie on its side: Tesseract turns the lines it finds standing
        // and reads them confidently, though worse than the page turned. When the detectors were
        // sure, only a reading that looks garbled is tried turned over.
        let raster = image.takeRaster()
        var findings = try read(raster, resolution: image.resolution, with: engine, cancellation: cancellation)
        if doubt.appliedIsSure {
            guard Self.isGarbled(findings.text) else { return findings }
        } else {
            let mayLieOnItsSide = doubt.applied == 0 && doubt.quarterTurns % 2 == 1
            guard mayLieOnItsSide || Self.isUnsure(findings.text) else { return findings }
        }
        let started = ContinuousClock.now
        var kept = (rotation: doubt.applied, skew: 0.0, text: findings.text)
        var setAside: (rotation: Int, text: RecognizedText)?
        /// Reads the page turned to `rotation` (clockwise from the input) and levelled by
        /// `skew`, and keeps it if it is the most confident reading yet.
        func readTurned(to rotation: Int, skew: Double) throws {
            let quarterTurns = (((rotation - doubt.applied) / 90) % 4 + 4) % 4
            let turn = PageTransform(quarterTurns: quarterTurns, skew: skew, inputSize: raster.size)
            let turned = try read(raster.prepared(by: turn), resolution: image.resolution, with: engine, cancellation: cancellation)
            if turned.text.isMoreConfident(than: kept.text) {
                setAside = (kept.rotation, kept.text)
                kept = (rotation, skew, turned.text)
                findings = turned.mapped(by: turn)
            } else if setAside.map({ turned.text.isMoreConfident(than: $0.text) }) ?? true {
                setAside = (rotation, turned.text)
            }
        }
        try readTurned(to: doubt.other, skew: doubt.otherSkew)
        // A page on its side may lie on either: when neither the side the detector proposed nor
        // the page as it came reads surely, the other side is read too. A table of figures the
        // detector turned the wrong way read at 46 on that side and 73 as it came (Tesseract
        // standing its lines up), and 75 on the side it needed. Not for a photograph, which
        // reads as no words, or a few specks, whichever way it stands.
        if doubt.quarterTurns % 2 == 1, Self.isUnsure(kept.text), kept.text.words.count >= Self.wordsToTell {
            let sideways = doubt.applied == 0 ? doubt.other : doubt.applied
            // The page as given is levelled already when the preparer turned it.
            try readTurned(to: (sideways + 180) % 360, skew: doubt.applied == 0 ? doubt.otherSkew : 0)
        }
        var record = findings.preparation ?? PagePreparation()
        record.rotation = kept.rotation
        record.rotationSetAside = setAside?.rotation
        if kept.skew != 0 { record.skew = kept.skew }
        record.timings.record("turn", ContinuousClock.now - started)
        findings.preparation = record
        return findings
    }

    /// The page's text read from `raster`, with this analyzer's steps of `--prepare`.
    private func read(_ raster: Raster, resolution: Int?, with engine: TextRecognizer,
                      cancellation: CancellationFlag) throws -> PageFindings {
        // One grey copy serves every measure of the page (the ink, the paper, the letters): a
        // colour page is converted once. The small copy the ink is measured on is made first:
        // Tesseract copies the pixels, and from then on its copy is the only full-size one.
        let grey = raster.layout == .gray ? raster : raster.grayscale()
        let small = InkCoverage.workingCopy(of: grey)
        // Scaling and re-reading are this analyzer's steps of `--prepare`; turning and
        // levelling were done before the copy was made.
        var preparation = steps.isDisjoint(with: [.flatten, .scale, .reread]) ? nil : PagePreparation()
        var raster = raster, resolution = resolution
        // The copy at its own size, kept when its small letters are enlarged: both are read,
        // this one at the resolution its file states (as the `tesseract` command reads it).
        var asItCame: (raster: Raster, resolution: Int?)?
        var enlarged = false
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
            // Enlarged letters are always read as they came too; letters left at their size
            // are when the file states a resolution that was not believed (a placeholder 72 or
            // 96) and the reading is unsure. A file that states none has no other to try.
            enlarged = scale.factor > 1
            if enlarged || (scale.factor == 1 && resolution != nil && scale.resolution != resolution) {
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
        if let asItCame, !Self.switchedOff.contains("compare"), enlarged || Self.isUnsure(text) {
            // Small letters read better enlarged on most pages (a map's labels: 0.49 to 0.78
            // F1), and worse on some (a book page at x-height 10: 0.99 to 0.97); the reading
            // Tesseract is the more confident of is the better one on all 11 such real pages.
            // Likewise the resolution told: 300 in place of a placeholder 96 keeps the columns
            // of most tables (0.73 to 0.97 F1), and drops a table's decimal points as specks
            // (0.91 to 0.84), a reading Tesseract is unsure of.
            let started = ContinuousClock.now
            let unscaled = try engine.recognize(asItCame.raster, resolution: asItCame.resolution, cancellation: cancellation)
            if unscaled.isMoreConfident(than: text) {
                text = unscaled
                if page != nil { page = asItCame.raster }
                if var record = preparation {
                    if enlarged {
                        record.enlargementSetAside = record.scale
                        record.scale = 1
                    } else {
                        record.resolutionSetAside = resolution
                    }
                    preparation = record
                }
                resolution = asItCame.resolution
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
