import GlossContract
import GlossGeometry
import GlossImaging
import GlossTestSupport
import GlossTextRecognition
import Testing

/// Reading one rectangle of a page on its own, in a segmentation mode of its own.
@Suite(.serialized)
struct RegionReadingTests {
    let recognizer: TextRecognizer

    init() throws { recognizer = try TextRecognizer() }

    /// The truth's words of `line`, and the pixel rectangle around them grown by `margin`.
    static func line(_ line: Int, of truth: Fixtures.Truth, margin: Int) -> (words: [String], box: PixelRect) {
        let words = truth.words.filter { $0.line == line }
        let x0 = words.map(\.box.x).min()! - margin, y0 = words.map(\.box.y).min()! - margin
        let x1 = words.map { $0.box.x + $0.box.width }.max()! + margin
        let y1 = words.map { $0.box.y + $0.box.height }.max()! + margin
        return (words.map(\.text), PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
    }

    @Test(arguments: RegionLayout.allCases)
    func aLineReadOnItsOwnHasItsWordsWherePageReadingPutsThem(layout: RegionLayout) throws {
        let truth = try Fixtures.truth("text/sans.json")[0]
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let (expected, box) = Self.line(3, of: truth, margin: 12)
        let text = try recognizer.recognize(box, of: page.raster, layout: layout, resolution: page.resolution)
        #expect(text.words.map(\.text) == expected)
        // Boxes are the whole page's, not the rectangle's: each lies on its word's pixels.
        for (word, rendered) in zip(text.words, truth.words.filter { $0.line == 3 }) {
            let found = PixelRect(word.box, in: page.raster.size)
            #expect(abs(found.x - rendered.box.x) <= 3 && abs(found.y - rendered.box.y) <= 3, "\(word.text): \(found) vs \(rendered.box)")
            #expect(abs(found.maxX - rendered.box.x - rendered.box.width) <= 3, "\(word.text): \(found) vs \(rendered.box)")
        }
        #expect(text.lines.count == 1)
    }

    @Test func aRectangleReachingPastThePageIsClipped() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let corner = PixelRect(x: page.raster.width - 4, y: -50, width: 400, height: 60)
        #expect(try recognizer.recognize(corner, of: page.raster, layout: .line, resolution: nil).words.isEmpty)
        let truth = try Fixtures.truth("text/sans.json")[0]
        var (expected, box) = Self.line(0, of: truth, margin: 12)
        box = PixelRect(x: -100, y: box.y, width: box.maxX + 100, height: box.height)
        #expect(try recognizer.recognize(box, of: page.raster, layout: .block, resolution: nil).words.map(\.text) == expected)
    }

    @Test func theEnginesOwnModeIsRestored() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let before = try recognizer.recognize(page.raster, resolution: page.resolution)
        let truth = try Fixtures.truth("text/sans.json")[0]
        _ = try recognizer.recognize(Self.line(2, of: truth, margin: 10).box, of: page.raster, layout: .line, resolution: nil)
        let after = try recognizer.recognize(page.raster, resolution: page.resolution)
        // Read as one line (psm 7), the page would come back as one line of six lines' words.
        #expect(after == before)
        #expect(after.lines.count == 6)
    }

    @Test func aColourPageReadsLikeItsGrey() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/serif.png")).decodePage()
        #expect(page.raster.layout == .rgb)
        let truth = try Fixtures.truth("text/serif.json")[0]
        let (expected, box) = Self.line(1, of: truth, margin: 12)
        let colour = try recognizer.recognize(box, of: page.raster, layout: .line, resolution: nil)
        let grey = try recognizer.recognize(box, of: page.raster.grayscale(), layout: .line, resolution: nil)
        #expect(colour.words.map(\.text) == expected)
        #expect(colour == grey)
    }

    /// White lettering on black is read only by Tesseract's inverted second reading: skipped,
    /// the line comes back as something else; tried (the default), as its words. A skip lasts
    /// for its own reading only.
    @Test func lightTextOnDarkIsReadOnlyWithInvertedLinesTried() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let grey = page.raster.layout == .gray ? page.raster : page.raster.grayscale()
        let negative = Raster(width: grey.width, height: grey.height, layout: .gray, pixels: grey.pixels.map { 255 - $0 })
        let truth = try Fixtures.truth("text/sans.json")[0]
        let (expected, box) = Self.line(1, of: truth, margin: 12)
        let tried = try recognizer.recognize(box, of: negative, layout: .line, resolution: page.resolution)
        #expect(tried.words.map(\.text) == expected)
        let skipped = try recognizer.recognize(box, of: negative, layout: .line, invertedLines: .skipped, resolution: page.resolution)
        #expect(skipped.words.map(\.text) != expected)
        #expect(try recognizer.recognize(box, of: negative, layout: .line, resolution: page.resolution) == tried)
        // Dark ink on paper reads the same either way.
        let paper = try recognizer.recognize(box, of: grey, layout: .line, invertedLines: .skipped, resolution: page.resolution)
        #expect(paper.words.map(\.text) == expected)
    }

    @Test func aRaisedFlagCancelsAReading() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage()
        let flag = CancellationFlag()
        flag.raise()
        let whole = PixelRect(x: 0, y: 0, width: page.raster.width, height: page.raster.height)
        #expect(throws: CancellationError.self) {
            try recognizer.recognize(whole, of: page.raster, layout: .block, resolution: nil, cancellation: flag)
        }
    }
}
