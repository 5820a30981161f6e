import GlossContract
@testable import GlossPipeline
import GlossReading
import GlossTestSupport
import Testing

/// `sure-page` on real pages, with the real measure of ink without words: a clean page
/// Tesseract reads surely stands without the detector; a table whose columns Tesseract's
/// layout drops does not.
@Suite struct SurePageTests {
    static func read(_ fixture: String) async throws -> PageReport {
        let annotator = Annotator(settings: AnnotationSettings(formats: [], detectFaces: false), jobs: 1)
        return try await annotator.read(file: Fixtures.path(fixture))
    }

    @Test func aCleanPageReadSurelyStandsWithoutTheDetector() async throws {
        let report = try await Self.read("text/sans.png")
        let rules = try #require(report.preparation?.rules)
        #expect(rules == [PlanRule.surePage.rawValue], "\(rules)")
        #expect(!report.timings.stages.contains { $0.name == "detect" }, "the detector did not run")
        #expect(report.words.map(\.text) == (try Fixtures.truth("text/sans.json")[0].words.map(\.text)))
    }

    @Test func aTableWhoseColumnsTheLayoutDropsIsFusedWithTheDetectedLines() async throws {
        let report = try await Self.read("tables/sparse-numbers.png")
        let rules = try #require(report.preparation?.rules)
        #expect(!rules.contains(PlanRule.surePage.rawValue) && rules.contains(PlanRule.fuseLines.rawValue), "\(rules)")
        #expect(report.timings.stages.contains { $0.name == "detect" })
    }
}
