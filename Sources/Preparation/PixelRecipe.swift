import GlossImaging

/// Per-pixel steps that turn a page into the grey (or black and white) copy Tesseract reads,
/// composed as a value and rendered in one pass over the rows: no page-sized image is made
/// between steps, in the manner of Core Image's filter graphs.
///
/// What a step needs to know about the whole page (the paper's level under each pixel, the
/// local mean and spread for Sauvola) is measured first on a small copy, a few thousand
/// blocks, and read back through bilinear interpolation as each row is rendered.
public struct PixelRecipe: Sendable, Equatable {
    /// How the copy is turned to black and white.
    public enum Binarization: Sendable, Equatable {
        /// Left grey: Tesseract applies its own Otsu threshold.
        case none
        /// One threshold for the page, Otsu's.
        case otsu
        /// A threshold per pixel from the mean and spread around it (Sauvola), for light that
        /// changes across the page. `window` is in pixels of the page, `k` its sensitivity.
        case sauvola(window: Int, k: Double)
    }

    /// Divide each pixel by the paper's level under it: shadows, yellowing and uneven light
    /// become white paper.
    public var flattensBackground = false
    /// Stretch the darkest ink to black and the paper to white.
    public var normalizesContrast = false
    public var binarization = Binarization.none
    /// Light text on a dark page becomes dark text on a light one.
    public var inverts = false

    public init(flattensBackground: Bool = false, normalizesContrast: Bool = false, binarization: Binarization = .none,
                inverts: Bool = false) {
        self.flattensBackground = flattensBackground
        self.normalizesContrast = normalizesContrast
        self.binarization = binarization
        self.inverts = inverts
    }

    /// The recipe in a few words, for the page's preparation record.
    public var summary: String {
        var steps: [String] = []
        if flattensBackground { steps.append("flattened") }
        if normalizesContrast { steps.append("stretched") }
        switch binarization {
        case .none: break
        case .otsu: steps.append("otsu")
        case .sauvola: steps.append("sauvola")
        }
        if inverts { steps.append("inverted") }
        return steps.isEmpty ? "tesseract" : steps.joined(separator: ", ")
    }

    /// Nothing to do: the page is handed over as it is (in colour, when it is).
    public var isIdentity: Bool { !flattensBackground && !normalizesContrast && binarization == .none && !inverts }

    /// The side of the blocks the page's statistics are measured in.
    static let block = 32

    /// The recipe rendered over `page`: a grey raster of the same size.
    public func rendered(_ page: Raster) -> Raster {
        let grey = page.layout == .gray ? page : page.grayscale()
        guard !isIdentity, grey.width > 0, grey.height > 0 else { return grey }
        let width = grey.width, height = grey.height
        let statistics = BlockStatistics(of: grey, block: Self.block)
        // The paper's level per block, then the levels the page spans after flattening.
        let paper = flattensBackground ? statistics.paper : nil
        var low: Float = 0, high: Float = 255
        if normalizesContrast { (low, high) = statistics.range(flattenedBy: paper) }
        let scale = 255 / max(1, high - low)
        let threshold: Float? = binarization == .otsu ? Float(Raster.otsuThreshold(of: statistics.sample(flattenedBy: paper, low: low, scale: scale))) : nil
        var local: (mean: BlockField, deviation: BlockField, k: Float)?
        if case .sauvola(let window, let k) = binarization {
            let moments = statistics.moments(window: window, flattenedBy: paper, low: low, scale: scale)
            local = (moments.mean, moments.deviation, Float(k))
        }
        var output = [UInt8](repeating: 0, count: width * height)
        grey.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                var paperRow = [Float](repeating: 255, count: width)
                var meanRow = [Float](repeating: 0, count: width), deviationRow = [Float](repeating: 0, count: width)
                for y in 0..<height {
                    paper?.row(y, into: &paperRow)
                    if let local {
                        local.mean.row(y, into: &meanRow)
                        local.deviation.row(y, into: &deviationRow)
                    }
                    let input = source.baseAddress! + y * width, out = target.baseAddress! + y * width
                    for x in 0..<width {
                        var value = Float(input[x])
                        if paper != nil { value = min(255, value * 255 / max(1, paperRow[x])) }
                        value = min(255, max(0, (value - low) * scale))
                        if let threshold {
                            value = value > threshold ? 255 : 0
                        } else if let local {
                            let limit = meanRow[x] * (1 + local.k * (deviationRow[x] / 128 - 1))
                            value = value > limit ? 255 : 0
                        }
                        out[x] = UInt8(inverts ? 255 - value : value)
                    }
                }
            }
        }
        return Raster(width: width, height: height, layout: .gray, pixels: output)
    }
}

/// A value per block of a page, read back per pixel by bilinear interpolation between the
/// blocks' centres.
struct BlockField {
    var values: [Float]
    var columns: Int, rows: Int, block: Int, width: Int

    func row(_ y: Int, into line: inout [Float]) {
        let fy = min(max((Float(y) + 0.5) / Float(block) - 0.5, 0), Float(rows - 1))
        let r0 = min(Int(fy), rows - 1), r1 = min(r0 + 1, rows - 1), wy = fy - Float(r0)
        for x in 0..<width {
            let fx = min(max((Float(x) + 0.5) / Float(block) - 0.5, 0), Float(columns - 1))
            let c0 = min(Int(fx), columns - 1), c1 = min(c0 + 1, columns - 1), wx = fx - Float(c0)
            let top = values[r0 * columns + c0] * (1 - wx) + values[r0 * columns + c1] * wx
            let bottom = values[r1 * columns + c0] * (1 - wx) + values[r1 * columns + c1] * wx
            line[x] = top * (1 - wy) + bottom * wy
        }
    }

    func value(atPixel x: Int, _ y: Int) -> Float { values[min(y / block, rows - 1) * columns + min(x / block, columns - 1)] }
}

/// What the recipe measures of a page before rendering it: per block, the paper's level (the
/// brightest tenth of its pixels, spread to neighbouring blocks so that a block full of ink
/// takes the paper around it), and the mean and mean square of its pixels.
struct BlockStatistics {
    let grey: Raster
    let block: Int
    let columns: Int, rows: Int
    let paper: BlockField
    let sums: [Float], squares: [Float], counts: [Float]

    init(of grey: Raster, block: Int) {
        self.grey = grey
        self.block = block
        let columns = (grey.width + block - 1) / block, rows = (grey.height + block - 1) / block
        self.columns = columns
        self.rows = rows
        var bright = [Float](repeating: 0, count: columns * rows)
        var sums = [Float](repeating: 0, count: columns * rows), squares = sums, counts = sums
        var histograms = [Int32](repeating: 0, count: columns * 256)
        grey.pixels.withUnsafeBufferPointer { pixels in
            for blockRow in 0..<rows {
                for i in histograms.indices { histograms[i] = 0 }
                for y in (blockRow * block)..<min(grey.height, (blockRow + 1) * block) {
                    let line = pixels.baseAddress! + y * grey.width
                    for x in 0..<grey.width {
                        let value = Int(line[x]), column = x / block
                        histograms[column * 256 + value] += 1
                        let cell = blockRow * columns + column
                        sums[cell] += Float(value)
                        squares[cell] += Float(value * value)
                    }
                }
                for column in 0..<columns {
                    let cell = blockRow * columns + column
                    let count = (0..<256).reduce(0) { $0 + Int(histograms[column * 256 + $1]) }
                    counts[cell] = Float(count)
                    var seen = 0, level = 255
                    while level > 0 {
                        seen += Int(histograms[column * 256 + level])
                        if seen * 10 >= count { break }
                        level -= 1
                    }
                    bright[cell] = Float(level)
                }
            }
        }
        // A block filled by ink (a heading, a photo) has no paper of its own: the brightest of
        // its neighbourhood stands in, twice spread.
        for _ in 0..<2 {
            var spread = bright
            for r in 0..<rows {
                for c in 0..<columns {
                    var best = bright[r * columns + c]
                    for dr in -1...1 { for dc in -1...1 {
                        let rr = r + dr, cc = c + dc
                        if rr >= 0, rr < rows, cc >= 0, cc < columns { best = max(best, bright[rr * columns + cc]) }
                    } }
                    spread[r * columns + c] = best
                }
            }
            bright = spread
        }
        paper = BlockField(values: bright, columns: columns, rows: rows, block: block, width: grey.width)
        self.sums = sums
        self.squares = squares
        self.counts = counts
    }

    /// Every 4th pixel of every 4th row, flattened and stretched as the recipe will: enough
    /// for a histogram of the page.
    func sample(flattenedBy paper: BlockField?, low: Float = 0, scale: Float = 1) -> [UInt8] {
        var values: [UInt8] = []
        values.reserveCapacity((grey.width / 4 + 1) * (grey.height / 4 + 1))
        for y in stride(from: 0, to: grey.height, by: 4) {
            for x in stride(from: 0, to: grey.width, by: 4) {
                var value = Float(grey[x, y])
                if let paper { value = min(255, value * 255 / max(1, paper.value(atPixel: x, y))) }
                values.append(UInt8(min(255, max(0, (value - low) * scale))))
            }
        }
        return values
    }

    /// The levels between which the flattened page lies: its darkest 0.5% and brightest 5%.
    func range(flattenedBy paper: BlockField?) -> (Float, Float) {
        var histogram = [Int](repeating: 0, count: 256)
        for value in sample(flattenedBy: paper) { histogram[Int(value)] += 1 }
        let total = histogram.reduce(0, +)
        var seen = 0, low = 0
        while low < 255, (seen + histogram[low]) * 200 < total { seen += histogram[low]; low += 1 }
        seen = 0
        var high = 255
        while high > low + 1, (seen + histogram[high]) * 20 < total { seen += histogram[high]; high -= 1 }
        return (Float(low), Float(high))
    }

    /// The mean and standard deviation over a window of about `window` pixels around each block,
    /// of the page flattened and stretched.
    func moments(window: Int, flattenedBy paper: BlockField?, low: Float, scale: Float) -> (mean: BlockField, deviation: BlockField) {
        let radius = max(0, (window / block - 1) / 2)
        var mean = [Float](repeating: 0, count: columns * rows), deviation = mean
        for r in 0..<rows {
            for c in 0..<columns {
                var sum: Float = 0, square: Float = 0, count: Float = 0
                for rr in max(0, r - radius)...min(rows - 1, r + radius) {
                    for cc in max(0, c - radius)...min(columns - 1, c + radius) {
                        let cell = rr * columns + cc
                        // The block's paper level scales its statistics as it scales its pixels.
                        let gain = (paper.map { 255 / max(1, $0.values[cell]) } ?? 1) * scale
                        let shift = low * scale
                        sum += sums[cell] * gain - shift * counts[cell]
                        square += squares[cell] * gain * gain - 2 * shift * gain * sums[cell] + shift * shift * counts[cell]
                        count += counts[cell]
                    }
                }
                let m = sum / max(1, count)
                mean[r * columns + c] = m
                deviation[r * columns + c] = max(0, square / max(1, count) - m * m).squareRoot()
            }
        }
        return (BlockField(values: mean, columns: columns, rows: rows, block: block, width: grey.width),
                BlockField(values: deviation, columns: columns, rows: rows, block: block, width: grey.width))
    }

    /// How unevenly the paper is lit: the spread between the brighter and darker paper levels
    /// of the page (their 90th and 10th percentiles), 0...255.
    var unevenness: Float {
        let levels = paper.values.sorted()
        guard !levels.isEmpty else { return 0 }
        return levels[levels.count * 9 / 10] - levels[levels.count / 10]
    }

    /// How much of the change in paper level across the page happens in steps of more than 24
    /// levels between neighbouring blocks, 0...1: light falling unevenly changes gradually,
    /// where a coloured panel or a photo on the page has edges.
    var paperSteps: Float {
        var stepped: Float = 0, total: Float = 0
        let levels = paper.values
        func pair(_ a: Float, _ b: Float) {
            let difference = abs(a - b)
            total += difference
            if difference > 24 { stepped += difference }
        }
        for r in 0..<rows {
            for c in 0..<columns {
                let here = levels[r * columns + c]
                if c + 1 < columns { pair(here, levels[r * columns + c + 1]) }
                if r + 1 < rows { pair(here, levels[(r + 1) * columns + c]) }
            }
        }
        return total == 0 ? 0 : stepped / total
    }

    /// The page's median level: under 100, it is light text on dark.
    var medianLevel: Float {
        var histogram = [Int](repeating: 0, count: 256)
        for value in sample(flattenedBy: nil) { histogram[Int(value)] += 1 }
        let half = histogram.reduce(0, +) / 2
        var seen = 0
        for level in 0..<256 {
            seen += histogram[level]
            if seen > half { return Float(level) }
        }
        return 255
    }
}

extension PixelRecipe {
    /// Paper levels spread wider than this across a page call for flattening, when they change
    /// gradually: less than `steppedPaper` of the change is in steps between blocks. Measured on
    /// the 63 pages of `bench/ocr-quality` and the photographed `fixtures/scans/page.png`: the
    /// photo spreads 64 levels, gradually (and reads 43 words flattened against 23); two
    /// screenshots with coloured panels spread 56 and 64, mostly in steps, and read worse
    /// flattened (0.979 -> 0.965 and 0.977 -> 0.950 F1); every other page spreads under 13.
    public static let unevenPaper: Float = 40
    public static let steppedPaper: Float = 0.5

    /// The recipe a page needs, from what it shows: flattening and contrast where the light
    /// falls unevenly, inversion where the paper is dark. Binarisation stays with Tesseract: a global
    /// Sauvola threshold lost 0.04 F1 on real pages (`bench/ocr-quality`).
    public static func chosen(for page: Raster) -> (recipe: PixelRecipe, unevenness: Double) {
        let grey = page.layout == .gray ? page : page.grayscale()
        let reduced = grey.width > 1200 ? grey.resampled(width: grey.width / 4, height: max(1, grey.height / 4)) : grey
        let statistics = BlockStatistics(of: reduced, block: max(8, block * reduced.width / max(1, grey.width)))
        var recipe = PixelRecipe()
        if statistics.unevenness > unevenPaper && statistics.paperSteps < steppedPaper {
            recipe.flattensBackground = true
            recipe.normalizesContrast = true
        }
        if statistics.medianLevel < 100 { recipe.inverts = true }
        return (recipe, Double(statistics.unevenness))
    }
}
