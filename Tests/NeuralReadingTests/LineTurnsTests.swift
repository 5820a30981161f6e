import GlossGeometry
import GlossImaging
import GlossModels
import GlossNeuralNetwork
@testable import GlossNeuralReading
import GlossPreparation
import GlossTestSupport
import Testing

/// The line classifier on rows of letters cut from a rendered page, before any reading.
@Suite struct LineTurnsTests {
    static func turns(of page: Raster, limit: Int = 16) throws -> LineTurns {
        var classifier = try PPOCRNetworks.bundledClassifier()
        var input = FeatureMap(channels: 3, height: RecognizerInput.height, width: RecognizerInput.classifierWidth)
        let rows = LetterSize.rows(on: page).filter { $0.letters >= 4 }.map(\.box)
        return try LineTurns.read(rows, on: page, limit: limit, classifier: &classifier, input: &input, isCancelled: { false })
    }

    @Test("an upright page's rows read upright, at most a quarter of them otherwise, and turned over upside down",
          arguments: ["text/sans.png", "text/serif.png", "text/mono.png"])
    func rowsReadTheWayThePageStands(fixture: String) throws {
        let page = try ImageFile(contentsOf: Fixtures.path(fixture)).decodePage().raster.grayscale()
        let upright = try Self.turns(of: page)
        #expect(upright.lines >= 8)
        #expect(upright.upsideDown * 4 <= upright.lines, "\(upright)")
        let over = try Self.turns(of: page.transformed(by: PageTransform(quarterTurns: 2, inputSize: page.size)))
        #expect(over.lines == upright.lines)
        #expect(over.upsideDown * 4 >= 3 * over.lines, "\(over)")
    }

    @Test("at most `limit` rows are read, and a raised cancellation stops the reading")
    func readsAtMostItsLimit() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster.grayscale()
        #expect(try Self.turns(of: page, limit: 3).lines == 3)
        var classifier = try PPOCRNetworks.bundledClassifier()
        var input = FeatureMap(channels: 3, height: RecognizerInput.height, width: RecognizerInput.classifierWidth)
        #expect(throws: CancellationError.self) {
            try LineTurns.read([PixelRect(x: 0, y: 0, width: 100, height: 20)], on: page, limit: 1, classifier: &classifier,
                               input: &input, isCancelled: { true })
        }
    }

    @Test("a row is cut with a margin of a third of its height above and below and half of it beside, inside the page")
    func rowsAreCutWithAMargin() {
        let size = PixelSize(width: 200, height: 100)
        #expect(LineTurns.margined(PixelRect(x: 50, y: 40, width: 60, height: 12), within: size)
                == PixelRect(x: 44, y: 36, width: 72, height: 20))
        #expect(LineTurns.margined(PixelRect(x: 2, y: 1, width: 190, height: 30), within: size)
                == PixelRect(x: 0, y: 0, width: 200, height: 41))
    }
}
