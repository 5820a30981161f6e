import CImagingKernels
import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

/// The levelling's resample (`CImagingKernels`' `gloss_level`) gives the bytes Gloss's Swift
/// resample gave before it, on either path: so every page levelled reads as it read.
struct LevellingKernelTests {
    @Test("the vector path and the scalar path give the bytes of the Swift reference on a real scan",
          arguments: [(0, 0.31), (0, -2.7), (1, 1.2), (2, -0.4), (3, 4.0)])
    func realScan(turns: Int, skew: Double) throws {
        let colour = try ImageFile(contentsOf: Fixtures.path("scans/page.png")).decodePage().raster
        for raster in [colour, colour.grayscale()] {
            let transform = PageTransform(quarterTurns: turns, skew: skew, inputSize: raster.size)
            let paper = raster.medianValues()
            let levelled = raster.transformed(by: transform, background: paper)
            #expect(Self.differences(levelled, Reference.levelled(raster, by: transform, background: paper)) == 0)
            #expect(Self.differences(levelled, Self.scalar(raster, by: transform, background: paper)) == 0)
        }
    }

    @Test("noise of odd sizes and one or three channels: every path, every pixel, the same byte")
    func noise() {
        var generator = SplitMix(seed: 7)
        for (width, height) in [(5, 5), (37, 23), (3, 200), (200, 3), (64, 64), (131, 77)] {
            for layout in [Raster.Layout.gray, .rgb] {
                let count = width * height * layout.rawValue
                let pixels = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let raster = Raster(width: width, height: height, layout: layout, pixels: pixels)
                for skew in [0.05, -0.3, 1.7, -9.5, 30] {
                    let turns = Int(generator.next() % 4)
                    let transform = PageTransform(quarterTurns: turns, skew: skew, inputSize: raster.size)
                    let paper = (0..<layout.rawValue).map { UInt8(60 * $0 + 90) }
                    let levelled = raster.transformed(by: transform, background: paper)
                    let name = "\(width)x\(height) \(layout) turned \(turns), skew \(skew)"
                    #expect(Self.differences(levelled, Reference.levelled(raster, by: transform, background: paper)) == 0, "\(name)")
                    #expect(Self.differences(levelled, Self.scalar(raster, by: transform, background: paper)) == 0, "\(name)")
                }
            }
        }
    }

    /// How many bytes of `a` and `b` differ; every byte when their sizes do.
    static func differences(_ a: Raster, _ b: Raster) -> Int {
        guard a.size == b.size, a.layout == b.layout else { return max(a.pixels.count, b.pixels.count) }
        return zip(a.pixels, b.pixels).filter { $0 != $1 }.count
    }

    /// `gloss_level_scalar`: the path a processor without AVX2 takes.
    static func scalar(_ raster: Raster, by transform: PageTransform, background: [UInt8]) -> Raster {
        let output = transform.preparedSize
        let sampling = Raster.sampling(transform)
        var result = [UInt8](repeating: 0, count: output.width * output.height * raster.channels)
        raster.pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                gloss_level_scalar(source.baseAddress!, Int32(raster.width), Int32(raster.height), Int32(raster.channels),
                                   target.baseAddress!, Int32(output.width), Int32(output.height), sampling, background)
            }
        }
        return Raster(width: output.width, height: output.height, layout: raster.layout, pixels: result)
    }

    /// Gloss's resample as it was written in Swift, scalar, in doubles: the reference.
    enum Reference {
        static func levelled(_ raster: Raster, by transform: PageTransform, background: [UInt8]?) -> Raster {
            let output = transform.preparedSize
            let c = raster.channels
            // The map from the prepared page to the input is affine: the source of each output
            // pixel's centre moves by a fixed step along a row and down a column.
            let origin = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 0.5))
            let right = transform.inputPixel(ofPrepared: PixelPoint(x: 1.5, y: 0.5))
            let down = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 1.5))
            let stepX = (x: right.x - origin.x, y: right.y - origin.y)
            let stepY = (x: down.x - origin.x, y: down.y - origin.y)
            let paper = (background?.count == c ? background! : [UInt8](repeating: 255, count: c)).map(Double.init)
            var result = [UInt8](repeating: 0, count: output.width * output.height * c)
            let w = raster.width, h = raster.height
            raster.pixels.withUnsafeBufferPointer { source in
                result.withUnsafeMutableBufferPointer { target in
                    let input = source.baseAddress!
                    for oy in 0..<output.height {
                        // Source coordinates relative to pixel centres, so sample (i, j) is pixel (i, j).
                        var sx = origin.x + Double(oy) * stepY.x - 0.5
                        var sy = origin.y + Double(oy) * stepY.y - 0.5
                        var out = target.baseAddress! + oy * output.width * c
                        for _ in 0..<output.width {
                            defer {
                                sx += stepX.x
                                sy += stepX.y
                                out += c
                            }
                            guard sx > -1, sy > -1, sx < Double(w), sy < Double(h) else {
                                for k in 0..<c { out[k] = UInt8(paper[k]) }
                                continue
                            }
                            let fx = sx.rounded(.down), fy = sy.rounded(.down)
                            let x0 = Int(fx), y0 = Int(fy)
                            let ax = sx - fx, ay = sy - fy
                            if x0 >= 1, y0 >= 1, x0 + 2 < w, y0 + 2 < h {
                                // Inside the page, most of it: sixteen neighbours weighed by a cubic
                                // that keeps strokes sharp where a bilinear mix blurs them.
                                let wx = cubicWeights(ax), wy = cubicWeights(ay)
                                let corner = input + ((y0 - 1) * w + x0 - 1) * c
                                for k in 0..<c {
                                    var sum = 0.0
                                    for j in 0..<4 {
                                        let row = corner + j * w * c + k
                                        sum += wy[j] * (wx[0] * Double(row[0]) + wx[1] * Double(row[c])
                                            + wx[2] * Double(row[2 * c]) + wx[3] * Double(row[3 * c]))
                                    }
                                    out[k] = UInt8(Swift.min(255, Swift.max(0, sum + 0.5)))
                                }
                                continue
                            }
                            if x0 >= 0, y0 >= 0, x0 + 1 < w, y0 + 1 < h {
                                // One pixel in from the edge: the four neighbours straight from memory.
                                let topLeft = input + (y0 * w + x0) * c, bottomLeft = topLeft + w * c
                                for k in 0..<c {
                                    let top = Double(topLeft[k]) + (Double(topLeft[c + k]) - Double(topLeft[k])) * ax
                                    let bottom = Double(bottomLeft[k]) + (Double(bottomLeft[c + k]) - Double(bottomLeft[k])) * ax
                                    out[k] = UInt8(top + (bottom - top) * ay + 0.5)
                                }
                                continue
                            }
                            // On the page's edge, neighbours off the page read as paper, so the edge
                            // fades into the margin instead of stopping in a hard step.
                            for k in 0..<c {
                                func value(_ x: Int, _ y: Int) -> Double {
                                    x >= 0 && y >= 0 && x < w && y < h ? Double(input[(y * w + x) * c + k]) : paper[k]
                                }
                                let top = value(x0, y0) * (1 - ax) + value(x0 + 1, y0) * ax
                                let bottom = value(x0, y0 + 1) * (1 - ax) + value(x0 + 1, y0 + 1) * ax
                                out[k] = UInt8(top * (1 - ay) + bottom * ay + 0.5)
                            }
                        }
                    }
                }
            }
            return Raster(width: output.width, height: output.height, layout: raster.layout, pixels: result)
        }

        /// The weights of the four samples around a point `t` (0..<1) past the second, by Keys'
        /// cubic convolution (a = -0.5): exact on straight ramps, and sharper than a linear mix.
        static func cubicWeights(_ t: Double) -> SIMD4<Double> {
            let a = -0.5
            func near(_ d: Double) -> Double { ((a + 2) * d - (a + 3)) * d * d + 1 }
            func far(_ d: Double) -> Double { ((a * d - 5 * a) * d + 8 * a) * d - 4 * a }
            return SIMD4(far(1 + t), near(t), near(1 - t), far(2 - t))
        }
    }
}
