import GlossContract
import GlossGeometry
import GlossReading
import Testing

/// The plan run with fake readers: which lines the neural reader is asked for, which reading
/// each line keeps, and the rules recorded.
@Suite struct FusionTests {
    let policy = FusionPolicy()
    let cancellation = CancellationFlag()

    /// Three detected rows: row 0 Tesseract read surely, row 1 unsurely, row 2 not at all.
    func threeRows(neuralOnUnsure confidence: Double) -> (FakePage, FakeLines) {
        let page = FakePage([
            Page.line([Page.word("Sure", row: 0, from: 0.1, to: 0.3, confidence: 95),
                       Page.word("line", row: 0, from: 0.4, to: 0.6, confidence: 92)]),
            Page.line([Page.word("Unsvre", row: 1, from: 0.1, to: 0.4, confidence: 55)]),
        ])
        let lines = FakeLines(
            lines: [LineSignals(box: Page.row(0)), LineSignals(box: Page.row(1)), LineSignals(box: Page.row(2))],
            readings: [
                0: Page.line([Page.word("Sure", row: 0, from: 0.1, to: 0.3, confidence: 99)]),
                1: Page.line([Page.word("Unsure", row: 1, from: 0.1, to: 0.4, confidence: confidence)]),
                2: Page.line([Page.word("Dropped", row: 2, from: 0.1, to: 0.5, confidence: 70)]),
            ])
        return (page, lines)
    }

    @Test func uncoveredAndUnsureLinesAreReadAndTheSurerReadingKept() throws {
        var (page, lines) = threeRows(neuralOnUnsure: 90)
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        // The confident line is never read again.
        #expect(lines.asked == [1, 2])
        #expect(reading.actions == [.keep, .readAlso, .readInstead])
        #expect(reading.text.lines.map(\.text) == ["Sure line", "Unsure", "Dropped"])
        #expect(reading.text.lines.map(\.reader) == [.tesseract, .neural, .neural])
        #expect(reading.rules == [.fuseLines, .confidentLine, .unsureLine, .uncoveredLine, .geometricOrder])
        #expect(page.reads == 1)
    }

    /// The detector is sized from the words of the first reading that are sure: their median
    /// height in the page's pixels, given only when enough of them are sure.
    @Test func theDetectorIsGivenTheMedianHeightOfTheSureWords() throws {
        func word(height: Double, confidence: Double) -> RecognizedWord {
            RecognizedWord(text: "word", box: NormalizedRect(x: 0.1, y: 0.5, width: 0.1, height: height), confidence: confidence)
        }
        // Sure words 20, 40 and 30 px tall on the 1000 px page, and a taller unsure one.
        let words = [word(height: 0.02, confidence: 97), word(height: 0.04, confidence: 97),
                     word(height: 0.03, confidence: 97), word(height: 0.2, confidence: 60)]
        for (fewest, expected) in [(3, 30.0 as Double?), (4, nil)] {
            var policy = policy
            policy.fewestSizingWords = fewest
            var page = FakePage([Page.line(words)])
            var lines = FakeLines(lines: [LineSignals(box: Page.row(0))], readings: [:])
            let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page,
                                                 lines: &lines, cancellation: cancellation)
            #expect(reading.rules.contains(.wordsSizeDetector) == (expected != nil))
            #expect(lines.wordHeights.count == 1)
            let given = try #require(lines.wordHeights.first)
            #expect(given.map { ($0 * 1000).rounded() / 1000 } == expected, "fewest \(fewest)")
        }
    }

    /// The page is read first the way it was given. A doubted way up the detected lines settle
    /// keeps that reading; one they do not settle is read again with its doubt (its other ways).
    @Test func thePageIsReadAgainOnlyWhenTheLinesLeaveItsWayUpInDoubt() throws {
        for (doubted, linesToSettle) in [(true, 3), (false, 3), (true, 4), (false, 4)] {
            var policy = policy
            policy.linesToSettle = linesToSettle
            var (page, lines) = threeRows(neuralOnUnsure: 90)
            var signals = Page.signals
            signals.wayUpInDoubt = doubted
            let reading = try PlanExecution.read(signals: signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                                 cancellation: cancellation)
            let settles = doubted && linesToSettle == 3
            #expect(reading.rules.contains(.linesSettleWayUp) == settles)
            #expect(page.settled == (doubted && !settles ? [true, false] : [true]), "doubted \(doubted), \(linesToSettle)")
        }
    }

    /// A page whose way up the detectors were unsure of is not read first: its lines come
    /// first, and it is read once, the way they settle or with its doubt.
    @Test func aPageTheDetectorsWereUnsureOfIsReadAfterItsLines() throws {
        for linesToSettle in [3, 4] {
            var policy = policy
            policy.linesToSettle = linesToSettle
            var (page, lines) = threeRows(neuralOnUnsure: 90)
            var signals = Page.signals
            signals.wayUpInDoubt = true
            signals.detectorsUnsure = true
            let reading = try PlanExecution.read(signals: signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                                 cancellation: cancellation)
            #expect(page.settled == [linesToSettle == 3] && lines.detections == 1)
            #expect(!reading.rules.contains(.surePage))
        }
    }

    /// A page Tesseract read surely, every line of it, with no text-like ink left without
    /// words, stands as read: the detector never runs. A doubted way up stands so only when the
    /// reading settles it. An unsure line, too few lines, ink without words or a way up left
    /// in doubt each send it to the detector.
    @Test func aSurePageStandsWithoutTheDetector() throws {
        func read(lines count: Int, confidence: Double = 96, uncovered: Double = 0, doubted: Bool = false)
            throws -> (PlannedReading, FakePage, FakeLines) {
            var page = FakePage((0..<count).map { row in
                Page.line([Page.word("Line", row: row, from: 0.1, to: 0.3, confidence: row == 1 ? confidence : 96),
                           Page.word("\(row)", row: row, from: 0.4, to: 0.5, confidence: 97)])
            })
            page.uncovered = uncovered
            var lines = FakeLines(lines: (0..<count).map { LineSignals(box: Page.row($0)) }, readings: [:])
            var signals = Page.signals
            signals.wayUpInDoubt = doubted
            let reading = try PlanExecution.read(signals: signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                                 cancellation: cancellation)
            return (reading, page, lines)
        }
        let (sure, page, lines) = try read(lines: 4)
        #expect(sure.rules == [.surePage] && sure.plan.lines == nil && !sure.detected)
        #expect(sure.text == page.text && page.reads == 1 && page.settled == [true])
        #expect(lines.detections == 0 && lines.asked.isEmpty)

        let edge = try read(lines: policy.surePageLines, uncovered: policy.surePageText)
        #expect(edge.0.rules == [.surePage], "at the thresholds")
        // Five level words of three letters or more settle a doubted way up (`SecondReadings.settlesWayUp`).
        let settled = try read(lines: policy.preparation.wordsToTell, doubted: true)
        #expect(settled.0.rules == [.surePage] && settled.1.reads == 1)
        for (reading, page, lines) in [try read(lines: 4, confidence: 60), try read(lines: policy.surePageLines - 1),
                                       try read(lines: 4, uncovered: policy.surePageText + 0.01)] {
            #expect(!reading.rules.contains(.surePage) && reading.rules.first == .fuseLines && reading.detected)
            #expect(lines.detections == 1 && page.reads == 1)
        }
        let unsettled = try read(lines: policy.preparation.wordsToTell - 1, doubted: true)
        #expect(!unsettled.0.rules.contains(.surePage) && unsettled.2.detections == 1 && unsettled.1.settled == [true, false])
    }

    /// Tesseract's words kept on a detected line run the way Tesseract read them: left to right
    /// on a page it read upright though the classifier called the line upside down, right to
    /// left on a page it read turned over, whichever way the classifier called the line.
    @Test func tesseractsWordsKeepTheWayTesseractReadThem() {
        let box = Page.row(0)
        let turned = LineSignals(box: box, baseline: Baseline(start: NormalizedPoint(x: box.maxX, y: box.maxY),
                                                               end: NormalizedPoint(x: box.minX, y: box.maxY)),
                                 height: 20, angle: 180, isTurnedOver: true)
        let upright = LineSignals(box: box)
        let words = [Page.word("minutes", row: 0, from: 0.1, to: 0.3, confidence: 96),
                     Page.word("of", row: 0, from: 0.35, to: 0.4, confidence: 96),
                     Page.word("1851", row: 0, from: 0.5, to: 0.6, confidence: 96)]
        let plan = ReadingPlan(signals: Page.signals, mode: .accurate, policy: policy)
        for line in [turned, upright] {
            // Read upright: Tesseract's words come left to right.
            let fused = LineFusion.fused(line, action: .keep, pageWords: words, lineReading: nil, plan: plan, policy: policy)
            #expect(fused?.words.map(\.text) == ["minutes", "of", "1851"])
            #expect(fused?.baseline.map { $0.start.x < $0.end.x && abs($0.start.y - box.minY) < 1e-9 } == true)
            // Read turned over: right to left on the page, the line's bottom at the top of its box.
            let over = LineFusion.fused(line, action: .keep, pageWords: words.reversed(), lineReading: nil, plan: plan, policy: policy)
            #expect(over?.words.map(\.text) == ["1851", "of", "minutes"])
            #expect(over?.baseline.map { $0.start.x > $0.end.x && abs($0.start.y - box.maxY) < 1e-9 } == true)
        }
        // One word says no way: the detector's baseline stands.
        let alone = LineFusion.fused(turned, action: .keep, pageWords: [words[0]], lineReading: nil, plan: plan, policy: policy)
        #expect(alone?.baseline == turned.baseline)
    }

    @Test func anUnsureLineKeepsTesseractsReadingWhenTheNeuralOneIsLessSure() throws {
        var (page, lines) = threeRows(neuralOnUnsure: 40)
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.text.lines.map(\.text) == ["Sure line", "Unsvre", "Dropped"])
        #expect(reading.text.lines.map(\.reader) == [.tesseract, .tesseract, .neural])
    }

    @Test func aLineTheNeuralReaderFindsNothingOnKeepsTesseractsWords() throws {
        var (page, lines) = threeRows(neuralOnUnsure: 90)
        lines.readings[1] = nil
        lines.readings[2] = nil
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.text.lines.map(\.text) == ["Sure line", "Unsvre"])
    }

    @Test func fastNeitherDetectsNorReadsLines() throws {
        var (page, lines) = threeRows(neuralOnUnsure: 90)
        let reading = try PlanExecution.read(signals: Page.signals, mode: .fast, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(lines.detections == 0)
        #expect(lines.asked.isEmpty)
        #expect(reading.text == page.text)
        #expect(reading.rules == [.tesseractPage])
        #expect(reading.text.lines.allSatisfy { $0.reader == nil })
    }

    @Test func wordsInNoDetectedLineStayAndSaySo() throws {
        var page = FakePage([
            Page.line([Page.word("Heading", row: 0, from: 0.1, to: 0.5, confidence: 96)]),
            Page.line([Page.word("Body", row: 3, from: 0.1, to: 0.3, confidence: 97)]),
        ])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(3))], readings: [:])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.text.lines.map(\.text) == ["Heading", "Body"])
        #expect(reading.text.lines.map(\.reader) == [.tesseract, .tesseract])
        #expect(reading.rules == [.fuseLines, .confidentLine, .wordsOutsideLines, .pageReaderOrder])
        #expect(lines.asked.isEmpty)
    }

    @Test func unsureWordsInNoDetectedLineAreDropped() throws {
        // A speck of a picture read as a word at 40 (calibrated about 0.61, under 0.9) beside a
        // sure heading: the heading stays, the speck goes, and both rules say so.
        var page = FakePage([
            Page.line([Page.word("Heading", row: 0, from: 0.1, to: 0.5, confidence: 96),
                       Page.word("~i", row: 0, from: 0.7, to: 0.75, confidence: 40)]),
            Page.line([Page.word("Body", row: 3, from: 0.1, to: 0.3, confidence: 97)]),
        ])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(3))], readings: [:])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.text.lines.map(\.text) == ["Heading", "Body"])
        #expect(reading.rules == [.fuseLines, .confidentLine, .wordsOutsideLines, .unsureOutsideWords, .pageReaderOrder])
        // A line of nothing but unsure words outside the detected lines is gone entirely.
        var specks = FakePage([Page.line([Page.word("~i", row: 0, from: 0.7, to: 0.75, confidence: 40)]),
                               Page.line([Page.word("Body", row: 3, from: 0.1, to: 0.3, confidence: 97)])])
        let alone = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &specks, lines: &lines,
                                           cancellation: cancellation)
        #expect(alone.text.lines.map(\.text) == ["Body"])
        #expect(alone.rules == [.fuseLines, .confidentLine, .unsureOutsideWords, .pageReaderOrder])
    }

    @Test func aWordGoesToTheLineHoldingMostOfIt() {
        // A word a third in row 0's box and two thirds in a box just under it.
        let upper = NormalizedRect(x: 0, y: 0.6, width: 1, height: 0.1)
        let lower = NormalizedRect(x: 0, y: 0.4, width: 1, height: 0.2)
        let word = RecognizedWord(text: "w", box: NormalizedRect(x: 0.2, y: 0.55, width: 0.1, height: 0.075), confidence: 90)
        let text = FakePage([Page.line([word])]).text
        let assigned = WordAssignment(text: text, lines: [LineRegion(box: upper), LineRegion(box: lower)], minimumShare: 0.5)
        #expect(assigned.byLine.map(\.count) == [0, 1])
        #expect(assigned.outside.isEmpty)
        // Held by neither line for its greater part: outside.
        let apart = WordAssignment(text: text, lines: [LineRegion(box: upper)], minimumShare: 0.5)
        #expect(apart.byLine.map(\.count) == [0])
        #expect(apart.outside.map(\.text) == ["w"])
    }

    /// Two parallel lines rising to the right, 0.05 of the page apart: near their right ends the
    /// lower line's word lies wholly inside the upper line's upright box too. Held by the
    /// quadrilaterals, it goes to its own line, not to the first whose box holds it.
    @Test func aTiltedLinesNeighboursWordsStayWithTheirOwnLine() {
        func tilted(rising from: Double) -> LineRegion {
            // Bottom edge from (0.1, from) to (0.9, from + 0.1), 0.04 high: clockwise from the top left.
            LineRegion(corners: [NormalizedPoint(x: 0.1, y: from + 0.04), NormalizedPoint(x: 0.9, y: from + 0.14),
                                 NormalizedPoint(x: 0.9, y: from + 0.1), NormalizedPoint(x: 0.1, y: from)])
        }
        let upper = tilted(rising: 0.50), lower = tilted(rising: 0.45)
        // Under x 0.80 to 0.88 the lower line's letters run from y 0.5375 to 0.5875.
        let word = RecognizedWord(text: "pier", box: NormalizedRect(x: 0.8, y: 0.545, width: 0.08, height: 0.03), confidence: 95)
        #expect(LineRegion(box: upper.box).share(of: word.box) > 0.999 && LineRegion(box: lower.box).share(of: word.box) > 0.999,
                "both upright boxes hold the word wholly")
        #expect(upper.share(of: word.box) == 0)
        #expect(lower.share(of: word.box) > 0.8, "\(lower.share(of: word.box))")
        let assigned = WordAssignment(text: FakePage([Page.line([word])]).text, lines: [upper, lower], minimumShare: 0.5)
        #expect(assigned.byLine.map(\.count) == [0, 1])
        // A level region shares as its box does, and a word of no area goes with its centre.
        let level = LineRegion(box: NormalizedRect(x: 0.2, y: 0.2, width: 0.4, height: 0.1))
        let half = NormalizedRect(x: 0.5, y: 0.22, width: 0.2, height: 0.05)
        #expect(abs(level.share(of: half) - 0.5) < 1e-12)
        #expect(upper.share(of: NormalizedRect(x: 0.5, y: 0.57, width: 0.1, height: 0)) == 1)
        #expect(lower.share(of: NormalizedRect(x: 0.5, y: 0.57, width: 0.1, height: 0)) == 0)
        // A square turned 45 degrees (a diamond of half-diagonal 0.1 about (0.5, 0.5)) holds half
        // of the box its corners touch, and half of that box's top right quarter.
        let diamond = LineRegion(corners: [NormalizedPoint(x: 0.5, y: 0.6), NormalizedPoint(x: 0.6, y: 0.5),
                                           NormalizedPoint(x: 0.5, y: 0.4), NormalizedPoint(x: 0.4, y: 0.5)])
        #expect(abs(diamond.share(of: NormalizedRect(x: 0.4, y: 0.4, width: 0.2, height: 0.2)) - 0.5) < 1e-12)
        #expect(abs(diamond.share(of: NormalizedRect(x: 0.5, y: 0.5, width: 0.1, height: 0.1)) - 0.5) < 1e-12)
        #expect(diamond.share(of: NormalizedRect(x: 0.6, y: 0.6, width: 0.1, height: 0.1)) == 0)
    }

    @Test func aDetectedLinesWordsRunAlongItsBaseline() throws {
        // Tesseract gave the words of one detected line in two lines, right one first.
        var page = FakePage([
            Page.line([Page.word("right", row: 0, from: 0.6, to: 0.8, confidence: 95)]),
            Page.line([Page.word("left", row: 0, from: 0.1, to: 0.3, confidence: 95)]),
        ])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(0))], readings: [:])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.text.lines.map(\.text) == ["left right"])
    }

    /// A sure Tesseract word that lies mostly below a detected line (its box grown by an
    /// underline) is outside every line; the line, holding none of Tesseract's words, is read by
    /// the neural reader, which reads the same word. It is kept once, as the line reader read it.
    @Test func aWordOutsideTheLinesReadAgainByTheLineReaderIsKeptOnce() throws {
        // Row 0 is y 0.90 to 0.95; the word's box y 0.86 to 0.92, a third of it in the row.
        let low = RecognizedWord(text: "Total", box: NormalizedRect(x: 0.1, y: 0.86, width: 0.2, height: 0.06), confidence: 96)
        var page = FakePage([Page.line([low])])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(0))], readings: [
            0: Page.line([Page.word("Total", row: 0, from: 0.1, to: 0.3, confidence: 95)]),
        ])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.actions == [.readInstead])
        #expect(reading.text.words.map(\.text) == ["Total"], "\(reading.text.lines.map(\.text))")
        #expect(reading.text.lines.map(\.reader) == [.neural])
    }

    /// The readers' disagreement compares Tesseract's words in the order they run along the
    /// line, as the fused line has them: read "right" before "left", the same words read by the
    /// neural reader as "left right" do not disagree (in Tesseract's order they differed by 0.8).
    @Test func theReadersAreComparedInTheLinesOrder() throws {
        var page = FakePage([
            Page.line([Page.word("right", row: 0, from: 0.6, to: 0.8, confidence: 60)]),
            Page.line([Page.word("left", row: 0, from: 0.1, to: 0.3, confidence: 60)]),
        ])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(0))], readings: [
            0: Page.line([Page.word("left", row: 0, from: 0.1, to: 0.3, confidence: 90),
                          Page.word("right", row: 0, from: 0.6, to: 0.8, confidence: 90)]),
        ])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                             cancellation: cancellation)
        #expect(reading.actions == [.readAlso])
        #expect(reading.disagreement == 0)
    }
}
