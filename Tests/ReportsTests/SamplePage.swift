import Foundation
import GlossContract
import GlossGeometry
import GlossReports
import Testing

/// A fixed page for golden files: two blocks, three paragraphs, four lines, a word that reads
/// like markup, a low-confidence word and a face. Built in the normalised currency, as a
/// recogniser would return it, so the pixel conversion in `PageReport` is part of every test.
enum SamplePage {
    static let size = PixelSize(width: 600, height: 400)
    static let context = ReportContext(softwareVersion: "0.1.0", languages: ["eng", "deu"])

    static func box(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> NormalizedRect {
        NormalizedRect(PixelRect(x: x, y: y, width: width, height: height), in: size)
    }

    static func line(_ y: Int, _ words: [(String, Int, Int, Double)]) -> TextLine {
        let recognized = words.map { RecognizedWord(text: $0.0, box: box($0.1, y, $0.2, 20), confidence: $0.3) }
        let left = words.first!.1, right = words.last!.1 + words.last!.2
        let baseline = Baseline(start: NormalizedPoint(PixelPoint(x: Double(left), y: Double(y + 16)), in: size),
                                end: NormalizedPoint(PixelPoint(x: Double(right), y: Double(y + 17)), in: size))
        return TextLine(box: box(left, y, right - left, 20), baseline: baseline, words: recognized)
    }

    static let text = RecognizedText(blocks: [
        TextBlock(box: box(40, 30, 420, 80), paragraphs: [
            TextParagraph(box: box(40, 30, 420, 50), lines: [
                line(30, [("Gloss", 40, 70, 96.5), ("&", 120, 14, 91.25), ("Co.", 144, 40, 88)]),
                line(60, [("</script><script>alert(1)</script>", 40, 420, 42.123)]),
            ]),
            TextParagraph(box: box(40, 90, 200, 20), lines: [
                line(90, [("Grüße", 40, 80, 97), ("\"quoted\"", 130, 110, 75.5)]),
            ]),
        ]),
        TextBlock(box: box(40, 300, 300, 20), paragraphs: [
            TextParagraph(box: box(40, 300, 300, 20), lines: [
                line(300, [("Total:", 40, 90, 93), ("42", 140, 30, 99.9)]),
            ]),
        ]),
    ])

    static func report(source: String = "scans/<img src=x onerror=alert(1)>.png", pageIndex: Int = 0) -> PageReport {
        var timings = StageTimings()
        timings.record("decode", .milliseconds(12))
        timings.record("ocr", .microseconds(1_234_560))
        let face = FaceReport(
            box: PixelRect(x: 420, y: 200, width: 120, height: 140), confidence: 0.875, neighbors: 7,
            leftEye: FaceReport.Landmark(x: 455, y: 250, source: "detected"),
            rightEye: FaceReport.Landmark(x: 505, y: 250, source: "estimated"),
            mouth: FaceReport.Landmark(x: 480, y: 305, source: "estimated"))
        var report = PageReport(source: source, pageIndex: pageIndex, size: size, text: text, faces: [face], timings: timings)
        // What an analyzer other than text and faces marked; its label is hostile on purpose.
        report.regions = [RegionReport(kind: "stamp", box: PixelRect(x: 600, y: 40, width: 120, height: 80),
                                       label: "<b>\"received\"</b>", confidence: 0.875)]
        return report
    }

    /// The folder of golden files beside this source file.
    static let goldenFolder: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Golden").path
    }()

    /// Compares `bytes` with the golden file `name`; with `GLOSS_UPDATE_GOLDEN=1` rewrites it instead.
    static func expectGolden(_ bytes: [UInt8], _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = goldenFolder + "/" + name
        if ProcessInfo.processInfo.environment["GLOSS_UPDATE_GOLDEN"] == "1" {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return
        }
        let expected = try #require(FileManager.default.contents(atPath: path), "missing golden file \(name)",
                                    sourceLocation: sourceLocation)
        let actual = String(decoding: bytes, as: UTF8.self), golden = String(decoding: expected, as: UTF8.self)
        if actual != golden {
            let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let goldenLines = golden.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(actualLines, goldenLines).enumerated().first { $0.element.0 != $0.element.1 }
            let where_ = first.map { "line \($0.offset + 1):\n  got:      \($0.element.0)\n  expected: \($0.element.1)" }
                ?? "lengths differ (\(actualLines.count) against \(goldenLines.count) lines)"
            Issue.record("\(name) differs from its golden file at \(where_)", sourceLocation: sourceLocation)
        }
    }
}
