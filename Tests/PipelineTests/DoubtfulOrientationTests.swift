import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralReading
@testable import GlossPipeline
import GlossTestSupport
import GlossTextRecognition
import Testing

/// A page the orientation detector is unsure of is read both ways, and the reading Tesseract
/// is the more confident of is kept, its words on the page the analyzer was given.
@Suite(.serialized)
struct DoubtfulOrientationTests {
    static func sans() throws -> Raster { try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster }

    /// Each of `expected`'s words, carried by `turn`, is where `found` has a word of the same
    /// text, to within `tolerance` pixels.
    static func expectWords(of expected: [PixelWord], on expectedSize: PixelSize, carriedBy turn: PageTransform,
                            at found: [PixelWord], tolerance: Int = 3) {
        var unmatched = found
        for word in expected {
            let box = PixelRect(turn.preparedRect(ofInput: NormalizedRect(word.box, in: expectedSize)), in: turn.preparedSize)
            let match = unmatched.firstIndex { candidate in
                candidate.text == word.text && abs(candidate.box.x - box.x) <= tolerance && abs(candidate.box.y - box.y) <= tolerance
                    && abs(candidate.box.maxX - box.maxX) <= tolerance && abs(candidate.box.maxY - box.maxY) <= tolerance
            }
            #expect(match != nil, "\(word.text) expected at \(box)")
            if let match { unmatched.remove(at: match) }
        }
    }

    struct PixelWord {
        var text: String
        var box: PixelRect
    }

    static func words(_ text: RecognizedText, on size: PixelSize) -> [PixelWord] {
        text.words.map { PixelWord(text: $0.text, box: PixelRect($0.box, in: size)) }
    }

    @Test("a page on its side or head, doubted, reads as upright: the record says how, the words land on it",
          arguments: [1, 2])
    func theTurnedReadingWins(turns: Int) throws {
        let upright = try Self.sans()
        let turn = PageTransform(quarterTurns: turns, inputSize: upright.size)
        let page = upright.transformed(by: turn)
        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: .auto)
        let engine = try analyzer.makeEngine()
        let straight = try analyzer.analyze(AnalyzerImage(raster: upright, resolution: nil), with: engine, cancellation: CancellationFlag())

        var image = AnalyzerImage(raster: page, resolution: nil)
        let standing = (4 - turns) * 90
        image.doubtfulOrientation = DoubtfulOrientation(applied: 0, other: standing)
        let findings = try analyzer.analyze(image, with: engine, cancellation: CancellationFlag())

        let record = try #require(findings.preparation)
        if turns == 2 {
            #expect(record.rotation == 180 && record.rotationSetAside == 0)
        } else {
            // Tesseract reads a page on its side itself, turning lines it finds standing: either
            // reading may be the more confident, and the record says which was kept.
            #expect(Set([record.rotation, record.rotationSetAside]) == Set([0, standing]))
        }
        #expect(record.timings["turn"] != nil)
        #expect(findings.text.words.map(\.text) == straight.text.words.map(\.text))
        #expect(straight.text.words.count >= 40)
        Self.expectWords(of: Self.words(straight.text, on: upright.size), on: upright.size, carriedBy: turn,
                         at: Self.words(findings.text, on: page.size))
    }

    @Test("a way up left to the reading: an upright page's sure reading settles it, a page on its side is asked and stood up")
    func theFirstReadingSettlesOrAsks() throws {
        let upright = try Self.sans()
        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: .auto)
        let engine = try analyzer.makeEngine()
        // Leptonica's signal was unclear either way: no side, no head.
        let question = OrientationQuestion(direction: TextDirectionSignal(upConfidence: 1, sidewaysConfidence: 0.5),
                                           lettersFound: true, enlargement: nil)
        var image = AnalyzerImage(raster: upright, resolution: nil)
        image.orientationQuestion = question
        let straight = try analyzer.analyze(image, with: engine, cancellation: CancellationFlag())
        #expect(straight.preparation?.timings["osd"] == nil, "the detector is not asked")
        #expect(straight.preparation?.rotation == 0)
        #expect(straight.text.words.count >= 40)

        let turn = PageTransform(quarterTurns: 1, inputSize: upright.size)
        var onItsSide = AnalyzerImage(raster: upright.transformed(by: turn), resolution: nil)
        onItsSide.orientationQuestion = question
        let findings = try analyzer.analyze(onItsSide, with: engine, cancellation: CancellationFlag())
        let record = try #require(findings.preparation)
        #expect(record.timings["osd"] != nil, "the detector is asked")
        #expect(record.rotation == 270)
        #expect(findings.text.words.map(\.text) == straight.text.words.map(\.text))
        Self.expectWords(of: Self.words(straight.text, on: upright.size), on: upright.size, carriedBy: turn,
                         at: Self.words(findings.text, on: turn.preparedSize))
    }

    @Test("fast's orientation detector waits for the first reading unless Leptonica leans to a turn")
    func whichPagesWaitForTheirFirstReading() {
        func waits(_ up: Double, _ sideways: Double) -> Bool {
            PagePreparer.leavesWayUpToReading(TextDirectionSignal(upConfidence: up, sidewaysConfidence: sideways))
        }
        #expect(!waits(12, 1), "clearly upright: nothing to ask")
        #expect(waits(1, 0.5) && waits(4, -3), "unclear, leaning to no turn")
        #expect(!waits(-3, 1) && !waits(2, -4.9) && !waits(-8, 1) && !waits(1, 6), "a lean to the head or a side is asked at once")
    }

    @Test("rows of letters settle the way up when they run one way and the classifier is sure which way up they read")
    func letterRowsSettleTheWayUp() {
        func wayUp(_ across: Int, _ stood: Int, _ lines: Int, _ upsideDown: Int) -> Int? {
            LetterRows(lettersAcross: across, lettersStood: stood, turns: LineTurns(lines: lines, upsideDown: upsideDown)).wayUp
        }
        #expect(wayUp(492, 0, 16, 0) == 0 && wayUp(289, 73, 16, 4) == 0, "across, a quarter or fewer upside down")
        #expect(wayUp(492, 0, 16, 16) == 180 && wayUp(2608, 3, 16, 12) == 180, "across, three quarters or more")
        #expect(wayUp(0, 492, 16, 0) == 90 && wayUp(71, 289, 12, 9) == 270, "down the page: read stood up a quarter turn")
        #expect(wayUp(2608, 3, 16, 10) == nil && wayUp(2608, 3, 16, 5) == nil, "a classifier torn between the two")
        #expect(wayUp(41, 20, 16, 0) == nil && wayUp(20, 41, 16, 0) == nil, "rows that run neither way clearly")
        #expect(wayUp(492, 0, 7, 0) == nil && wayUp(0, 0, 0, 0) == nil, "too few rows to read")
        #expect(LetterRows(lettersAcross: 0, lettersStood: 0).direction == nil)
        #expect(LetterRows(lettersAcross: 300, lettersStood: 100).direction == 0)
        #expect(LetterRows(lettersAcross: 100, lettersStood: 300).direction == 1)
    }

    /// `expected`'s words as they lie on the page made from the upright one by `steps`, in turn.
    static func words(_ expected: [PixelWord], on size: PixelSize, carriedBy steps: [PageTransform]) -> [PixelWord] {
        expected.map { word in
            var box = NormalizedRect(word.box, in: size)
            for step in steps { box = step.preparedRect(ofInput: box) }
            return PixelWord(text: word.text, box: PixelRect(box, in: steps.last?.preparedSize ?? size))
        }
    }

    @Test("a skewed page on its side measures its skew only stood up: the skew its second reading is levelled by")
    func aSkewedPageOnItsSideIsMeasuredStoodUp() throws {
        let upright = try Self.sans()
        let skewed = upright.transformed(by: PageTransform(skew: -2, inputSize: upright.size), background: upright.medianValues())
        let page = skewed.transformed(by: PageTransform(quarterTurns: 1, inputSize: skewed.size))
        // Its lines stand as it comes: Leptonica measures no skew until the page is stood up.
        let ink = try #require(InkPage(grey: page.grayscale()))
        #expect(PagePreparer.levellingSkew(of: [ink], turnedBy: 0, fitting: page.size) == 0)
        let otherSkew = PagePreparer.levellingSkew(of: [ink], turnedBy: 3, fitting: page.size)
        #expect(abs(otherSkew - 2) <= 0.1, "\(otherSkew)")
    }

    /// The sans page lying on its side (turned three quarters clockwise: it needs a quarter),
    /// doubted the wrong way: the side proposed stands it on its head, the page as it came is
    /// on its side, and neither reads surely.
    @Test("a page on its side doubted the wrong way is read on its other side too, and stood up",
          arguments: [DoubtfulOrientation(applied: 270, other: 0)])
    func theOtherSideIsRead(doubt: DoubtfulOrientation) throws {
        let upright = try Self.sans()
        let onItsSide = PageTransform(quarterTurns: 3, inputSize: upright.size)
        let page = upright.transformed(by: onItsSide)
        // The copy the text analyzer is given: the page turned as the preparer applied.
        let applied = PageTransform(quarterTurns: doubt.applied / 90, inputSize: page.size)
        let given = page.transformed(by: applied)
        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: .auto)
        let engine = try analyzer.makeEngine()
        let straight = try analyzer.analyze(AnalyzerImage(raster: upright, resolution: nil), with: engine, cancellation: CancellationFlag())
        var image = AnalyzerImage(raster: given, resolution: nil)
        image.doubtfulOrientation = doubt
        let findings = try analyzer.analyze(image, with: engine, cancellation: CancellationFlag())

        let record = try #require(findings.preparation)
        #expect(record.rotation == 90)
        #expect(record.rotationSetAside == 0 || record.rotationSetAside == 270)
        #expect(findings.text.words.map(\.text) == straight.text.words.map(\.text))
        let expected = Self.words(Self.words(straight.text, on: upright.size), on: upright.size, carriedBy: [onItsSide, applied])
        Self.expectWords(of: expected, on: given.size, carriedBy: .identity(given.size),
                         at: Self.words(findings.text, on: given.size), tolerance: 4)
    }

    @Test("a turn taken unsure and wrong is undone: the page read as it came, its words on the copy given")
    func aWrongTurnIsUndone() throws {
        let upright = try Self.sans()
        let analyzer = TextAnalyzer(options: RecognitionOptions(), steps: .auto)
        let engine = try analyzer.makeEngine()
        let straight = try analyzer.analyze(AnalyzerImage(raster: upright, resolution: nil), with: engine, cancellation: CancellationFlag())
        // The preparer turned the upright page over on a doubtful answer.
        let wrongTurn = PageTransform(quarterTurns: 2, inputSize: upright.size)
        var image = AnalyzerImage(raster: upright.transformed(by: wrongTurn), resolution: nil)
        image.doubtfulOrientation = DoubtfulOrientation(applied: 180, other: 0)
        let findings = try analyzer.analyze(image, with: engine, cancellation: CancellationFlag())
        #expect(findings.preparation?.rotation == 0 && findings.preparation?.rotationSetAside == 180)
        #expect(findings.text.words.map(\.text) == straight.text.words.map(\.text))
        Self.expectWords(of: Self.words(straight.text, on: upright.size), on: upright.size, carriedBy: wrongTurn,
                         at: Self.words(findings.text, on: upright.size))
    }

    @Test("a doubt is kept only where Tesseract's detector is unsure and a second way exists")
    func whenAPageIsDoubted() {
        let weak = TextDirectionSignal(upConfidence: 0.5, sidewaysConfidence: -3.3)
        // A turn taken below the sure confidence is doubted against the page as it came.
        #expect(PagePreparer.doubt(OrientationEstimate(rotation: 180, confidence: 9.6), applied: 180, beside: weak)
                == DoubtfulOrientation(applied: 180, other: 0))
        #expect(PagePreparer.doubt(OrientationEstimate(rotation: 90, confidence: PagePreparer.surelyTurned), applied: 90,
                                   beside: weak) == nil)
        // A turn proposed and not taken is tried.
        #expect(PagePreparer.doubt(OrientationEstimate(rotation: 270, confidence: 2.4), applied: 0, beside: weak)
                == DoubtfulOrientation(applied: 0, other: 270))
        // Upright, however unsure, has no other way to try.
        #expect(PagePreparer.doubt(OrientationEstimate(rotation: 0, confidence: 1.2), applied: 0, beside: weak) == nil)
        // No answer at all: Leptonica's weak reading (a page turned a quarter clockwise) is tried,
        // and no reading at all tries nothing.
        #expect(PagePreparer.doubt(nil, applied: 0, beside: weak, lettersFound: true) == DoubtfulOrientation(applied: 0, other: 270))
        // Without letters (a photograph) there is no way up to doubt.
        #expect(PagePreparer.doubt(nil, applied: 0, beside: weak) == nil)
        let none = TextDirectionSignal(upConfidence: 0, sidewaysConfidence: 0)
        #expect(PagePreparer.doubt(nil, applied: 0, beside: none) == nil)
        // Neither says anything of a page with letters on it: it may stand on its head.
        #expect(PagePreparer.doubt(nil, applied: 0, beside: none, lettersFound: true) == DoubtfulOrientation(applied: 0, other: 180))
        #expect(PagePreparer.doubt(OrientationEstimate(rotation: 0, confidence: 0.5), applied: 0, beside: none, lettersFound: true) == nil)
        #expect(DoubtfulOrientation(applied: 270, other: 0).quarterTurns == 1)
        #expect(DoubtfulOrientation(applied: 0, other: 270).quarterTurns == 3)
    }

    @Test("a skew is taken when Leptonica is confident, or fairly confident of a large angle")
    func whenASkewIsTaken() {
        func taken(_ degrees: Double, confidence: Double) -> Bool {
            PagePreparer.trusts(SkewMeasurement(levellingDegrees: degrees, confidence: confidence))
        }
        #expect(taken(0.3, confidence: 3.5) && taken(-0.7, confidence: 3))
        // A map's scattered labels, skewed 3 degrees; straight, the same confidence measures 0.03.
        #expect(taken(3, confidence: 2.4) && taken(-1, confidence: 2))
        #expect(!taken(0.19, confidence: 2.6) && !taken(-0.9, confidence: 2.9))
        #expect(!taken(2.9, confidence: 1.9))
    }

    @Test("the skew comes from the first copy of the page that measures one Leptonica trusts")
    func theFirstTrustedSkewLevels() throws {
        let upright = try Self.sans()
        let skewed = upright.transformed(by: PageTransform(skew: -2, inputSize: upright.size), background: upright.medianValues())
        let blank = try #require(InkPage(grey: Raster(width: skewed.width, height: skewed.height, layout: .gray, filledWith: 255)))
        let straight = try #require(InkPage(grey: upright.grayscale()))
        let tilted = try #require(InkPage(grey: skewed.grayscale()))
        // A copy with no line to measure hands over to the next.
        let measured = PagePreparer.levellingSkew(of: [blank, tilted], turnedBy: 0, fitting: skewed.size)
        #expect(abs(measured - 2) <= 0.1, "\(measured)")
        // A copy measured level is an answer: the next is not asked.
        #expect(PagePreparer.levellingSkew(of: [straight, tilted], turnedBy: 0, fitting: skewed.size) == 0)
        #expect(PagePreparer.levellingSkew(of: [blank], turnedBy: 0, fitting: skewed.size) == 0)
        // The same skew measured for a page that levelled would grow past twice its pixels: none.
        #expect(PagePreparer.levellingSkew(of: [blank, tilted], turnedBy: 0, fitting: PixelSize(width: 150_000, height: 120)) == 0)
    }

    /// Levelled, a 150,000 by 120 pixel strip skewed 3 degrees would hold 1.2 billion pixels.
    @Test func aLongStripIsNotLevelledButAPageIs() {
        #expect(!PagePreparer.levellingFits(PixelSize(width: 150_000, height: 120), skew: 3, quarterTurns: 0))
        #expect(!PagePreparer.levellingFits(PixelSize(width: 120, height: 150_000), skew: -3, quarterTurns: 1))
        #expect(PagePreparer.levellingFits(PixelSize(width: 2480, height: 3508), skew: 10, quarterTurns: 0))
        #expect(PagePreparer.levellingFits(PixelSize(width: 150_000, height: 120), skew: 0, quarterTurns: 1))
    }

    @Test("a real photographed page the detector is unsure of reads upright by its rows, its boxes on the turned input",
          arguments: [1])
    func aRealPageIsStoodUp(turns: Int) async throws {
        let scratch = try ScratchFolder()
        let upright = try ImageFile(contentsOf: Fixtures.path("scans/page.png")).decodePage().raster
        let turn = PageTransform(quarterTurns: turns, inputSize: upright.size)
        // The upright page read as the turned one is, once, its letters enlarged.
        let straight = try await PreparationTests.read(upright, with: PreparationTests.preparing, in: scratch, name: "upright")
        let report = try await PreparationTests.read(upright.transformed(by: turn), with: PreparationTests.preparing,
                                                     in: scratch, name: "turned")
        let record = try #require(report.preparation)
        // Tesseract's detector is far from sure of this page (under 2 on its scale), and would
        // have it read both ways; its rows of letters settle it, and it is read once.
        var page = try ImageFile(contentsOf: Fixtures.path("scans/page.png")).decodePage()
        page.raster = upright.transformed(by: turn)
        page.size = page.raster.size
        let detected = PagePreparer(dataPath: nil, readsLetterRows: false).prepare(page)
        #expect(try #require(detected.record.orientationConfidence) < PagePreparer.surelyTurned)
        #expect(detected.doubt != nil && detected.doubt?.appliedIsSure == false)
        #expect(record.orientationConfidence == nil && record.rowsRead != nil)
        #expect(record.rotation == (4 - turns) * 90)
        #expect(record.rotationSetAside == nil)
        #expect(straight.words.count >= 30)
        let found = report.words.map { PixelWord(text: $0.text, box: $0.box) }
        let expected = straight.words.map { PixelWord(text: $0.text, box: $0.box) }
        #expect(Double(Set(found.map(\.text)).intersection(expected.map(\.text)).count)
                >= 0.9 * Double(Set(expected.map(\.text)).count))
        // The words each reading has once land where the turned page has them.
        func once(_ words: [PixelWord]) -> Set<String> {
            Set(Dictionary(grouping: words, by: \.text).filter { $0.value.count == 1 }.keys)
        }
        let common = once(found).intersection(once(expected))
        Self.expectWords(of: expected.filter { common.contains($0.text) }, on: upright.size, carriedBy: turn,
                         at: found, tolerance: 4)
    }
}
