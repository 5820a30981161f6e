import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
@testable import GlossPipeline
import GlossReading
import GlossTestSupport
import Testing

/// The review flag: a page is suspect when much of its text-like ink has no words.
@Suite(.serialized)
struct ReviewTests {
    static let reader: Annotator = {
        var settings = AnnotationSettings.readingFast()
        settings.detectFaces = false
        return Annotator(settings: settings, jobs: 1)
    }()

    /// A page's word boxes in the analyzers' currency.
    static func boxes(_ words: [PageReport.Word], in report: PageReport) -> [NormalizedRect] {
        words.map {
            NormalizedRect(x: Double($0.box.x) / Double(report.width), y: 1 - Double($0.box.y + $0.box.height) / Double(report.height),
                           width: Double($0.box.width) / Double(report.width), height: Double($0.box.height) / Double(report.height))
        }
    }

    /// Two columns of the same text, the right one printed in grey (`ink`, on white): from
    /// about 170, Tesseract's threshold for the page leaves it out entirely.
    static func writeTwoColumnPage(lightInk ink: UInt8, to path: String) throws {
        let text = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let width = text.width * 2 + 40, height = text.height
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<text.width {
                let value = text[x, y]
                pixels[y * width + x] = value
                pixels[y * width + text.width + 40 + x] = UInt8(255 - (255 - Int(value)) * (255 - Int(ink)) / 255)
            }
        }
        try Data(try Raster(width: width, height: height, layout: .gray, pixels: pixels).pngData()).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: ["text/sans.png", "text/serif.png", "text/mono.png", "text/upright.jpg", "text/rotated.jpg",
                      "text/rotated.tif", "scans/page.png", "formats/page.webp", "formats/page.gif", "odd/cmyk.jpg",
                      "faces/astronaut.png", "faces/astronaut-trio.png"])
    func pagesReadWholeAndPhotosAreNotSuspect(fixture: String) async throws {
        let report = try await Self.reader.read(file: Fixtures.path(fixture))
        let review = try #require(report.review)
        #expect(!review.suspect, "\(fixture): \(review)")
        if fixture.hasPrefix("text/") { #expect(review.uncoveredInk < 0.02, "\(fixture): \(review)") }
    }

    /// Not `scans/page.png`: Tesseract reads only 23 of its words (whole lines are missing), so
    /// it starts with 9% of its ink in text-like rows without words, just under the threshold.
    @Test(arguments: ["text/sans.png", "text/serif.png", "text/upright.jpg", "text/mono.png", "formats/page.webp"])
    func aPageWhoseColumnLostItsWordsIsSuspect(fixture: String) async throws {
        let report = try await Self.reader.read(file: Fixtures.path(fixture))
        let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster
        let right = report.words.filter { $0.box.x + $0.box.width / 2 >= report.width / 2 }
        let kept = report.words.filter { $0.box.x + $0.box.width / 2 < report.width / 2 }
        let masked = InkCoverage(page: page, words: Self.boxes(kept, in: report))
        #expect(masked.isSuspect, "\(fixture): \(masked.textShare)")
        #expect(masked.review.uncoveredInk > 0.3)
        // Where the words went missing: every region found is on the right.
        #expect(!masked.textRegions.isEmpty && masked.textRegions.allSatisfy { $0.maxX > 0.45 }, "\(masked.textRegions)")
        // One word missing is not a page to review.
        let one = InkCoverage(page: page, words: Self.boxes(Array(kept + right.dropFirst()), in: report))
        #expect(!one.isSuspect, "\(fixture): \(one.textShare)")
    }

    /// Read as it comes (`--prepare none`): prepared, the column is read again (below).
    @Test func aColumnInGreyThatTesseractMissesMakesThePageSuspect() async throws {
        let scratch = try ScratchFolder()
        var settings = AnnotationSettings.readingFast()
        settings.detectFaces = false
        settings.prepare = .none
        let reader = Annotator(settings: settings, jobs: 1)
        for (level, missed) in [(120, false), (170, true), (200, true)] {
            let path = scratch.path + "/grey-\(level).png"
            try Self.writeTwoColumnPage(lightInk: UInt8(level), to: path)
            let report = try await reader.read(file: path)
            let review = try #require(report.review)
            let rightWords = report.words.filter { $0.box.x > report.width / 2 }
            #expect(rightWords.isEmpty == missed, "Tesseract read the grey column at \(level): \(rightWords.count) words")
            #expect(review.suspect == missed, "\(level): \(review)")
        }
    }

    /// The same grey column, prepared: the ink no word covers is read again, the column's
    /// words are found and the page is no longer suspect.
    @Test func aGreyColumnTesseractMissesIsReadAgain() async throws {
        let scratch = try ScratchFolder()
        let truth = try Fixtures.truth("text/sans.json")[0]
        for level in [170, 200] {
            let path = scratch.path + "/grey-\(level).png"
            try Self.writeTwoColumnPage(lightInk: UInt8(level), to: path)
            let report = try await Self.reader.read(file: path)
            let rightWords = report.words.filter { $0.box.x > report.width / 2 }.map(\.text)
            let found = truth.words.filter { rightWords.contains($0.text) }
            #expect(found.count >= truth.words.count * 9 / 10, "\(level): \(rightWords)")
            #expect((report.preparation?.wordsAdded ?? 0) >= found.count)
            #expect(report.review?.suspect == false, "\(level): \(String(describing: report.review))")
        }
    }

    /// The text page framed as a careless scan is: a black border, a dark gutter shadow
    /// fading into the paper, and rules above and below the text.
    static func writeFramedPage(to path: String) throws {
        let text = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let margin = 120, width = text.width + 2 * margin, height = text.height + 2 * margin
        var pixels = [UInt8](repeating: 245, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var value = 245
                if x < 70 { value = min(value, 40 + x * 3) }  // the gutter's shadow
                if x >= width - 25 || y < 20 || y >= height - 20 { value = 15 }  // the scanner's border
                pixels[y * width + x] = UInt8(value)
            }
        }
        for y in 0..<text.height { for x in 0..<text.width { pixels[(y + margin) * width + x + margin] = min(245, text[x, y]) } }
        for rule in [margin - 30, margin + text.height + 30] {
            for y in rule..<rule + 3 { for x in margin..<(margin + text.width) { pixels[y * width + x] = 30 } }
        }
        try Data(try Raster(width: width, height: height, layout: .gray, pixels: pixels).pngData()).write(to: URL(fileURLWithPath: path))
    }

    /// Measured: 68% of this page's ink is uncovered (the frame), none of it text-like.
    @Test func aBorderAShadowAndRulesDoNotMakeAPageSuspect() async throws {
        let scratch = try ScratchFolder()
        try Self.writeFramedPage(to: scratch.path + "/framed.png")
        let report = try await Self.reader.read(file: scratch.path + "/framed.png")
        #expect(report.words.count >= 40)
        let review = try #require(report.review)
        #expect(!review.suspect && review.uncoveredInk > 0.5, "\(review)")
        // Without its words the same page is suspect: the frame does not hide the text.
        let page = try ImageFile(contentsOf: scratch.path + "/framed.png").decodePage().raster
        #expect(InkCoverage(page: page, words: []).isSuspect)
    }

    @Test func aBlankPageHasNoInk() {
        let blank = InkCoverage(page: Raster(width: 800, height: 600, layout: .gray, filledWith: 250), words: [])
        #expect(blank.inkPixels == 0 && !blank.isSuspect && blank.review.uncoveredInk == 0)
    }

    /// A strip thinner than its reduction factor (150,000 by 120 pixels) came back whole from
    /// the working copy, and its 18 million pixels of paper overflowed the 32-bit sums.
    @Test func aLongStripIsMeasuredSmall() {
        var pixels = [UInt8](repeating: 240, count: 150_000 * 120)
        for y in 40..<80 { for x in 70_000..<70_600 { pixels[y * 150_000 + x] = 20 } }
        let strip = Raster(width: 150_000, height: 120, layout: .gray, pixels: pixels)
        let small = InkCoverage.workingCopy(of: strip)
        #expect(small.width == 1000 && small.height == 1, "\(small.width) x \(small.height)")
        #expect(small.pixels[466] < small.pixels[100], "the mark is darker in the copy")
        // One block high is too thin to measure: no ink, and no trap.
        #expect(InkCoverage(page: strip, words: []).inkPixels == 0)
    }

    /// A grey page larger than 2^32 / 255 pixels: its rectangle sums pass 32 bits.
    @Test func theInkOfAPageBeyondThirtyTwoBitSumsIsFound() {
        var pixels = [UInt8](repeating: 250, count: 4_200 * 4_200)
        for y in 4_000..<4_030 { for x in 4_000..<4_100 { pixels[y * 4_200 + x] = 10 } }
        let page = Raster(width: 4_200, height: 4_200, layout: .gray, pixels: pixels)
        let ink = InkCoverage.ink(in: page)
        #expect(ink[4_015 * page.width + 4_050] == 1 && ink[100 * page.width + 100] == 0)
        #expect(ink.reduce(0) { $0 + Int($1) } <= 30 * 100)
    }

    @Test func theFlagReachesThePageJSONTheManifestTheIndexAndTheSummary() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try Self.writeTwoColumnPage(lightInk: 190, to: input + "/a-grey-column.png")
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: input + "/b-sans.png")
        // Read as it comes: prepared, the grey column is read again and the page is not suspect.
        let run = try Gloss.run(["annotate", input, "-o", output, "--no-faces", "--prepare", "none"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("; 1 page suspect (text may be missing)\n"), "\(run.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.map(\.suspect) == [true, false])
        let json = try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/" + manifest.pages[0].outputs["json"]!))))
        #expect(json.review?.suspect == true && (json.review?.uncoveredInk ?? 0) > 0.2)
        // The triage says why: the grey column's ink has no words, though the words read are sure.
        #expect(json.review?.reasons == ["ink-without-words"] && json.review?.lowConfidence == false, "\(String(describing: json.review))")
        #expect((json.meanConfidence ?? 0) > 80)
        let journalless = try String(contentsOfFile: output + "/gloss.json", encoding: .utf8)
        #expect(journalless.contains("\"suspect\" : true"))
    }

    /// A photo Tesseract finds a handful of garbage words on is not a page of low confidence;
    /// thirty such words filling a page without faces would be.
    @Test func aPhotoWithAFewGarbageWordsIsNotOfLowConfidence() async throws {
        var settings = AnnotationSettings()
        settings.detectFaces = true
        let photo = try await Annotator(settings: settings, jobs: 1).read(file: Fixtures.path("faces/astronaut.png"))
        #expect(photo.faces.count == 1)
        var garbled = photo
        garbled.words = ["~", "iF", "j;", "Wl"].enumerated().map { index, text in
            PageReport.Word(text: text, confidence: 30, box: PixelRect(x: 20 + 30 * index, y: 400, width: 20, height: 14), line: 0)
        }
        let triaged = try #require(Triage.triaged(garbled).review)
        #expect(triaged.lowConfidence == false && triaged.suspect == false, "\(triaged)")
        var page = garbled
        page.faces = []
        page.words = (0..<30).map { index in
            PageReport.Word(text: "iF", confidence: 30, box: PixelRect(x: 0, y: 15 * index, width: page.width, height: 14), line: 0)
        }
        #expect(Triage.triaged(page).review?.lowConfidence == true)
    }
}
