import GlossGeometry
import GlossImaging
import GlossPreparation
import GlossTestSupport
import Testing

@Suite struct LetterSizeTests {
    private func page(_ relative: String) throws -> Raster {
        try ImageFile(contentsOf: Fixtures.path(relative)).decodePage(0).raster.grayscale()
    }

    /// The rows `from`..<`to` of `page`.
    private func rows(_ page: Raster, from top: Int, to bottom: Int) -> Raster {
        Raster(width: page.width, height: bottom - top, layout: .gray,
               pixels: Array(page.pixels[(top * page.width)..<(bottom * page.width)]))
    }

    /// The text fixtures are set in DejaVu at 28, 36 and 48 px, whose x-heights are about 15,
    /// 20 and 26 px: the letters measured are of one of those sizes.
    @Test(arguments: ["text/sans.png", "text/serif.png", "text/mono.png"])
    func findsTheXHeightOfOneOfTheFontSizes(fixture: String) throws {
        let size = try #require(LetterSize(of: page(fixture)))
        #expect([15, 20, 26].contains { abs($0 - size.xHeight) <= 1 }, "x-height \(size.xHeight)")
        #expect(size.letters > 100)
    }

    /// The last two lines of `sans.png` (from row 360) are set at 28 px alone: x-height 15.
    @Test func measuresOneSizeOfTextExactly() throws {
        let lines = rows(try page("text/sans.png"), from: 360, to: 528)
        let size = try #require(LetterSize(of: lines))
        #expect((14...16).contains(size.xHeight), "x-height \(size.xHeight)")
    }

    @Test func theXHeightFollowsTheScaleOfThePage() throws {
        let lines = rows(try page("text/sans.png"), from: 360, to: 528)
        let double = lines.enlarged(width: lines.width * 2, height: lines.height * 2)
        let measured = LetterSize(of: lines)?.xHeight ?? 0
        let doubled = LetterSize(of: double)?.xHeight ?? 0
        #expect(measured > 0 && abs(doubled - measured * 2) <= 2, "\(measured) px, then \(doubled) px at twice the size")
    }

    @Test func aPhotographedPageHasSmallLetters() throws {
        let size = try #require(LetterSize(of: page("scans/page.png")))
        #expect((6...10).contains(size.xHeight), "x-height \(size.xHeight)")
    }

    @Test func aBlankPageHasNoLetters() {
        #expect(LetterSize(of: Raster(width: 400, height: 300, layout: .gray, filledWith: 255)) == nil)
    }

    @Test func lightTextOnADarkPageIsMeasuredToo() throws {
        let dark = try page("text/sans.png")
        let inverted = Raster(width: dark.width, height: dark.height, layout: .gray, pixels: dark.pixels.map { 255 - $0 })
        #expect(LetterSize(of: inverted)?.xHeight == LetterSize(of: dark)?.xHeight)
    }

    /// Dotted rules are rows of tiny marks, each beside the next: they must not pass for small
    /// letters, or a page with them would be enlarged for nothing. Here three rules of 4 px
    /// dots, as many dots as the lines have letters.
    @Test func aDottedRuleDoesNotOutvoteTheText() throws {
        var lines = rows(try page("text/sans.png"), from: 360, to: 528)
        var pixels = lines.pixels
        for rule in [2, 80, 160] {
            for x in stride(from: 0, to: lines.width - 4, by: 7) {
                for dy in 0..<4 { for dx in 0..<4 { pixels[(rule + dy) * lines.width + x + dx] = 0 } }
            }
        }
        lines = Raster(width: lines.width, height: lines.height, layout: .gray, pixels: pixels)
        let size = try #require(LetterSize(of: lines))
        #expect((14...16).contains(size.xHeight), "x-height \(size.xHeight)")
    }

    /// A receipt photographed on grey card: beside the text lies a texture of fibres, 5 px
    /// marks that fall two side by side here and there, never in a row of three. Here 400 rows
    /// of such pairs, many times as many marks as the lines have letters: the letters are
    /// measured, not the fibres.
    @Test func aTextureOfMarksInPairsDoesNotOutvoteTheText() throws {
        let lines = rows(try page("text/sans.png"), from: 360, to: 528)
        let width = lines.width, height = lines.height + 400
        var pixels = lines.pixels + [UInt8](repeating: 255, count: width * 400)
        /// A fibre: a stroke two pixels thick, 3 wide and 5 tall, its foot at `bottom`.
        func fibre(x: Int, bottom: Int) {
            for dy in 0..<5 { for dx in 0..<2 { pixels[(bottom - dy) * width + x + dx + (dy >= 3 ? 1 : 0)] = 0 } }
        }
        var pairs = 0
        for bottom in stride(from: lines.height + 10, to: height - 2, by: 12) {
            for x in stride(from: (bottom / 12 % 3) * 5, to: width - 12, by: 24) {
                fibre(x: x, bottom: bottom)
                fibre(x: x + 6, bottom: bottom)
                pairs += 1
            }
        }
        let textured = Raster(width: width, height: height, layout: .gray, pixels: pixels)
        let size = try #require(LetterSize(of: textured))
        #expect(pairs * 2 > 10 * size.letters)
        #expect((14...16).contains(size.xHeight), "x-height \(size.xHeight)")
    }
}

@Suite struct TextScaleTests {
    @Test func smallLettersAreEnlargedAndToldThreeHundredPPI() {
        let scale = TextScale(letters: LetterSize(xHeight: 8, letters: 500), statedResolution: 96,
                              size: .init(width: 1000, height: 1200))
        #expect(scale.factor == 2)
        #expect(scale.resolution == 300)
    }

    @Test func aStatedResolutionIsBelievedAsTheSearchablePDFBelievesIt() {
        for stated in [nil, 0, 72, 96, 99, 100, 150, 300, 4800, 4801] as [Int?] {
            let scale = TextScale(letters: nil, statedResolution: stated, size: .init(width: 1000, height: 1200))
            #expect(scale.resolution == StatedResolution.believed(stated) ?? TextScale.assumedResolution, "\(String(describing: stated))")
        }
        #expect(StatedResolution.believed(96) == nil && StatedResolution.believed(100) == 100)
    }

    @Test func theEnlargementStopsAtThePixelLimit() {
        let scale = TextScale(letters: LetterSize(xHeight: 4, letters: 500), statedResolution: nil,
                              size: .init(width: 4000, height: 5000))
        #expect(scale.factor * scale.factor * 20_000_000 <= Double(TextScale.mostPixels) + 1)
        #expect(scale.factor > 1)
    }

    @Test func aPlaceholderResolutionIsNotBelieved() {
        for stated in [nil, 72, 96] {
            let scale = TextScale(letters: LetterSize(xHeight: 18, letters: 500), statedResolution: stated,
                                  size: .init(width: 2000, height: 2600))
            #expect(scale == TextScale(factor: 1, resolution: 300))
        }
        let scanned = TextScale(letters: LetterSize(xHeight: 18, letters: 500), statedResolution: 400,
                                size: .init(width: 3300, height: 4400))
        #expect(scanned == TextScale(factor: 1, resolution: 400))
    }

    @Test func hugeLettersAreReduced() {
        let scale = TextScale(letters: LetterSize(xHeight: 60, letters: 500), statedResolution: 600,
                              size: .init(width: 5000, height: 7000))
        #expect(scale.factor == 0.4)
        #expect(scale.resolution == 240)
    }

    @Test func withoutLettersNothingChanges() {
        #expect(TextScale(letters: nil, statedResolution: 200, size: .init(width: 100, height: 100))
                == TextScale(factor: 1, resolution: 200))
    }
}

/// The rows of letters a page's lines are found in before any reading (`LetterSize.rows(on:)`).
@Suite struct LetterRowsTests {
    private func sans() throws -> Raster {
        try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage(0).raster.grayscale()
    }

    @Test("an upright page's letters lie in rows across it, and in none once it is stood on its side")
    func rowsRunAcrossAnUprightPage() throws {
        let page = try sans()
        let across = LetterSize.rows(on: page)
        let down = LetterSize.rows(on: page.transformed(by: PageTransform(quarterTurns: 1, inputSize: page.size)))
        let letters = across.reduce(0) { $0 + $1.letters }
        #expect(letters > 100)
        #expect(down.reduce(0) { $0 + $1.letters } * 10 < letters)
        // Most letters first, each row inside the page and wider than tall, as a line is.
        #expect(across.map(\.letters) == across.map(\.letters).sorted(by: >))
        #expect(across.filter { $0.letters >= 4 }.allSatisfy { row in
            row.box.x >= 0 && row.box.y >= 0 && row.box.maxX <= page.width && row.box.maxY <= page.height
                && row.box.width > 2 * row.box.height
        })
    }

    @Test("the rows found both ways at once are those found on the page and on the page stood up",
          arguments: ["text/sans.png", "scans/page.png", "tables/sparse-numbers.png"])
    func rowsBothWaysAreEachWaysRows(fixture: String) throws {
        let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage(0).raster.grayscale()
        let both = LetterSize.rowsBothWays(on: page)
        #expect(both.across == LetterSize.rows(on: page))
        #expect(both.stood == LetterSize.rows(on: page.transformed(by: PageTransform(quarterTurns: 1, inputSize: page.size))))
        #expect(!both.across.isEmpty)
    }

    @Test("the rows on the fixture's first line, 'The quick brown fox jumps', lie within its drawn words")
    func rowsLieOnTheirLine() throws {
        let page = try sans()
        let line = try Fixtures.truth("text/sans.json")[0].words.filter { $0.line == 0 }.map(\.box)
        let top = try #require(line.map(\.y).min()), bottom = try #require(line.map { $0.y + $0.height }.max())
        let rows = LetterSize.rows(on: page).filter { $0.box.y < bottom && $0.box.maxY > top }
        #expect(rows.reduce(0) { $0 + $1.letters } >= 15)
        #expect(rows.allSatisfy { $0.box.y >= top - 2 && $0.box.maxY <= bottom + 2 }, "\(rows) in \(top)..<\(bottom)")
    }
}
