import GlossContract
import GlossGeometry
import GlossImaging
import GlossTestSupport
import GlossTextRecognition
import Testing

/// Recognition on rendered pages whose every word position is known.
@Suite(.serialized)
struct RecognitionTests {
    static let pages: [(image: String, truth: String, page: Int)] = [
        ("text/sans.png", "text/sans.json", 0), ("text/serif.png", "text/serif.json", 0),
        ("text/mono.png", "text/mono.json", 0), ("text/upright.jpg", "text/upright.json", 0),
        ("text/rotated.jpg", "text/rotated.json", 0), ("text/rotated.tif", "text/rotated-tif.json", 0),
        ("text/two-pages.tif", "text/two-pages.json", 0), ("text/two-pages.tif", "text/two-pages.json", 1),
        ("formats/page.pgm", "formats/page.json", 0), ("formats/page.webp", "formats/page.json", 0),
        ("formats/page.gif", "formats/page.json", 0), ("formats/page.bmp", "formats/page.json", 0),
    ]

    let recognizer: TextRecognizer

    init() throws { recognizer = try TextRecognizer() }

    @Test("text and word boxes match the renderer", arguments: pages)
    func recognisesWhatWasRendered(fixture: (image: String, truth: String, page: Int)) throws {
        let truth = try Fixtures.truth(fixture.truth)[fixture.page]
        let decoded = try ImageFile(contentsOf: Fixtures.path(fixture.image)).decodePage(fixture.page)
        let text = try recognizer.recognize(decoded.raster, resolution: decoded.resolution)

        let accuracy = characterAccuracy(text.text, expected: truth.text)
        #expect(accuracy >= 0.98, "\(fixture.image): \(accuracy)\n\(text.text)")

        let size = decoded.raster.size
        var unmatched = text.words
        for expected in truth.words {
            let box = expected.box
            let match = unmatched.firstIndex { word in
                let found = PixelRect(word.box, in: size)
                return word.text == expected.text && abs(found.x - box.x) <= 3 && abs(found.y - box.y) <= 3
                    && abs(found.maxX - (box.x + box.width)) <= 3 && abs(found.maxY - (box.y + box.height)) <= 3
            }
            #expect(match != nil, "\(fixture.image): '\(expected.text)' not found within 3 px of \(box)")
            if let match { unmatched.remove(at: match) }
        }
        #expect(text.words.allSatisfy { (0...100).contains($0.confidence) })
        #expect(text.lines.count == Set(truth.words.map(\.line)).count)
    }

    @Test func theRotatedPhotoReadsLikeTheUprightOne() throws {
        func words(_ fixture: String) throws -> [String] {
            let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage()
            return try recognizer.recognize(page.raster, resolution: page.resolution).words.map(\.text)
        }
        #expect(try words("text/rotated.jpg") == words("text/upright.jpg"))
    }

    @Test func baselinesRunAlongTheBottomOfTheirLine() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let text = try recognizer.recognize(page.raster, resolution: page.resolution)
        for line in text.lines {
            let baseline = try #require(line.baseline)
            #expect(baseline.start.x < baseline.end.x)
            #expect(baseline.start.y >= line.box.minY && baseline.start.y <= line.box.minY + line.box.height / 2)
        }
    }

    @Test func aBlankPageHasNoText() throws {
        let blank = Raster(width: 600, height: 400, layout: .gray, filledWith: 255)
        #expect(try recognizer.recognize(blank, resolution: 300).words.isEmpty)
    }

    @Test func aRaisedFlagCancelsRecognition() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let flag = CancellationFlag()
        flag.raise()
        #expect(throws: CancellationError.self) {
            try recognizer.recognize(page.raster, resolution: 300, cancellation: flag)
        }
        // The engine is still usable afterwards.
        #expect(try !recognizer.recognize(page.raster, resolution: 300).words.isEmpty)
    }
}

struct EngineSetupTests {
    @Test func aMissingLanguageIsNamed() {
        #expect(throws: TextRecognitionError.self) { try TextRecognizer(options: RecognitionOptions(languages: ["xyz"])) }
        do {
            _ = try TextRecognizer(options: RecognitionOptions(languages: ["eng", "xyz"]))
        } catch {
            #expect("\(error)".contains("'xyz'"))
        }
    }

    @Test func pageSegmentationModeIsChecked() {
        #expect(throws: TextRecognitionError(.invalidPageSegmentationMode(14))) {
            try TextRecognizer(options: RecognitionOptions(pageSegmentationMode: 14))
        }
    }
}

/// A real photographed page: uneven light, a 72 ppi placeholder resolution, an ICC profile.
struct RealScanTests {
    @Test func readsTheScannedPageAndBoxesItsInk() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("scans/page.png")).decodePage()
        #expect(page.raster.size == PixelSize(width: 384, height: 191))
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        let found = Set(text.words.map { $0.text.lowercased().trimmingCharacters(in: .punctuationCharacters) })
        for expected in ["segmentation", "markers", "coins", "background", "object"] {
            #expect(found.contains(expected), "\(expected) not in \(text.text)")
        }
        for word in text.words where word.confidence > 90 {
            let box = PixelRect(word.box, in: page.raster.size)
            #expect(box.x >= 0 && box.y >= 0 && box.maxX <= 384 && box.maxY <= 191)
            let darkest = (box.y..<box.maxY).flatMap { y in (box.x..<box.maxX).map { x in page.raster[x, y] } }.min() ?? 255
            #expect(darkest < 110, "'\(word.text)' at \(box) holds no ink")
        }
    }
}
