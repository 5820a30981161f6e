import Foundation
import GlossContract
import GlossTextRecognition
import GlossGeometry
import GlossImaging
import GlossReports
import GlossTestSupport
import Testing

/// Real pages through the real engine: Gloss's TSV against `tesseract IMAGE - tsv` for the same
/// image, and hOCR read back against the fixtures' ground truth. Serialised: each test loads an
/// engine, and two at once only compete for the same cores.
@Suite(.serialized)
struct RealPageTests {
    static func report(_ fixture: String) throws -> PageReport {
        let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage()
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        return PageReport(source: fixture, pageIndex: 0, size: page.raster.size, text: text, timings: StageTimings())
    }

    /// Tesseract's own TSV rows, split into columns; nil when the command is not installed.
    static func tesseractTSV(_ fixture: String) throws -> [[String]]? {
        guard let tool = ["/usr/bin/tesseract", "/usr/local/bin/tesseract"].first(where: FileManager.default.isExecutableFile) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [Fixtures.path(fixture), "-", "tsv"]
        process.environment = ["OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return rows(String(decoding: data, as: UTF8.self))
    }

    static func rows(_ tsv: String) -> [[String]] {
        tsv.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test(arguments: ["text/sans.png", "text/mono.png"])
    func tsvMatchesTesseractsOwn(fixture: String) throws {
        let theirs = try #require(try Self.tesseractTSV(fixture), "the tesseract command is not installed")
        let report = try Self.report(fixture)
        let file = try #require(try renderPage(report, formats: [.tsv], context: SamplePage.context).first)
        let ours = Self.rows(String(decoding: file.bytes, as: UTF8.self))

        #expect(ours[0] == theirs[0], "header")
        #expect(ours.count == theirs.count, "row count")
        for (mine, reference) in zip(ours.dropFirst(), theirs.dropFirst()) {
            // Level and numbering identical, text identical, every edge within 1 px.
            #expect(mine[0...5] == reference[0...5], "numbering of \(reference)")
            #expect(mine[11] == reference[11], "text of \(reference)")
            let a = mine[6...9].compactMap { Int($0) }, b = reference[6...9].compactMap { Int($0) }
            let edges = zip([a[0], a[1], a[0] + a[2], a[1] + a[3]], [b[0], b[1], b[0] + b[2], b[1] + b[3]])
            #expect(edges.allSatisfy { abs($0 - $1) <= 1 }, "box \(mine[6...9]) against \(reference[6...9]) for '\(reference[11])'")
            if reference[0] == "5" {
                let confidence = try #require(Double(mine[10])), theirConfidence = try #require(Double(reference[10]))
                #expect(abs(confidence - theirConfidence) < 0.5)
            } else {
                #expect(mine[10] == "-1")
            }
        }
    }

    @Test func hocrReadBackMatchesTheGroundTruth() throws {
        let truth = try #require(try Fixtures.truth("text/sans.json").first)
        let report = try Self.report("text/sans.png")
        let file = try #require(try renderPage(report, formats: [.hocr], context: SamplePage.context).first)
        let words = try HOCRReader(file.bytes).elements(ofClass: "ocrx_word")
        #expect(words.map(\.text) == truth.words.map(\.text))
        for (word, expected) in zip(words, truth.words) {
            let corners = (word.properties["bbox"] ?? "").split(separator: " ").compactMap { Int($0) }
            try #require(corners.count == 4)
            let box = expected.box
            let differences = [corners[0] - box.x, corners[1] - box.y, corners[2] - (box.x + box.width), corners[3] - (box.y + box.height)]
            #expect(differences.allSatisfy { abs($0) <= 3 }, "\(expected.text): \(corners) against \(box)")
        }
        let lines = String(decoding: try #require(try renderPage(report, formats: [.txt], context: SamplePage.context).first).bytes,
                           as: UTF8.self)
        #expect(characterAccuracy(lines, expected: truth.text) >= 0.98)
    }
}
