import GlossContract
import GlossGeometry
import GlossReading
import Testing

/// The plan and the per-line decisions, from signals alone.
@Suite struct PlanTests {
    let policy = FusionPolicy()

    @Test func fastReadsWithTesseractAlone() {
        var signals = Page.signals
        signals.lines = [LineSignals(box: Page.row(0))]
        let plan = ReadingPlan(signals: signals, mode: .fast, policy: policy)
        #expect(plan.pageReader == .tesseract)
        #expect(plan.lines == nil)
        #expect(plan.rules == [.tesseractPage])
    }

    @Test func accurateFusesTheDetectedLinesWithTheNeuralReader() throws {
        var signals = Page.signals
        signals.lines = [LineSignals(box: Page.row(0)), LineSignals(box: Page.row(1))]
        let plan = ReadingPlan(signals: signals, mode: .accurate, policy: policy)
        let lines = try #require(plan.lines)
        #expect(lines.lines.count == 2)
        #expect(lines.lineReader == .neural)
        #expect(lines.unsureBelow == policy.unsureLine)
        #expect(plan.rules == [.fuseLines])
    }

    @Test func accurateWithoutDetectedLinesLeavesTesseractsReading() {
        for lines in [nil, [LineSignals]()] {
            var signals = Page.signals
            signals.lines = lines
            let plan = ReadingPlan(signals: signals, mode: .accurate, policy: policy)
            #expect(plan.lines == nil)
            #expect(plan.rules == [.noDetectedLines])
        }
    }

    /// A doubted page whose detected lines stand upright is read once the way it was given; lines
    /// standing (a page on its side), turned over (on its head), too few, or no doubt, settle nothing.
    @Test func uprightLinesSettleADoubtedWayUp() {
        func plan(doubted: Bool, _ lines: [LineSignals]) -> ReadingPlan {
            var signals = Page.signals
            signals.lines = lines
            signals.wayUpInDoubt = doubted
            return ReadingPlan(signals: signals, mode: .accurate, policy: policy)
        }
        let level = (0..<10).map { LineSignals(box: Page.row($0)) }
        var standing = level
        for index in 0..<2 { standing[index].angle = 90 }
        var overturned = level
        for index in 0..<2 { overturned[index].isTurnedOver = true }
        let settled = plan(doubted: true, level)
        #expect(settled.wayUpSettled)
        #expect(settled.rules == [.fuseLines, .linesSettleWayUp])
        // One line in ten out of true is within the policy's share (0.9).
        var oneOff = level
        oneOff[0].angle = -90
        #expect(plan(doubted: true, oneOff).wayUpSettled)
        for lines in [standing, overturned, Array(level.prefix(policy.linesToSettle - 1))] {
            #expect(!plan(doubted: true, lines).wayUpSettled)
            #expect(!plan(doubted: true, lines).rules.contains(.linesSettleWayUp))
        }
        #expect(!plan(doubted: false, level).wayUpSettled)
        #expect(plan(doubted: false, level).rules == [.fuseLines])
        var fast = Page.signals
        fast.lines = level
        fast.wayUpInDoubt = true
        #expect(!ReadingPlan(signals: fast, mode: .fast, policy: policy).wayUpSettled)
    }

    @Test func aLineIsReadAgainOnlyWhereTesseractLeftItOrWasUnsure() {
        let plan = LinePlan(lines: [], lineReader: .neural, unsureBelow: 0.8)
        let line = LineSignals(box: Page.row(0))
        #expect(plan.action(for: LineEvidence(line: line, probabilities: [])) == .readInstead)
        #expect(plan.action(for: LineEvidence(line: line, probabilities: [0.9, 0.6])) == .readAlso)
        #expect(plan.action(for: LineEvidence(line: line, probabilities: [0.9, 0.7])) == .keep)
        // At the bar exactly, Tesseract's words stand.
        #expect(plan.action(for: LineEvidence(line: line, probabilities: [0.8])) == .keep)
    }

    @Test func everyRuleHasItsOwnStableName() {
        let names = PlanRule.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(PlanRule.unsureLine.rawValue == "unsure-line")
        #expect(LineAction.allCases.map(\.rule) == [.confidentLine, .uncoveredLine, .unsureLine])
    }
}

/// The scales that put both readers' confidences on one.
@Suite struct CalibrationTests {
    @Test func aScaleInterpolatesBetweenItsKnotsAndIsFlatBeyondThem() throws {
        let scale = try #require(ConfidenceScale(knots: [(20, 0.1), (60, 0.5), (90, 0.9)]))
        #expect(scale.probability(0) == 0.1)
        #expect(abs(scale.probability(40) - 0.3) < 1e-12)
        #expect(abs(scale.probability(75) - 0.7) < 1e-12)
        #expect(scale.probability(100) == 0.9)
    }

    @Test func aScaleThatWouldReorderWordsIsRefused() {
        #expect(ConfidenceScale(knots: [(20, 0.6), (60, 0.5)]) == nil)
        #expect(ConfidenceScale(knots: [(60, 0.1), (20, 0.5)]) == nil)
        #expect(ConfidenceScale(knots: [(60, 0.5)]) == nil)
        #expect(ConfidenceScale(knots: [(0, 0), (100, 1.5)]) == nil)
    }

    @Test func theMeasuredScalesPutTheTwoReadersOnOneScale() {
        // Raw, a neural 99.0 beats a Tesseract 96.9; measured, the Tesseract word is right
        // 99.9% of the time and the neural one about 90%.
        #expect(Calibration.tesseract.probability(96.9) > 0.99)
        #expect(Calibration.neural.probability(99.0) < 0.92)
        #expect(Calibration.neural.probability(99.0) < Calibration.tesseract.probability(96.9))
        // Both rise with their raw confidence, and the uncalibrated scale is conf/100.
        for (low, high) in [(40.0, 80.0), (80, 95), (95, 100)] {
            #expect(Calibration.tesseract.probability(low) <= Calibration.tesseract.probability(high))
            #expect(Calibration.neural.probability(low) < Calibration.neural.probability(high))
        }
        #expect(Calibration.uncalibrated.probability(85) == 0.85)
    }
}
