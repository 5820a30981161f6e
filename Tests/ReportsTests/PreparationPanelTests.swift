import GlossContract
import GlossReports
import Testing

/// The preparation record as the page view's info panel tells it: what was done, in plain
/// words, with each step's time; nothing for a page read without preparing.
struct PreparationPanelTests {
    static func turnedPage() -> PagePreparation {
        var record = PagePreparation()
        record.rotation = 90
        record.orientationConfidence = 12.34
        record.skew = -1.2
        record.scale = 2.2857
        record.xHeight = 7
        record.regionsReread = 12
        record.wordsAdded = 37
        record.timings.record("orientation", milliseconds: 410.25)
        record.timings.record("deskew", milliseconds: 20)
        record.timings.record("scale", milliseconds: 5.5)
        record.timings.record("reread", milliseconds: 300)
        return record
    }

    @Test func aTurnedLevelledEnlargedPageSaysEachStepAndItsTime() {
        let summary = PreparationSummary(Self.turnedPage())
        #expect(!summary.readAsItCame)
        #expect(summary.steps.map(\.name) == ["orientation", "deskew", "scale", "reread"])
        #expect(summary.steps.map(\.text) == [
            "Turned 90° clockwise (orientation confidence 12.3)",
            "Levelled by turning 1.2° clockwise",
            "Letters 7 px high: read enlarged ×2.29",
            "12 regions the layout missed read again: 37 words added",
        ])
        #expect(summary.steps.allSatisfy { $0.changed })
        #expect(summary.steps.map(\.milliseconds) == [410.25, 20, 5.5, 300])
        #expect(summary.totalMilliseconds == 735.75)
    }

    @Test func aPageLeftAsItCameSaysSoAndWhatWasChecked() {
        var record = PagePreparation()
        record.xHeight = 24
        record.timings.record("orientation", milliseconds: 3)
        record.timings.record("deskew", milliseconds: 4)
        record.timings.record("scale", milliseconds: 1)
        record.timings.record("reread", milliseconds: 0)
        let summary = PreparationSummary(record)
        #expect(summary.readAsItCame)
        #expect(summary.steps.map(\.text) == [
            "Already upright", "Lines already level", "Letters 24 px high: read at their own size",
            "No ink the layout missed: nothing read again",
        ])
        #expect(summary.steps.allSatisfy { !$0.changed })
    }

    /// A reading at the page's own size kept over the scaled one names what it set aside (an
    /// enlargement or a told resolution), and the step's time sums both readings.
    @Test(arguments: [
        (10.0, 1.6, nil, "Letters 10 px high: read at their own size, more confidently than enlarged ×1.6", 1200.0),
        (21, nil, 300, "Letters 21 px high: read at their own size and the file's resolution, more confidently than told 300 ppi", 4700),
    ] as [(Double, Double?, Int?, String, Double)])
    func aReadingSetAsideIsNamedWithTheTimeOfBothReadings(
        xHeight: Double, enlargement: Double?, resolution: Int?, text: String, compare: Double
    ) {
        var record = PagePreparation()
        record.xHeight = xHeight
        record.enlargementSetAside = enlargement
        record.resolutionSetAside = resolution
        record.timings.record("scale", milliseconds: 9)
        record.timings.record("compare", milliseconds: compare)
        let summary = PreparationSummary(record)
        #expect(summary.steps.map(\.text) == [text])
        #expect(summary.steps.map(\.milliseconds) == [Optional(9 + compare)])
        #expect(summary.readAsItCame)
    }

    @Test func otherTurnsRecipesAndUnknownStepsAreNamed() {
        var record = PagePreparation()
        record.rotation = 270
        record.skew = 0.5
        record.scale = 0.5
        record.binarization = "sauvola"
        record.regionsReread = 1
        record.wordsAdded = 1
        record.timings.record("binarize", milliseconds: 8)
        record.timings.record("despeckle", milliseconds: 9)
        let summary = PreparationSummary(record)
        #expect(summary.steps.map(\.text) == [
            "Turned 90° counter-clockwise", "Levelled by turning 0.5° counter-clockwise",
            "Letter size not measured: read reduced ×0.5",
            "Black and white by a local threshold (Sauvola), for uneven light",
            "1 region the layout missed read again: 1 word added", "despeckle",
        ])
        #expect(summary.steps.map(\.milliseconds) == [nil, nil, nil, 8, nil, 9])
        record.rotation = 180
        #expect(PreparationSummary(record).steps.first?.text == "Turned 180°: it was upside down")
    }

    @Test func aPageReadBothWaysSaysWhichWayWasSetAside() {
        var record = PagePreparation()
        record.rotation = 180
        record.rotationSetAside = 0
        record.orientationConfidence = 1.51
        record.timings.record("orientation", milliseconds: 120)
        record.timings.record("turn", milliseconds: 300.5)
        var summary = PreparationSummary(record)
        #expect(summary.steps.first?.text == "Turned 180°: it was upside down (orientation confidence 1.5), read more confidently than as it came")
        #expect(summary.steps.first?.milliseconds == 420.5)
        #expect(summary.steps.first?.changed == true)
        #expect(summary.steps.count == 1, "the second reading's time is the orientation step's, not a step of its own")

        record.rotation = 0
        record.rotationSetAside = 90
        summary = PreparationSummary(record)
        #expect(summary.steps.first?.text == "Already upright (orientation confidence 1.5), read more confidently than turned 90° clockwise")
        #expect(summary.steps.first?.changed == false)
        #expect(summary.readAsItCame)
    }

    @Test func aTurnSettledByRowsOfLettersSaysSo() {
        var record = PagePreparation()
        record.rotation = 270
        record.rowsRead = 16
        record.timings.record("orientation", milliseconds: 48)
        #expect(PreparationSummary(record).steps.first?.text == "Turned 90° counter-clockwise (by 16 rows of letters)")
        record.rotation = 0
        #expect(PreparationSummary(record).steps.first?.text == "Already upright (by 16 rows of letters)")
        var stage = PagePreparation()
        stage.rotation = 90
        #expect(stage.merged(with: record).rowsRead == 16 && record.merged(with: stage).rowsRead == 16)
    }

    @Test func theTextAnalyzersTurnIsThePagesTurn() {
        var stage = PagePreparation()
        stage.rotation = 90
        stage.orientationConfidence = 9
        var analyzer = PagePreparation()
        analyzer.rotation = 0
        analyzer.rotationSetAside = 90
        let merged = stage.merged(with: analyzer)
        #expect(merged.rotation == 0 && merged.rotationSetAside == 90 && merged.orientationConfidence == 9)
        #expect(stage.merged(with: PagePreparation()).rotation == 90, "an analyzer that read one way leaves the turn alone")
    }

    @Test func theInfoPanelShowsThePreparationOnlyWhenThePageHasIt() throws {
        var report = SamplePage.report()
        report.preparation = nil
        #expect(!PageViewTests.render(report).contains("preparation"), "a page read with --prepare none shows no section")

        report.preparation = Self.turnedPage()
        let html = PageViewTests.render(report)
        ViewerTests.expectNoInlineCode(html)
        let start = try #require(html.range(of: "<section class=\"preparation\" id=\"preparation\" aria-labelledby=\"preparation-heading\">"))
        let section = String(html[start.lowerBound...]).components(separatedBy: "</section>")[0]
        #expect(section.contains("<h3 id=\"preparation-heading\">Preparation</h3>"))
        #expect(!section.contains("as-it-came"))
        #expect(section.contains("<li data-step=\"orientation\" class=\"changed\"><span class=\"step\">Turned 90° clockwise (orientation confidence 12.3)</span><span class=\"ms\">410.3 ms</span></li>"))
        #expect(section.contains("<li class=\"total\"><span class=\"step\">Preparation in all</span><span class=\"ms\">735.8 ms</span></li>"))
        let info = try #require(html.range(of: "<dl class=\"info\">"))
        let timings = try #require(html.range(of: "<details class=\"timing-details\">"))
        #expect(info.upperBound < start.lowerBound && start.upperBound < timings.lowerBound,
                "in the info panel, after the page's facts and before the developers' timings")

        report.preparation = PagePreparation()
        #expect(PageViewTests.render(report).contains("<p class=\"as-it-came\">Read as it came: nothing was changed.</p>"))
    }

    @Test func aRecipeNameFromTheRecordStaysText() {
        var record = PagePreparation()
        record.binarization = "<b>x</b>"
        var report = SamplePage.report()
        report.preparation = record
        let html = PageViewTests.render(report)
        #expect(html.contains("Prepared by the &lt;b&gt;x&lt;/b&gt; recipe"))
        #expect(!html.contains("<b>x</b>"))
    }
}
