import GlossGeometry
import GlossImaging
import Testing

struct RasterTests {
    /// 3x2, every pixel distinct: 0 1 2 / 3 4 5.
    let sample = Raster(width: 3, height: 2, layout: .gray, pixels: [0, 1, 2, 3, 4, 5])

    @Test(arguments: [
        (Orientation.up, [0, 1, 2, 3, 4, 5]),
        (.upMirrored, [2, 1, 0, 5, 4, 3]),
        (.down, [5, 4, 3, 2, 1, 0]),
        (.downMirrored, [3, 4, 5, 0, 1, 2]),
        (.leftMirrored, [0, 3, 1, 4, 2, 5]),
        (.right, [3, 0, 4, 1, 5, 2]),
        (.rightMirrored, [5, 2, 4, 1, 3, 0]),
        (.left, [2, 5, 1, 4, 0, 3]),
    ] as [(Orientation, [UInt8])])
    func turnsPixelsAsEXIFSays(orientation: Orientation, expected: [UInt8]) {
        let turned = sample.oriented(orientation)
        #expect(turned.size == orientation.uprightSize(of: sample.size))
        #expect(turned.pixels == expected)
    }

    @Test func rgbKeepsItsChannelsTogetherWhenTurned() {
        let rgb = Raster(width: 2, height: 1, layout: .rgb, pixels: [1, 2, 3, 4, 5, 6])
        #expect(rgb.oriented(.right).pixels == [1, 2, 3, 4, 5, 6])
        #expect(rgb.oriented(.upMirrored).pixels == [4, 5, 6, 1, 2, 3])
    }

    @Test func aColourPictureOfGreyPixelsIsGrey() {
        let values: [UInt8] = [0, 17, 128, 255, 3, 200]
        let colour = Raster(width: 3, height: 2, layout: .rgb, pixels: values.flatMap { [$0, $0, $0] })
        let grey = colour.greyIfNeutral()
        #expect(grey == Raster(width: 3, height: 2, layout: .gray, pixels: values))
        #expect(grey == colour.grayscale(), "the luma of equal channels is that channel")
        // One channel of the last pixel off by one: a colour picture.
        var pixels = colour.pixels
        pixels[pixels.count - 1] ^= 1
        #expect(Raster(width: 3, height: 2, layout: .rgb, pixels: pixels).greyIfNeutral() == nil)
        #expect(sample.greyIfNeutral() == nil, "a grey picture is grey already")
    }

    @Test func halvingAveragesEachBlock() {
        let raster = Raster(width: 4, height: 2, layout: .gray, pixels: [0, 100, 200, 200, 100, 0, 50, 50])
        let half = raster.resampled(width: 2, height: 1)
        #expect(half.pixels == [50, 125])
    }

    @Test func downsamplingFitsTheLongestSideAndKeepsBrightness() {
        var pixels = [UInt8](repeating: 255, count: 1000 * 300)
        for x in stride(from: 0, to: 1000, by: 7) { for y in 0..<300 { pixels[y * 1000 + x] = 0 } }
        let raster = Raster(width: 1000, height: 300, layout: .gray, pixels: pixels)
        let small = raster.downsampled(toFit: 333)
        #expect(small.width == 333 && small.height == 100)
        let mean = { (r: Raster) in Double(r.pixels.reduce(0) { $0 + Int($1) }) / Double(r.pixels.count) }
        #expect(abs(mean(small) - mean(raster)) < 1.5)
        // Thin lines fade to grey instead of vanishing or staying black.
        #expect(small.pixels.allSatisfy { $0 > 100 && $0 < 255 } == false)
        #expect(small.pixels.contains { $0 < 240 })
        #expect(raster.downsampled(toFit: 1000) == raster)
    }

    @Test(arguments: [(97, 61), (40, 40), (13, 7)])
    func resamplingStraightToGreyGivesTheGreyOfTheColourResult(width: Int, height: Int) {
        var state: UInt32 = 12345
        let pixels = (0..<(120 * 80 * 3)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        let colour = Raster(width: 120, height: 80, layout: .rgb, pixels: pixels)
        let direct = colour.resampled(width: width, height: height, grey: true)
        #expect(direct.layout == .gray && direct.width == width && direct.height == height)
        #expect(direct == colour.resampled(width: width, height: height).grayscale())
    }

    /// Pseudo-random pixels, the same on every run.
    static func noise(width: Int, height: Int, layout: Raster.Layout) -> Raster {
        var state: UInt32 = 2024
        let pixels = (0..<(width * height * layout.rawValue)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        return Raster(width: width, height: height, layout: layout, pixels: pixels)
    }

    /// Every output pixel is the mean of the input area it covers, to the nearest level: checked
    /// against the same mean worked out in doubles, pixel by pixel, at ratios that leave the
    /// rows and columns two, three and many taps, in grey and in colour.
    @Test(arguments: [(Raster.Layout.gray, 83, 52), (.rgb, 83, 52), (.gray, 40, 17), (.rgb, 61, 29), (.gray, 11, 7), (.rgb, 11, 7)])
    func resamplingGivesTheMeanOfTheAreaCovered(layout: Raster.Layout, width: Int, height: Int) {
        let source = Self.noise(width: 97, height: 61, layout: layout)
        let result = source.resampled(width: width, height: height)
        let c = layout.rawValue
        func shares(_ o: Int, from inputs: Int, to outputs: Int) -> [(Int, Double)] {
            let ratio = Double(inputs) / Double(outputs)
            let begin = Double(o) * ratio, end = Double(o + 1) * ratio
            return (Int(begin)..<min(inputs, Int(end.rounded(.up)))).map { i in
                (i, (min(end, Double(i + 1)) - max(begin, Double(i))) / ratio)
            }
        }
        var worst = 0.0
        for oy in 0..<height {
            for ox in 0..<width {
                for channel in 0..<c {
                    var mean = 0.0
                    for (y, wy) in shares(oy, from: 61, to: height) {
                        for (x, wx) in shares(ox, from: 97, to: width) {
                            mean += wy * wx * Double(source.pixels[(y * 97 + x) * c + channel])
                        }
                    }
                    worst = max(worst, abs(Double(result.pixels[(oy * width + ox) * c + channel]) - mean))
                }
            }
        }
        #expect(worst <= 0.5 + 1e-3)
    }

    @Test func greyscaleWeighsGreenMost() {
        let rgb = Raster(width: 3, height: 1, layout: .rgb, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255])
        #expect(rgb.grayscale().pixels == [76, 150, 29])
    }
}
