import GlossContract
import GlossFaceDetection
import GlossGeometry
import GlossImaging
import Testing

/// Deterministic noise with a standard deviation far above the cascade's flatness limit.
func noise(width: Int, height: Int, seed: UInt64 = 42) -> Raster {
    var state = seed
    var pixels = [UInt8](repeating: 0, count: width * height)
    for i in pixels.indices {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        pixels[i] = UInt8(truncatingIfNeeded: state >> 56)
    }
    return Raster(width: width, height: height, layout: .gray, pixels: pixels)
}

@Suite struct ScanRuleTests {
    let alwaysPass: Cascade
    let alwaysFail: Cascade

    init() throws {
        alwaysPass = try Cascade(xml: Array(tinyCascadeXML(leaf: "1.", threshold: "-1.").utf8), source: "pass.xml")
        alwaysFail = try Cascade(xml: Array(tinyCascadeXML(leaf: "1.", threshold: "2.").utf8), source: "fail.xml")
    }

    @Test func belowFactorTwoTheWindowMovesTwoPixels() throws {
        // Only scale 1 fits (the next window, 240 px, is bigger than the image).
        let raw = try alwaysPass.detect(in: noise(width: 100, height: 80),
                                        parameters: DetectionParameters(scaleFactor: 10, minNeighbors: 0))
        // x in 0, 2, ..., 76 (39 positions); y in 0, 2, ..., 56 (29 positions).
        #expect(raw.count == 39 * 29)
        #expect(raw.allSatisfy { $0.rect.width == 24 && $0.rect.height == 24 && $0.neighbors == 1 })
        #expect(raw.first?.rect == PixelRect(x: 0, y: 0, width: 24, height: 24))
    }

    @Test func fromFactorTwoTheWindowMovesOnePixel() throws {
        // Factors 1 and 2; minSize 48 keeps only factor 2: the image shrinks to 50x40.
        let raw = try alwaysPass.detect(
            in: noise(width: 100, height: 80),
            parameters: DetectionParameters(scaleFactor: 2, minNeighbors: 0, minSize: PixelSize(width: 48, height: 48)))
        #expect(raw.count == 27 * 17)
        #expect(raw.allSatisfy { $0.rect.width == 48 && $0.rect.x % 2 == 0 })
    }

    @Test func flatWindowsAndFailedStagesGiveNothing() throws {
        let flat = Raster(width: 100, height: 80, layout: .gray, filledWith: 128)
        #expect(try alwaysPass.detect(in: flat, parameters: DetectionParameters(minNeighbors: 0)).isEmpty)
        #expect(try alwaysFail.detect(in: noise(width: 100, height: 80), parameters: DetectionParameters(minNeighbors: 0)).isEmpty)
        #expect(try alwaysPass.detect(in: noise(width: 20, height: 20)).isEmpty)
    }

    @Test func invalidScaleFactorThrows() {
        #expect(throws: DetectionParameterError.self) {
            try alwaysPass.detect(in: noise(width: 50, height: 50), parameters: DetectionParameters(scaleFactor: 1))
        }
    }
}

@Suite struct GroupingTests {
    @Test func clustersAreAveragedAndWeakOrNestedOnesDropped() {
        let cluster = [PixelRect(x: 100, y: 100, width: 50, height: 50), PixelRect(x: 102, y: 101, width: 50, height: 50),
                       PixelRect(x: 98, y: 99, width: 52, height: 52), PixelRect(x: 101, y: 103, width: 48, height: 48),
                       PixelRect(x: 100, y: 100, width: 50, height: 50)]
        let lonely = [PixelRect(x: 300, y: 300, width: 40, height: 40)]
        let pair = [PixelRect(x: 10, y: 10, width: 30, height: 30), PixelRect(x: 11, y: 10, width: 30, height: 30)]
        // Three hits well inside the big cluster: a smaller, weaker class inside a stronger one.
        let nested = Array(repeating: PixelRect(x: 110, y: 110, width: 20, height: 20), count: 3)
        let groups = groupRectangles(lonely + cluster + pair + nested, minNeighbors: 2)
        // Mean of the cluster: x 501/5 = 100.2, y 503/5 = 100.6, w 250/5, h 250/5.
        #expect(groups == [GroupedRectangle(rect: PixelRect(x: 100, y: 101, width: 50, height: 50), neighbors: 5)])
    }

    @Test func similarityIsTransitive() {
        // 0-15 and 15-30 are within 20 % of the size, 0-30 is not: still one class.
        let chain = [0, 15, 30].map { PixelRect(x: $0, y: 0, width: 100, height: 100) }
        #expect(groupRectangles(chain, minNeighbors: 2) == [GroupedRectangle(rect: PixelRect(x: 15, y: 0, width: 100, height: 100), neighbors: 3)])
        #expect(groupRectangles(chain, minNeighbors: 3).isEmpty)
    }

    @Test func zeroNeighboursReturnsTheInput() {
        let rects = [PixelRect(x: 1, y: 2, width: 3, height: 4), PixelRect(x: 1, y: 2, width: 3, height: 4)]
        #expect(groupRectangles(rects, minNeighbors: 0).map(\.rect) == rects)
    }
}

@Suite struct OpenCVParityTests {
    /// `cv2.CascadeClassifier(file).detectMultiScale(grey, 1.1, 3, minSize=(30, 30))` from
    /// Debian's python3-opencv 4.6 on astronaut.png converted with cv2.COLOR_BGR2GRAY.
    /// (That grey conversion differs from Raster.grayscale() by rounding; boxes do not.)
    @Test(arguments: [
        (Cascade.Known.frontalFaceDefault, PixelRect(x: 177, y: 66, width: 95, height: 95)),
        (Cascade.Known.frontalFaceAlt2, PixelRect(x: 177, y: 66, width: 97, height: 97)),
        (Cascade.Known.lbpFrontalFaceImproved, PixelRect(x: 188, y: 86, width: 73, height: 73)),
    ])
    func astronautBoxesMatchOpenCV(known: Cascade.Known, expected: PixelRect) throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let found = try Cascade.load(known).detect(
            in: image, parameters: DetectionParameters(minSize: PixelSize(width: 30, height: 30)))
        #expect(found.count == 1)
        let r = try #require(found.first).rect
        #expect(abs(r.x - expected.x) <= 1 && abs(r.y - expected.y) <= 1 && abs(r.width - expected.width) <= 1)
    }

    @Test func threadsDoNotChangeTheResult() throws {
        let image = try Fixtures.raster("faces/astronaut.png")
        let cascade = try Cascade.load(.lbpFrontalFaceImproved)
        var parameters = DetectionParameters(minNeighbors: 0, minSize: PixelSize(width: 30, height: 30))
        let one = try cascade.detect(in: image, parameters: parameters)
        parameters.threads = 2
        let two = try cascade.detect(in: image, parameters: parameters)
        #expect(one == two)
        #expect(one.count > 10)
    }
}
