import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossPreparation
@testable import GlossPipeline
import GlossTestSupport
import GlossTextRecognition
import Testing

/// Pages turned and skewed before they are read: they read as the upright page does, and their
/// boxes land on the input page, where the words are in its pixels.
@Suite(.serialized)
struct PreparationTests {
    static func reader(_ prepare: PreparationSteps) -> Annotator {
        var settings = AnnotationSettings.readingFast()
        settings.detectFaces = false
        settings.prepare = prepare
        return Annotator(settings: settings, jobs: 1)
    }

    static let preparing = reader(.auto)
    static let asItComes = reader(.none)
    static let fixture = "text/sans.png"

    static func upright() throws -> Raster { try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster }

    /// Bag-of-words F1 of a page's words against the fixture's text.
    static func f1(_ report: PageReport) throws -> Double {
        let truth = try Fixtures.truth(fixture.replacingOccurrences(of: ".png", with: ".json"))[0].text
        var expected = [String: Int](), hits = 0
        for word in truth.split(whereSeparator: \.isWhitespace) { expected[String(word), default: 0] += 1 }
        let found = report.words.map(\.text)
        for word in found where (expected[word] ?? 0) > 0 {
            expected[word]! -= 1
            hits += 1
        }
        let total = truth.split(whereSeparator: \.isWhitespace).count + found.count
        return total == 0 ? 1 : 2 * Double(hits) / Double(total)
    }

    /// Reads `raster` written as a PNG.
    static func read(_ raster: Raster, with annotator: Annotator, in scratch: ScratchFolder, name: String) async throws -> PageReport {
        let path = scratch.path + "/" + name + ".png"
        try Data(try raster.pngData()).write(to: URL(fileURLWithPath: path))
        return try await annotator.read(file: path)
    }

    /// The pixel centre of a box.
    static func centre(_ box: PixelRect) -> PixelPoint {
        PixelPoint(x: Double(box.x) + Double(box.width) / 2, y: Double(box.y) + Double(box.height) / 2)
    }

    @Test("a page turned a quarter, a half or three quarters reads as upright, its boxes on the turned input",
          arguments: [1, 2, 3])
    func turnedPagesReadUpright(turns: Int) async throws {
        let scratch = try ScratchFolder()
        let upright = try Self.upright()
        let straight = try await Self.read(upright, with: Self.preparing, in: scratch, name: "upright")
        let turn = PageTransform(quarterTurns: turns, inputSize: upright.size)
        let report = try await Self.read(upright.transformed(by: turn), with: Self.preparing, in: scratch, name: "turned")

        let preparation = try #require(report.preparation)
        #expect(preparation.rotation == (4 - turns) * 90)
        // Its rows of letters settled the way up: Tesseract's detector was not asked.
        #expect(preparation.orientationConfidence == nil)
        #expect(try #require(preparation.rowsRead) >= 8)
        #expect(preparation.timings["orientation"] != nil)
        #expect((report.width, report.height) == (turn.preparedSize.width, turn.preparedSize.height))
        #expect(abs(try Self.f1(report) - Self.f1(straight)) <= 0.01)

        // Each word of the upright page, turned as the page was, is where the turned page's
        // word with the same text was reported, to within a few pixels.
        #expect(straight.words.count >= 40)
        var unmatched = report.words
        for word in straight.words {
            let expected = PixelRect(turn.preparedRect(ofInput: NormalizedRect(word.box, in: upright.size)), in: turn.preparedSize)
            let match = unmatched.firstIndex { found in
                found.text == word.text && abs(found.box.x - expected.x) <= 3 && abs(found.box.y - expected.y) <= 3
                    && abs(found.box.maxX - expected.maxX) <= 3 && abs(found.box.maxY - expected.maxY) <= 3
            }
            #expect(match != nil, "\(word.text) expected at \(expected)")
            if let match { unmatched.remove(at: match) }
        }
        // Read as it comes, the page is not turned; on its head its words are lost (on its side
        // Tesseract finds some of them, reading vertical lines).
        let unprepared = try await Self.read(upright.transformed(by: turn), with: Self.asItComes, in: scratch, name: "turned")
        #expect(unprepared.preparation == nil)
        if turns == 2 { #expect(try Self.f1(unprepared) < 0.5) }
    }

    @Test("the rows of letters and, without them, Tesseract's detector stand a turned page up alike",
          arguments: [1, 2, 3])
    func rowsAndTheDetectorAgree(turns: Int) throws {
        var page = try ImageFile(contentsOf: Fixtures.path(Self.fixture)).decodePage()
        page.raster = page.raster.transformed(by: PageTransform(quarterTurns: turns, inputSize: page.raster.size))
        page.size = page.raster.size
        let byRows = PagePreparer(dataPath: nil).prepare(page)
        let byDetector = PagePreparer(dataPath: nil, readsLetterRows: false).prepare(page)
        #expect(byRows.record.rotation == (4 - turns) * 90 && byDetector.record.rotation == byRows.record.rotation)
        #expect(byRows.record.orientationConfidence == nil)
        #expect(try #require(byRows.record.rowsRead) >= 8)
        #expect(try #require(byDetector.record.orientationConfidence) >= 8)
        #expect(byDetector.record.rowsRead == nil)
        // Each is sure: the page is read turned over too only when its reading looks garbled.
        #expect(byRows.doubt == .overturned(from: byRows.record.rotation))
    }

    @Test("a preparer for pages read with networks gives the orientation detector back after each page, and answers alike")
    func detectorLifetimes() throws {
        var page = try ImageFile(contentsOf: Fixtures.path(Self.fixture)).decodePage()
        page.raster = page.raster.transformed(by: PageTransform(quarterTurns: 1, inputSize: page.raster.size))
        page.size = page.raster.size
        let kept = PagePreparer(dataPath: nil, readsLetterRows: false)
        let perPage = PagePreparer(dataPath: nil, readsLetterRows: false, detectorLifetime: .page)
        #expect(!kept.holdsDetector && !perPage.holdsDetector)
        for _ in 0..<2 {
            let (a, b) = (kept.prepare(page), perPage.prepare(page))
            #expect(a.record.rotation == 270 && b.record.rotation == 270)
            #expect(try #require(a.record.orientationConfidence) >= 8)
            #expect(a.record.orientationConfidence == b.record.orientationConfidence && a.doubt == b.doubt)
            #expect(kept.holdsDetector && !perPage.holdsDetector)
        }
    }

    @Test("the detector is given back page by page when a worker reads with the neural networks")
    func whichWorkersGiveTheDetectorBack() {
        var settings = AnnotationSettings()
        #expect(Worker.detectorLifetime(for: settings.analyzers) == .page)
        settings.textMode = .fast
        #expect(Worker.detectorLifetime(for: settings.analyzers) == .batch)
        settings.textEngine = .neural
        #expect(Worker.detectorLifetime(for: settings.analyzers) == .page)
        settings.recognizeText = false
        #expect(Worker.detectorLifetime(for: settings.analyzers) == .batch)
    }

    @Test("a page skewed 3 degrees reads as the straight page does, levelled by about 3 degrees", arguments: [3.0])
    func skewedPagesReadStraight(degrees: Double) async throws {
        let scratch = try ScratchFolder()
        let upright = try Self.upright()
        let straight = try await Self.read(upright, with: Self.preparing, in: scratch, name: "upright")
        let skew = PageTransform(skew: degrees, inputSize: upright.size)
        let report = try await Self.read(upright.transformed(by: skew), with: Self.preparing, in: scratch, name: "skewed")

        let preparation = try #require(report.preparation)
        #expect(abs(preparation.skew + degrees) < 0.2, "\(preparation)")
        #expect(preparation.rotation == 0)
        #expect(preparation.timings["deskew"] != nil)
        #expect(try Self.f1(report) >= Self.f1(straight) - 0.01)
        #expect(["quick", "harbour", "museum", "oranges", "Tickets"].allSatisfy { key in report.words.contains { $0.text == key } })

        // Boxes are on the skewed input: each word's centre is where the skew took the upright
        // word's centre.
        var unmatched = report.words
        for word in straight.words {
            let moved = skew.preparedPixel(ofInput: Self.centre(word.box))
            let match = unmatched.firstIndex { found in
                let centre = Self.centre(found.box)
                return found.text == word.text && abs(centre.x - moved.x) <= 3 && abs(centre.y - moved.y) <= 3
            }
            #expect(match != nil, "\(word.text) expected about \(moved)")
            if let match { unmatched.remove(at: match) }
        }
    }

    @Test("with --prepare deskew a page is levelled and nothing is done about its way up")
    func levellingAloneAsksNoDetector() async throws {
        let scratch = try ScratchFolder()
        let upright = try Self.upright()
        let skewed = upright.transformed(by: PageTransform(skew: 3, inputSize: upright.size))
        let record = try #require(try await Self.read(skewed, with: Self.reader([.deskew]), in: scratch, name: "skewed").preparation)
        #expect(abs(record.skew + 3) < 0.2, "\(record)")
        #expect(record.timings["deskew"] != nil && record.timings["orientation"] == nil)
        #expect(record.orientationConfidence == nil && record.rotationSetAside == nil)
        // Turned over, it stays as it came: the orientation step was not asked for.
        let overturned = upright.transformed(by: PageTransform(quarterTurns: 2, inputSize: upright.size))
        let turned = try #require(try await Self.read(overturned, with: Self.reader([.deskew]), in: scratch, name: "over").preparation)
        #expect(turned.rotation == 0 && turned.rotationSetAside == nil && turned.timings["turn"] == nil)
    }

    @Test("with --prepare none a page is read as it comes: Tesseract's words on the decoded page")
    func noPreparation() async throws {
        let scratch = try ScratchFolder()
        let upright = try Self.upright()
        // Skewed, so preparing would have changed it.
        let skewed = upright.transformed(by: PageTransform(skew: 3, inputSize: upright.size))
        let plain = try await Self.read(skewed, with: Self.asItComes, in: scratch, name: "skewed")
        #expect(plain.preparation == nil)
        let direct = try TextRecognizer().recognize(skewed, resolution: nil)
        #expect(plain.words.map(\.text) == direct.words.map(\.text))
        #expect(plain.words.map(\.box) == direct.words.map { PixelRect($0.box, in: skewed.size) })
    }

    @Test("an ordinary upright page is left as it is, and Tesseract's detector is not asked")
    func uprightPagesAreLeftAlone() async throws {
        let report = try await Self.preparing.read(file: Fixtures.path(Self.fixture))
        let record = try #require(report.preparation)
        #expect(record.rotation == 0 && record.skew == 0 && record.orientationConfidence == nil)
        #expect(record.timings["orientation"] != nil && record.timings["deskew"] != nil)
    }

    /// The sans page at 0.45 of its size: an x-height of about 7 px, which Tesseract's detector
    /// reads at confidence 1.6 to 2.1 whichever way it stands.
    static func smallLetters() throws -> Raster {
        let page = try upright()
        return page.resampled(width: page.width * 45 / 100, height: page.height * 45 / 100)
    }

    @Test("a page of small letters turned is stood up by its rows, and reads as it does upright",
          arguments: [1, 2, 3])
    func smallLettersAreStoodUp(turns: Int) async throws {
        let scratch = try ScratchFolder()
        let small = try Self.smallLetters()
        let straight = try await Self.read(small, with: Self.preparing, in: scratch, name: "upright")
        let turn = PageTransform(quarterTurns: turns, inputSize: small.size)
        let report = try await Self.read(small.transformed(by: turn), with: Self.preparing, in: scratch, name: "turned")
        let record = try #require(report.preparation)
        #expect(record.rotation == (4 - turns) * 90)
        #expect(record.rotationSetAside == nil || record.rotationSetAside == 0)
        // Its rows, measured at the letters' own size (7 px), settled the way up, where
        // Tesseract's detector reads these letters at 1.6 to 2.1 unless they are enlarged.
        #expect(record.orientationConfidence == nil)
        #expect(try #require(record.rowsRead) >= 8)
        #expect(straight.words.count >= 40)
        #expect(report.words.map(\.text) == straight.words.map(\.text))
    }

    @Test("small letters are measured as the recogniser will read them, a page on its side too")
    func smallLettersAreMeasuredEnlarged() throws {
        func enlargement(of page: Raster, reducedBy reduction: Int = 1, size: PixelSize? = nil) throws -> TextScale? {
            let letters = try #require(PagePreparer.letters(on: page))
            return PagePreparer.enlargement(for: letters, reducedBy: reduction, size: size ?? page.size)
        }
        let small = try Self.smallLetters()
        for turns in 0..<2 {
            let page = small.transformed(by: PageTransform(quarterTurns: turns, inputSize: small.size)).grayscale()
            let scale = try #require(try enlargement(of: page), "\(turns) turns")
            #expect(scale.factor > 1.5 && scale.factor < 3 && scale.resolution == 300)
        }
        let upright = try Self.upright().grayscale()
        #expect(try enlargement(of: upright) == nil)
        // Measured on the copy reduced by 2 that a large page is measured on, its small letters
        // are the page's, which need no enlarging.
        let half = upright.resampled(width: upright.width / 2, height: upright.height / 2, grey: true)
        #expect(try enlargement(of: half) != nil)
        #expect(try enlargement(of: half, reducedBy: 2, size: upright.size) == nil)
    }

    @Test("two lines too few for the detector, on their head, are read both ways and stood up")
    func aFewWordsOnTheirHeadAreStoodUp() async throws {
        let scratch = try ScratchFolder()
        let page = try ImageFile(contentsOf: Fixtures.path("text/few-words.png")).decodePage().raster
        let straight = try await Self.read(page, with: Self.preparing, in: scratch, name: "upright")
        let report = try await Self.read(page.transformed(by: PageTransform(quarterTurns: 2, inputSize: page.size)),
                                         with: Self.preparing, in: scratch, name: "on-their-head")
        let record = try #require(report.preparation)
        // Tesseract's detector finds too few letters to say, and Leptonica proposes no turn.
        #expect(record.orientationConfidence == nil)
        #expect(record.rotation == 180 && record.rotationSetAside == 0)
        #expect(straight.words.map(\.text) == ["Notes", "on", "the", "old", "harbour"])
        #expect(report.words.map(\.text) == straight.words.map(\.text))
    }

    @Test("a photograph without letters is read once, whichever way it stands", arguments: [0, 1])
    func photographsAreReadOnce(turns: Int) async throws {
        let scratch = try ScratchFolder()
        let photo = try ImageFile(contentsOf: Fixtures.path("faces/astronaut.png")).decodePage().raster
        let report = try await Self.read(photo.transformed(by: PageTransform(quarterTurns: turns, inputSize: photo.size)),
                                         with: Self.preparing, in: scratch, name: "photo")
        let record = try #require(report.preparation)
        #expect(record.rotation == 0 && record.rotationSetAside == nil && record.timings["turn"] == nil)
    }

    @Test("a page whose text is not read is not prepared: turning serves the text")
    func facesAloneAreNotPrepared() async throws {
        var settings = AnnotationSettings.readingFast()
        settings.recognizeText = false
        let report = try await Annotator(settings: settings, jobs: 1).read(file: Fixtures.path(Self.fixture))
        #expect(report.preparation == nil)
        #expect(report.timings["prepare"] != nil)
    }
}

/// Pages of the same text at half and twice the size: the small one is enlarged for Tesseract
/// and its boxes still land on the input's pixels; both read as the page at its own size.
@Suite struct ScaledPageTests {
    @Test("a page at half or twice the size reads as well, its boxes on the input", arguments: [0.5, 2.0])
    func scaledPagesRead(factor: Double) async throws {
        let scratch = try ScratchFolder()
        let upright = try PreparationTests.upright()
        let straight = try await PreparationTests.read(upright, with: PreparationTests.preparing, in: scratch, name: "own-size")
        let width = Int(Double(upright.width) * factor), height = Int(Double(upright.height) * factor)
        let scaled = factor < 1 ? upright.resampled(width: width, height: height) : upright.enlarged(width: width, height: height)
        let report = try await PreparationTests.read(scaled, with: PreparationTests.preparing, in: scratch, name: "scaled")
        #expect(try PreparationTests.f1(report) >= PreparationTests.f1(straight) - 0.01)
        if factor < 1 {
            let preparation = try #require(report.preparation)
            #expect(preparation.scale > 1, "small letters are read enlarged")
        }
        #expect(report.width == width && report.height == height)
        // Every word found once at both sizes sits where the page's own word sits, scaled.
        var matched = 0
        for word in report.words where report.words.filter({ $0.text == word.text }).count == 1 {
            let twins = straight.words.filter { $0.text == word.text }
            guard twins.count == 1, let twin = twins.first else { continue }
            let here = PreparationTests.centre(word.box), there = PreparationTests.centre(twin.box)
            #expect(abs(here.x - there.x * factor) <= 4 * max(1, factor) && abs(here.y - there.y * factor) <= 4 * max(1, factor),
                    "\(word.text) at \(here), expected near \(there.x * factor), \(there.y * factor)")
            matched += 1
        }
        #expect(matched >= 25)
    }
}
