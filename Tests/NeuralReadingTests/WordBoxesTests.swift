import GlossContract
import GlossGeometry
import GlossImaging
@testable import GlossNeuralReading
import Testing

/// Word and line boxes from time steps, on lines placed by hand.
@Suite struct WordBoxesTests {
    let page = PixelSize(width: 1000, height: 800)

    func pixels(_ rect: NormalizedRect) -> PixelRect { PixelRect(rect, in: page) }

    /// Within a millionth of a pixel: the trip through 0...1 and back rounds.
    func near(_ a: PixelPoint, _ b: PixelPoint) -> Bool { abs(a.x - b.x) < 1e-6 && abs(a.y - b.y) < 1e-6 }

    @Test func theMappingTakesTheSquareOntoTheCorners() {
        let corners = [PixelPoint(x: 10, y: 20), PixelPoint(x: 110, y: 30), PixelPoint(x: 100, y: 80), PixelPoint(x: 5, y: 70)]
        let mapping = QuadMapping(corners)
        for (point, corner) in zip([(0.0, 0.0), (1, 0), (1, 1), (0, 1)], corners) {
            let mapped = mapping.point(point.0, point.1)
            #expect(abs(mapped.x - corner.x) < 1e-9 && abs(mapped.y - corner.y) < 1e-9, "\(point) -> \(mapped)")
        }
        // A parallelogram's middle is its diagonals' crossing.
        let parallelogram = QuadMapping([PixelPoint(x: 0, y: 0), PixelPoint(x: 100, y: 10), PixelPoint(x: 110, y: 60), PixelPoint(x: 10, y: 50)])
        #expect(parallelogram.point(0.5, 0.5) == PixelPoint(x: 55, y: 30))
    }

    @Test func aWordReachesHalfAnAdvanceBeyondItsOuterCharacters() {
        // " ab c": a at step 2, b at 4, c at 8 (each one step): advance 16 px, centres 20, 36, 68.
        let line = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled(" ab c")), steps: 10)
        #expect(WordBoxes.advance(of: line, resizedWidth: 400) == 16)
        let words = line.words
        #expect(WordBoxes.extent(of: words[0], advance: 16, resizedWidth: 400) == (12, 44))
        #expect(WordBoxes.extent(of: words[1], advance: 16, resizedWidth: 400) == (60, 76))
        // Kept within the line.
        #expect(WordBoxes.extent(of: words[1], advance: 16, resizedWidth: 70) == (60, 70))
        // Single letters only: the line's width shared among its characters, spaces included.
        let single = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled("a b")), steps: 6)
        #expect(WordBoxes.advance(of: single, resizedWidth: 90) == 30)
    }

    @Test func wordsLandOnThePageThroughTheResizeAndTheCorners() throws {
        // A level line at (100, 200), 400 x 48 page pixels, resized to 400 x 48: a resized pixel is a page pixel.
        let quad = levelQuad(left: 100, top: 200, width: 400, height: 48)
        let decoded = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled(" ab c")), steps: 10)
        let line = try #require(WordBoxes.line(decoded, placement: LinePlacement(corners: quad.corners, resizedWidth: 400), page: page))
        #expect(line.text == "ab c")
        #expect(line.words.map { pixels($0.box) } == [PixelRect(x: 112, y: 200, width: 32, height: 48),
                                                      PixelRect(x: 160, y: 200, width: 16, height: 48)])
        #expect(pixels(line.box) == PixelRect(x: 100, y: 200, width: 400, height: 48))
        let baseline = try #require(line.baseline)
        #expect(near(PixelPoint(baseline.start, in: page), PixelPoint(x: 100, y: 248)))
        #expect(near(PixelPoint(baseline.end, in: page), PixelPoint(x: 500, y: 248)))

        // The same crop twice the page's size (resized to half): the words' page pixels halve.
        let half = try #require(WordBoxes.line(decoded, placement: LinePlacement(corners: levelQuad(left: 100, top: 200, width: 200, height: 24).corners,
                                                                                 resizedWidth: 400), page: page))
        #expect(half.words.map { pixels($0.box) } == [PixelRect(x: 106, y: 200, width: 16, height: 24),
                                                      PixelRect(x: 130, y: 200, width: 8, height: 24)])
    }

    @Test func aLineReadTurnedOverHasItsFirstWordOnTheRight() throws {
        let quad = levelQuad(left: 100, top: 200, width: 400, height: 48)
        let placement = LinePlacement(corners: quad.corners, resizedWidth: 400).turnedOver()
        let decoded = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled(" ab c")), steps: 10)
        let line = try #require(WordBoxes.line(decoded, placement: placement, page: page))
        // Mirrored about the line's middle: 12...44 from the right end is 456...488 on the page.
        #expect(line.words.map { pixels($0.box) } == [PixelRect(x: 456, y: 200, width: 32, height: 48),
                                                      PixelRect(x: 424, y: 200, width: 16, height: 48)])
        // The letters stand on the quad's top edge, read right to left on the page.
        let baseline = try #require(line.baseline)
        #expect(near(PixelPoint(baseline.start, in: page), PixelPoint(x: 500, y: 200)))
    }

    @Test func aTiltedLineGivesEachWordTheBoxOfItsCorners() throws {
        // Rising 40 px over 400: the first word's box spans its part of the slope and the height.
        let corners = [PixelPoint(x: 100, y: 240), PixelPoint(x: 500, y: 200), PixelPoint(x: 500, y: 248), PixelPoint(x: 100, y: 288)]
        let decoded = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled(" ab c")), steps: 10)
        let line = try #require(WordBoxes.line(decoded, placement: LinePlacement(corners: corners, resizedWidth: 400), page: page))
        // u from 0.03 to 0.11: top edge y from 238.8 to 235.6, bottom from 286.8 to 283.6.
        #expect(pixels(line.words[0].box) == PixelRect(x: 112, y: 236, width: 32, height: 51))
        #expect(pixels(line.box) == PixelRect(x: 100, y: 200, width: 400, height: 88))
    }
}

/// Words drawn in to their ink, on a crop painted by hand.
@Suite struct InkBoundsTests {
    /// A white 400 x 48 crop with dark blocks where "ab" (x 14...41, y 10...37) and "c" (x 62...73,
    /// y 16...37) are drawn.
    static var crop: Raster {
        var pixels = [UInt8](repeating: 250, count: 400 * 48)
        for y in 10..<38 { for x in 14..<42 { pixels[y * 400 + x] = 20 } }
        for y in 16..<38 { for x in 62..<74 { pixels[y * 400 + x] = 30 } }
        return Raster(width: 400, height: 48, layout: .gray, pixels: pixels)
    }

    @Test func otsuSplitsInkFromPaper() {
        let ink = InkBounds(Self.crop)
        #expect((30..<250).contains(ink.threshold), "\(ink.threshold)")
        let bounds = ink.bounds(from: 0, to: 0.125)
        #expect(bounds.map { [$0.0 * 400, $0.1 * 400, $0.2 * 48, $0.3 * 48].map { $0.rounded() } } == [14, 42, 10, 38])
        #expect(ink.bounds(from: 0.5, to: 1) == nil, "no ink there")
        #expect(InkBounds(Raster(width: 10, height: 10, layout: .gray, filledWith: 255)).bounds(from: 0, to: 1) == nil)
    }

    @Test func aWordsBoxIsItsInkWithinItsExtent() throws {
        // The steps give "ab" 12...44 and "c" 60...76 (see WordBoxesTests); the ink is 14...42 and 62...74.
        let page = PixelSize(width: 1000, height: 800)
        let quad = levelQuad(left: 100, top: 200, width: 400, height: 48)
        let decoded = FakeRows.decoder.decode(FakeRows.rows(FakeRows.spelled(" ab c")), steps: 10)
        let line = try #require(WordBoxes.line(decoded, placement: LinePlacement(corners: quad.corners, resizedWidth: 400), page: page,
                                               crop: Self.crop))
        #expect(line.words.map { PixelRect($0.box, in: page) } == [PixelRect(x: 114, y: 210, width: 28, height: 28),
                                                                  PixelRect(x: 162, y: 216, width: 12, height: 22)])
        // The line keeps its quadrilateral.
        #expect(PixelRect(line.box, in: page) == PixelRect(x: 100, y: 200, width: 400, height: 48))
    }
}
