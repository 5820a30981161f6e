import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossPreparation
import GlossReading
import GlossTextRecognition

/// Text through Tesseract: one engine per lane, the page at up to 300 ppi; then the ink the
/// words leave uncovered, for review.
struct TextAnalyzer: Analyzer {
    let options: RecognitionOptions
    /// The preparation steps asked for (`--prepare`); this analyzer does scaling and re-reading.
    var steps: PreparationSteps = .none
    /// When a second reading is made (`SecondReadings`), and in which modes the text the
    /// layout dropped is read again.
    var policy = PreparationPolicy()
    /// The mode this reading serves: alone (`fast`), or as the page reader of the plan.
    var mode = TextMode.fast

    var name: String { "ocr" }
    var readsText: Bool { true }
    /// Scans above 300 ppi are reduced to it: Tesseract gains nothing from more, and a 600 ppi
    /// page takes four times as long. In the page's own colours: Tesseract thresholds a colour
    /// page channel by channel, and reads coloured text that a grey copy loses (three colour
    /// pages of the Scribe benchmark read 0.03 to 0.05 F1 better so, as the `tesseract`
    /// command reads them).
    var image: ImageRequest { ImageRequest(maximumResolution: 300) }

    func makeEngine() throws -> TextRecognizer { try TextRecognizer(options: options) }

    /// Whether the text the layout dropped is read again: asked (`--prepare`), and worth it in
    /// this mode (`PreparationPolicy.rereadsDroppedText`).
    var rereads: Bool { steps.contains(.reread) && policy.rereadsDroppedText.contains(mode) }

    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, cancellation: CancellationFlag) throws -> PageFindings {
        try analyze(image, with: engine, asGiven: nil, cancellation: cancellation)
    }

    /// The same, for a page whose reading the way it was given (its doubt set aside) is
    /// `asGiven`, made already: that reading stands for that way among its turns.
    func analyze(_ image: AnalyzerImage, with engine: TextRecognizer, asGiven: PageFindings?,
                 cancellation: CancellationFlag) throws -> PageFindings {
        if let question = image.orientationQuestion, policy.turnsDoubtedPages.contains(mode) {
            return try settle(question, of: image, with: engine, cancellation: cancellation)
        }
        guard let doubt = image.doubtfulOrientation, policy.turnsDoubtedPages.contains(mode) else {
            return try read(image.takeRaster(), resolution: image.resolution, with: engine, cancellation: cancellation)
        }
        return try readTurns(image.takeRaster(), standing: doubt.applied, doubt: doubt, resolution: image.resolution,
                             asGiven: asGiven, with: engine, cancellation: cancellation)
    }

    /// A page whose way up the preparer left to this reading (`OrientationQuestion`): read as it
    /// came, and kept when that reading settles the way up (`SecondReadings.settlesWayUp`).
    /// Else Tesseract's orientation detector is asked here, as the preparer would have asked
    /// it, and the page read the ways the preparer's answer would have had it read, this first
    /// reading standing for the page as it came.
    private func settle(_ question: OrientationQuestion, of image: AnalyzerImage, with engine: TextRecognizer,
                        cancellation: CancellationFlag) throws -> PageFindings {
        let raster = image.takeRaster()
        let first = try read(raster, resolution: image.resolution, with: engine, cancellation: cancellation)
        if SecondReadings.settlesWayUp(first.text, size: raster.size, policy: policy, from: policy.settlingReading) { return first }
        if cancellation.isRaised { throw CancellationError() }
        let started = ContinuousClock.now
        let reduction = PagePreparer.reduction(for: raster.size)
        // Small letters are read for their direction enlarged, as the preparer reads them.
        var enlarged = question.enlargement.map { scale in
            let size = scale.scaled(raster.size)
            return (copy: raster.grayscale().enlarged(width: size.width, height: size.height), scale: scale)
        }
        let estimate = engine.orientationDetector().flatMap { detector in
            PagePreparer.estimate(by: detector, of: raster, resolution: image.resolution, reducedBy: reduction, enlarged: enlarged)
        }
        // The preparer levelled the page as it came; a page turned here is levelled for its turn,
        // measured as the preparer measures it: on the letters at their own size, then enlarged.
        let inks = [InkPage(grey: PagePreparer.grey(raster, reducedBy: reduction)), enlarged.flatMap { InkPage(grey: $0.copy) }]
            .compactMap { $0 }
        enlarged = nil
        let asked = ContinuousClock.now - started
        let rotation = estimate.map { PagePreparer.accepts($0, beside: question.direction) ? $0.rotation : 0 } ?? 0
        let doubt = PagePreparer.doubt(estimate, applied: rotation, beside: question.direction, lettersFound: question.lettersFound)
            ?? (question.lettersFound ? .overturned(from: rotation) : nil)
        let levelling = { (quarterTurns: Int) -> Double in
            PagePreparer.levellingSkew(of: inks, turnedBy: quarterTurns, fitting: raster.size)
        }
        var findings: PageFindings
        if let doubt {
            findings = try readTurns(raster, standing: 0, doubt: doubt, resolution: image.resolution, asGiven: first,
                                     levelling: levelling, with: engine, cancellation: cancellation)
        } else if rotation != 0 {
            let turn = PageTransform(quarterTurns: rotation / 90, skew: levelling(rotation / 90), inputSize: raster.size)
            findings = try read(raster.prepared(by: turn), resolution: image.resolution, with: engine,
                                cancellation: cancellation).mapped(by: turn)
            var record = findings.preparation ?? PagePreparation()
            record.rotation = rotation
            record.skew = turn.skew
            findings.preparation = record
        } else {
            findings = first
        }
        var record = findings.preparation ?? PagePreparation()
        record.orientationConfidence = estimate.map { ($0.confidence * 100).rounded() / 100 }
        record.timings.record("osd", asked)
        findings.preparation = record
        return findings
    }

    /// The page read the ways `SecondReadings` decides for `doubt`, from the readings made, and
    /// the reading Tesseract is the more confident of kept, its words carried back onto `raster`,
    /// which stands at `standing` (degrees clockwise from the input page). `asGiven` is a
    /// reading of `raster` made already; `levelling` the skew of a turn made here, in quarter
    /// turns from `raster` (else the turn's own).
    private func readTurns(_ raster: Raster, standing: Int, doubt: DoubtfulOrientation, resolution: Int?,
                           asGiven: PageFindings? = nil, levelling: ((Int) -> Double)? = nil, with engine: TextRecognizer,
                           cancellation: CancellationFlag) throws -> PageFindings {
        // Each reading made: its turn, and its findings on `raster`.
        var made: [(turn: NextTurn, findings: PageFindings)] = []
        var readings: [TurnedReading] { made.map { TurnedReading(rotation: $0.turn.rotation, text: $0.findings.text) } }
        var started = ContinuousClock.now
        // The turns of a page in doubt are each read at their own size too, when scaled: the
        // reading made already, at one size, is then made again so.
        let comparesUnscaled = SecondReadings.comparesAtOwnSize(doubt, policy: policy)
        let asGiven = comparesUnscaled ? nil : asGiven
        while let next = SecondReadings.nextTurn(after: readings, doubt: doubt, policy: policy) {
            // "turn" is what the readings after the first cost.
            if made.count == 1 { started = ContinuousClock.now }
            if let asGiven, next.rotation == standing {
                made.append((next, asGiven))
                continue
            }
            let quarterTurns = (((next.rotation - standing) / 90) % 4 + 4) % 4
            let skew = next.skew != 0 ? next.skew : levelling.map { $0(quarterTurns) } ?? 0
            let turn = PageTransform(quarterTurns: quarterTurns, skew: skew, inputSize: raster.size)
            let findings = try read(turn.isIdentity ? raster : raster.prepared(by: turn), resolution: resolution,
                                    comparesUnscaled: comparesUnscaled, with: engine, cancellation: cancellation)
            made.append((NextTurn(rotation: next.rotation, skew: skew), turn.isIdentity ? findings : findings.mapped(by: turn)))
        }
        let (kept, setAside) = SecondReadings.chosen(readings)
        guard let index = made.firstIndex(where: { $0.turn.rotation == kept.rotation && $0.findings.text == kept.text }),
              made.count > 1 || kept.rotation != standing else {
            return made[0].findings
        }
        var chosen = made[index].findings
        var record = chosen.preparation ?? PagePreparation()
        record.rotation = kept.rotation
        record.rotationSetAside = setAside?.rotation
        if made[index].turn.skew != 0 { record.skew = made[index].turn.skew }
        if made.count > 1 { record.timings.record("turn", ContinuousClock.now - started) }
        chosen.preparation = record
        return chosen
    }

    /// The page's text read from `raster`, with this analyzer's steps of `--prepare`. A page
    /// whose way up is in doubt (`comparesUnscaled`) is read at its own size too when scaled:
    /// the readings of its turns are compared by confidence, and its letters are measured on
    /// the turns that stand upright only (a photographed page enlarged stood up read less
    /// surely than on its side at its own size, `DoubtfulOrientationTests`).
    private func read(_ raster: Raster, resolution: Int?, comparesUnscaled: Bool = false, with engine: TextRecognizer,
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
        // The copy at its own size, kept when a doubted page's letters are enlarged or its
        // stated resolution is not believed.
        var asItCame: (raster: Raster, resolution: Int?)?
        var enlarged = false
        var resolutionDoubted = false
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
            // The scaled copy is the one read: reading the page as it came too, and keeping the
            // more confident reading, changed no kind of page on the half it was not tuned on
            // (docs/reading-measured.md, "The rules measured"); a doubted page's turns still are.
            enlarged = scale.factor > 1
            resolutionDoubted = scale.factor == 1 && resolution != nil && scale.resolution != resolution
            if comparesUnscaled && (enlarged || resolutionDoubted) {
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
        var page = rereads ? raster : nil
        var text = try engine.recognize(raster, resolution: resolution, cancellation: cancellation)
        if let asItCame,
           SecondReadings.readsAsItCameToo(enlarged: enlarged, resolutionDoubted: resolutionDoubted, first: text, policy: policy) {
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
        // The ink of the small copy serves the dropped text's search and the coverage both.
        let ink = InkCoverage.ink(in: small)
        if let page, var record = preparation {
            let start = ContinuousClock.now
            let reread = try DroppedText.reread(text, page: page, small: small, ink: ink, engine: engine,
                                                resolution: resolution, cancellation: cancellation)
            text = reread.text
            record.regionsReread = reread.regionsReread
            record.wordsAdded = reread.wordsAdded
            record.timings.record("reread", ContinuousClock.now - start)
            preparation = record
        }
        let coverage = InkCoverage(page: small, words: text.words.map(\.box), ink: ink)
        return PageFindings(text: text, review: coverage.review, preparation: preparation)
    }
}
