import Foundation
import GlossContract
@testable import GlossReports
import Testing

/// The output formats are one enum: each says how it is written, and everything that lists
/// formats (the viewer's downloads, the page and combined renderers) is made from it.
@Suite struct OutputFormatTests {
    @Test func eachFormatIsWrittenAsItsWriterSays() throws {
        let report = SamplePage.report()
        let all = Set(OutputFormat.allCases)
        let single = try renderPage(report, formats: all, context: SamplePage.context)
        #expect(single.map(\.format) == OutputFormat.allCases.filter(\.isText))
        let combined = renderCombined([report, SamplePage.report(pageIndex: 1)], formats: all, context: SamplePage.context)
        #expect(combined.map(\.format) == [.hocr, .alto])
        for format in OutputFormat.allCases {
            switch format.writer {
            case .page: #expect(format.isText && !format.combines, "\(format)")
            case .pages:
                #expect(format.isText && format.combines, "\(format)")
                // A page's own file is the combined document of that page alone.
                let one = renderCombined([report], formats: [format], context: SamplePage.context)
                #expect(one.map(\.bytes) == single.filter { $0.format == format }.map(\.bytes), "\(format)")
            case .picture: #expect(!format.isText && format.combines, "\(format)")
            }
        }
    }

    @Test func theViewerOffersEveryFormatButTheViewItself() {
        // Then the input's whole document (documents/), its PDF and its text.
        #expect(PageView.downloadOrder.map(\.0) == OutputFormat.allCases.filter { $0 != .html }.map(\.rawValue) + ["document", "documentText"])
        #expect(PageView.downloadOrder.first { $0.0 == "alto" }?.1 == "ALTO XML")
        #expect(Set(OutputFormat.allCases.map(\.displayName)).count == OutputFormat.allCases.count)
    }
}
