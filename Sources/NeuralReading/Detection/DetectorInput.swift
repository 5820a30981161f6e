import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

/// The detector's input for a page: `3 x H x W` in B, G, R order (OpenCV's, which RapidOCR
/// passes), each sample `(v / 255 - 0.5) / 0.5`, the page resized as its `plan` says.
public struct DetectorInput: Sendable {
    public let plan: DetectorPlan
    public private(set) var map: FeatureMap

    /// The page's pixels, grey or RGB, resized and normalised as RapidOCR does.
    public init(page: Raster, plan: DetectorPlan) {
        self.plan = plan
        map = FeatureMap(channels: 3, height: 0, width: 0)
        Self.fill(&map, from: page, plan: plan)
    }

    /// Writes the input of `page` into `map`, reusing its storage when it is large enough.
    public static func fill(_ map: inout FeatureMap, from page: Raster, plan: DetectorPlan) {
        precondition(page.size == plan.page, "a \(page.size) page for a plan made for \(plan.page)")
        var pixels = page.pixels, size = page.size
        let channels = page.channels
        if plan.bounded != size {
            pixels = LinearResize.resize(pixels, from: size, to: plan.bounded, channels: channels)
            size = plan.bounded
        }
        if plan.padding > 0 {
            let black = [UInt8](repeating: 0, count: plan.padding * size.width * channels)
            pixels = black + pixels + black
            size = plan.padded
        }
        if plan.input != size {
            pixels = LinearResize.resize(pixels, from: size, to: plan.input, channels: channels)
        }
        let plane = plan.input.pixelCount
        map.reshape(channels: 3, height: plan.input.height, width: plan.input.width)
        let table = Self.normalised
        map.storage.withUnsafeMutableBufferPointer { out in
            pixels.withUnsafeBufferPointer { source in
                if channels == 1 {
                    for i in 0..<plane {
                        let v = table[Int(source[i])]
                        out[i] = v
                        out[plane + i] = v
                        out[2 * plane + i] = v
                    }
                } else {
                    for i in 0..<plane {
                        out[i] = table[Int(source[3 * i + 2])]
                        out[plane + i] = table[Int(source[3 * i + 1])]
                        out[2 * plane + i] = table[Int(source[3 * i])]
                    }
                }
            }
        }
    }

    /// `(v * (1 / 255) - 0.5) / 0.5` for each byte, rounded to float as NumPy does it
    /// (float32 product, exact difference and quotient, one rounding).
    static let normalised: [Float] = (0...255).map { Float(Double(Float($0) * Float(1.0 / 255.0)) * 2 - 1) }
}

/// OpenCV's `cv2.resize` with `INTER_LINEAR` on 8-bit images, bit for bit: half-pixel centres,
/// weights in 1/2048ths, the vertical pass as its SIMD path computes it.
enum LinearResize {
    /// For each target column (or row): the two source indices and their weights.
    struct Taps {
        var first: [Int], second: [Int], weightFirst: [Int32], weightSecond: [Int32]

        init(target: Int, source: Int) {
            let scale = 1.0 / (Double(target) / Double(source))
            first = []
            second = []
            weightFirst = []
            weightSecond = []
            for d in 0..<target {
                var f = Float((Double(d) + 0.5) * scale - 0.5)
                var s = Int(f.rounded(.down))
                f -= Float(s)
                if s < 0 { (f, s) = (0, 0) }
                if s >= source - 1 { (f, s) = (0, source - 1) }
                first.append(s)
                second.append(min(s + 1, source - 1))
                weightFirst.append(Int32(((1 - f) * 2048).rounded(.toNearestOrEven)))
                weightSecond.append(Int32((f * 2048).rounded(.toNearestOrEven)))
            }
        }
    }

    /// `raster` resized to `width` x `height`; a raster of that size already is returned as it is.
    static func resize(_ raster: Raster, width: Int, height: Int) -> Raster {
        guard raster.width > 0, raster.height > 0 else { return Raster(width: width, height: height, layout: raster.layout, filledWith: 0) }
        if raster.width == width, raster.height == height { return raster }
        let pixels = resize(raster.pixels, from: raster.size, to: PixelSize(width: width, height: height), channels: raster.channels)
        return Raster(width: width, height: height, layout: raster.layout, pixels: pixels)
    }

    static func resize(_ pixels: [UInt8], from source: PixelSize, to target: PixelSize, channels: Int) -> [UInt8] {
        let columns = Taps(target: target.width, source: source.width)
        let rows = Taps(target: target.height, source: source.height)
        let rowLength = target.width * channels
        var output = [UInt8](repeating: 0, count: target.height * rowLength)
        // Horizontally resized source rows, weighted sums in 1/2048ths, two cached.
        var cache = [[Int32]](repeating: [Int32](repeating: 0, count: rowLength), count: 2)
        var cached = [-1, -1]
        pixels.withUnsafeBufferPointer { src in
            func horizontal(_ y: Int, into row: inout [Int32]) {
                let base = y * source.width * channels
                row.withUnsafeMutableBufferPointer { out in
                    for x in 0..<target.width {
                        let a = base + columns.first[x] * channels, b = base + columns.second[x] * channels
                        let wa = columns.weightFirst[x], wb = columns.weightSecond[x]
                        for c in 0..<channels {
                            out[x * channels + c] = Int32(src[a + c]) * wa + Int32(src[b + c]) * wb
                        }
                    }
                }
            }
            /// The cache slot holding row `y`, computing it into the slot not holding `keep`.
            func slot(for y: Int, keeping keep: Int) -> Int {
                if cached[0] == y { return 0 }
                if cached[1] == y { return 1 }
                let free = cached[0] == keep ? 1 : 0
                horizontal(y, into: &cache[free])
                cached[free] = y
                return free
            }
            output.withUnsafeMutableBufferPointer { out in
                for y in 0..<target.height {
                    let y0 = rows.first[y], y1 = rows.second[y]
                    let s0 = slot(for: y0, keeping: y1), s1 = slot(for: y1, keeping: y0)
                    let b0 = rows.weightFirst[y], b1 = rows.weightSecond[y]
                    let r0 = cache[s0], r1 = cache[s1]
                    let o = y * rowLength
                    for i in 0..<rowLength {
                        // ((s0 >> 4) * b0 >> 16) + ((s1 >> 4) * b1 >> 16), rounded by 2 bits.
                        let v = (((r0[i] >> 4) * b0) >> 16) + (((r1[i] >> 4) * b1) >> 16)
                        out[o + i] = UInt8(clamping: (v + 2) >> 2)
                    }
                }
            }
        }
        return output
    }
}
