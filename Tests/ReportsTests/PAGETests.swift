import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossReports
import GlossTestSupport
import GlossTextRecognition
import Testing

/// PAGE XML against PRImA's own schema (`fixtures/schemas/pagecontent-2019-07-15.xsd`) with
/// xmllint, on real pages read by the real engine and on the hostile sample page; then read back.
@Suite(.serialized)
struct PAGETests {
    static let schema = Fixtures.path("schemas/pagecontent-2019-07-15.xsd")

    /// xmllint's verdict on `bytes` against the PAGE schema: nil when valid, else what it said.
    static func schemaProblems(_ bytes: [UInt8]) throws -> String? {
        let tool = "/usr/bin/xmllint"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "xmllint is not installed (libxml2-utils)")
        let path = NSTemporaryDirectory() + "gloss-page-\(UUID().uuidString).xml"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--noout", "--nonet", "--schema", schema, path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: said, as: UTF8.self)
    }

    static func page(_ report: PageReport, resolution: Int? = nil) throws -> [UInt8] {
        let context = ReportContext(softwareVersion: "0.1.0", languages: ["eng"], date: Date(timeIntervalSince1970: 1_780_000_000))
        return try #require(try renderPage(report, formats: [.page], context: context, resolution: resolution).first).bytes
    }

    @Test(arguments: ["text/sans.png", "text/two-pages.tif", "scans/page.png"])
    func realPagesValidateAgainstTheSchema(fixture: String) throws {
        let image = try ImageFile(contentsOf: Fixtures.path(fixture))
        let decoded = try image.decodePage()
        let text = try TextRecognizer().recognize(decoded.raster, resolution: decoded.resolution)
        let report = PageReport(source: fixture, pageIndex: 0, size: decoded.raster.size, text: text, timings: StageTimings())
        try #require(report.words.count > 10, "the page was read")
        let bytes = try Self.page(report, resolution: decoded.resolution)
        let problems = try Self.schemaProblems(bytes)
        #expect(problems == nil, "\(problems ?? "")")

        // Every word is there, in reading order, with its box and confidence.
        let page = try ALTOReader(bytes)
        #expect(page.rootNamespace == "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15")
        #expect(page.elements("Word").count == report.words.count)
        let unicode = page.texts["Unicode"] ?? []
        #expect(report.words.allSatisfy { unicode.contains($0.text) || $0.text.trimmingCharacters(in: .whitespaces).isEmpty })
        let refs = page.elements("RegionRefIndexed").map { $0["regionRef"] }
        #expect(refs == page.elements("TextRegion").map { $0["id"] })
        #expect(page.elements("Baseline").count == report.lines.filter { $0.baseline != nil }.count)
        for equiv in page.elements("TextEquiv") {
            let conf = try #require(Double(equiv["conf"] ?? ""))
            #expect((0...1).contains(conf))
        }
    }

    @Test func theSamplePageValidatesWithItsFaceAndMarkup() throws {
        let bytes = try Self.page(SamplePage.report())
        let problems = try Self.schemaProblems(bytes)
        #expect(problems == nil, "\(problems ?? "")")
        let page = try ALTOReader(bytes)
        #expect(page.elements("Page").first?["imageFilename"] == "scans/<img src=x onerror=alert(1)>.png")
        #expect(page.elements("ImageRegion").count == 1)
        #expect(page.elements("Word").count == 8)
        #expect(page.texts["Created"] == ["2026-05-28T20:26:40Z"])
        #expect((page.texts["Unicode"] ?? []).contains("</script><script>alert(1)</script>"))
    }

    /// A page read turned: its regions say how far they turn clockwise to stand upright, within
    /// the schema's -179.999 to 180, and the file still validates.
    @Test func aPageReadTurnedValidatesWithItsRegionsTurns() throws {
        for (rotation, orientation) in [(90, "90"), (180, "180"), (270, "-90")] {
            let bytes = try Self.page(PageViewTests.turned(rotation))
            let problems = try Self.schemaProblems(bytes)
            #expect(problems == nil, "\(problems ?? "")")
            #expect(try ALTOReader(bytes).elements("TextRegion").allSatisfy { $0["orientation"] == orientation })
        }
    }

    @Test func aFailedPageAndACorrectedPageValidate() throws {
        let failed = PageReport(source: "bad.png", pageIndex: 0, status: .failed, error: "bad.png: file is empty")
        #expect(try Self.schemaProblems(try Self.page(failed)) == nil)

        let report = SamplePage.report()
        let corrected = try report.applying(try Correction.retype(0, to: "Glosses", on: report, page: "p", by: "Ana",
                                                                  at: "2026-12-02T13:00:00Z"))
        let bytes = try Self.page(corrected)
        #expect(try Self.schemaProblems(bytes) == nil)
        let page = try ALTOReader(bytes)
        #expect(page.texts["LastChange"] == ["2026-12-02T13:00:00Z"])
        let first = try #require(page.elements("TextEquiv").first)
        #expect(first["conf"] == "1")
        #expect(first["comments"] == "corrected by Ana at 2026-12-02T13:00:00Z")
    }
}
