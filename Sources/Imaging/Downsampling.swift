extension Raster {
    /// The picture scaled down by area averaging so that neither side exceeds `maximumDimension`;
    /// unchanged when it already fits.
    ///
    /// Every output pixel is the mean of the input area it covers (fractional at the edges), so
    /// thin strokes fade instead of vanishing as they do with point sampling.
    public func downsampled(toFit maximumDimension: Int) -> Raster {
        precondition(maximumDimension > 0)
        let longest = Swift.max(width, height)
        guard longest > maximumDimension else { return self }
        let scale = Double(maximumDimension) / Double(longest)
        let targetWidth = Swift.max(1, Int((Double(width) * scale).rounded()))
        let targetHeight = Swift.max(1, Int((Double(height) * scale).rounded()))
        return resampled(width: targetWidth, height: targetHeight)
    }

    /// The picture averaged down to exactly `width` x `height` (each no larger than now); in grey
    /// when `grey` is set, the same pixels as `resampled(...).grayscale()` without the colour
    /// copy in between (a page's grey copy for OCR is then the only one made).
    public func resampled(width targetWidth: Int, height targetHeight: Int, grey: Bool = false) -> Raster {
        precondition(targetWidth > 0 && targetHeight > 0 && targetWidth <= width && targetHeight <= height)
        if targetWidth == width && targetHeight == height { return grey ? grayscale() : self }
        let columns = AreaWeights(from: width, to: targetWidth)
        let rows = AreaWeights(from: height, to: targetHeight)
        let c = channels
        let toGrey = grey && c == 3
        let inputRow = width * c, outputRow = targetWidth * c

        // Rows first: each output row is the weighted sum of the input rows it covers, a loop over
        // contiguous bytes that the compiler vectorises. Then across, on output rows only, with
        // the same number of taps for every output pixel (missing taps weigh 0 and read the
        // zeroed tail of `down`), so the inner loop has no branch and no variable trip count.
        // Measured on a grey 1654x2339 page to 2000 px: 5.3 ms, against 10.2 ms across first.
        let taps = columns.taps
        var down = [Float](repeating: 0, count: inputRow + taps * c + 1)
        var result = [UInt8](repeating: 0, count: (toGrey ? targetWidth : outputRow) * targetHeight)
        var across = [Float](repeating: 0, count: outputRow + 1)
        pixels.withUnsafeBufferPointer { source in
            down.withUnsafeMutableBufferPointer { down in
                across.withUnsafeMutableBufferPointer { across in
                    result.withUnsafeMutableBufferPointer { target in
                        let down = down.baseAddress!, across = across.baseAddress!
                        for oy in 0..<targetHeight {
                            let first = rows.starts[oy]
                            for tap in 0..<rows.taps {
                                let share = rows.weights[oy * rows.taps + tap]
                                guard share > 0 else { continue }
                                let input = source.baseAddress! + Swift.min(first + tap, height - 1) * inputRow
                                if tap == 0 {
                                    for i in 0..<inputRow { down[i] = Float(input[i]) * share }
                                } else {
                                    for i in 0..<inputRow { down[i] += Float(input[i]) * share }
                                }
                            }
                            columns.weights.withUnsafeBufferPointer { weights in
                                columns.starts.withUnsafeBufferPointer { starts in
                                    let weights = weights.baseAddress!
                                    if c == 1 && taps == 2 {
                                        // A page to a display copy a little smaller: the common case.
                                        for ox in 0..<targetWidth {
                                            let at = down + starts[ox], w = weights + 2 * ox
                                            across[ox] = at[0] * w[0] + at[1] * w[1]
                                        }
                                    } else if c == 1 && taps == 3 {
                                        for ox in 0..<targetWidth {
                                            let at = down + starts[ox], w = weights + 3 * ox
                                            across[ox] = at[0] * w[0] + at[1] * w[1] + at[2] * w[2]
                                        }
                                    } else if c == 1 {
                                        for ox in 0..<targetWidth {
                                            let at = down + starts[ox], w = weights + ox * taps
                                            var sum: Float = 0
                                            for t in 0..<taps { sum += at[t] * w[t] }
                                            across[ox] = sum
                                        }
                                    } else {
                                        // A colour pixel's three channels as one vector of four (the
                                        // fourth is the next pixel's red, overwritten in its turn).
                                        let vector = { (p: UnsafeMutablePointer<Float>) in
                                            UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
                                        }
                                        for ox in 0..<targetWidth {
                                            let at = down + starts[ox] * 3, w = weights + ox * taps
                                            var sum = vector(at) * w[0]
                                            for t in 1..<taps { sum += vector(at + 3 * t) * w[t] }
                                            UnsafeMutableRawPointer(across + 3 * ox).storeBytes(of: sum, as: SIMD4<Float>.self)
                                        }
                                    }
                                }
                            }
                            // Rounded to the nearest byte by adding 2^23, where a float's unit in the
                            // last place is 1, and keeping the low bits: no conversion checks, so the
                            // loop vectorises (ties go to even).
                            let byte = { (i: Int) in (Swift.min(255, Swift.max(0, across[i])) + 8_388_608).bitPattern & 0xFF }
                            if toGrey {
                                let output = target.baseAddress! + oy * targetWidth
                                for x in 0..<targetWidth {
                                    // The luma `grayscale()` gives, of the rounded colour.
                                    let luma = 299 * byte(3 * x) + 587 * byte(3 * x + 1) + 114 * byte(3 * x + 2)
                                    output[x] = UInt8((luma + 500) / 1000)
                                }
                            } else {
                                let output = target.baseAddress! + oy * outputRow
                                for i in 0..<outputRow { output[i] = UInt8(truncatingIfNeeded: byte(i)) }
                            }
                        }
                    }
                }
            }
        }
        return Raster(width: targetWidth, height: targetHeight, layout: toGrey ? .gray : layout, pixels: result)
    }
}

/// For each output index along one axis: the first input index it covers and the shares of the
/// `taps` inputs from there, padded with zero shares so every output has the same count.
private struct AreaWeights {
    let starts: [Int]
    /// `taps` shares per output, flat.
    let weights: [Float]
    /// The most inputs one output covers.
    let taps: Int

    init(from inputCount: Int, to outputCount: Int) {
        let ratio = Double(inputCount) / Double(outputCount)
        /// The inputs output `o` covers, and how much of each.
        func span(_ o: Int) -> (first: Int, end: Int, begin: Double, stop: Double) {
            let begin = Double(o) * ratio, stop = Swift.min(Double(inputCount), Double(o + 1) * ratio)
            return (Int(begin), Swift.min(inputCount, Int(stop.rounded(.up))), begin, stop)
        }
        taps = (0..<outputCount).reduce(1) { most, o in let s = span(o); return Swift.max(most, s.end - s.first) }
        var starts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * taps)
        for o in 0..<outputCount {
            let s = span(o)
            starts[o] = s.first
            for i in s.first..<s.end {
                let covered = Swift.min(s.stop, Double(i + 1)) - Swift.max(s.begin, Double(i))
                weights[o * taps + i - s.first] = Float(Swift.max(0, covered) / ratio)
            }
        }
        self.starts = starts
        self.weights = weights
    }
}

/// Reduces an image while it is read: rows go in one at a time, and every `factor` x `factor`
/// block becomes the mean of its pixels (partial blocks at the edges, of what they hold). Holds
/// one band of sums and the reduced image, never the image itself; a factor of 1 keeps the rows.
struct BlockAverager {
    private let width: Int, height: Int, channels: Int, factor: Int
    private let outWidth: Int, outHeight: Int
    private var pixels: [UInt8]
    private var sums: [UInt32]
    private var rowsAdded = 0

    init(width: Int, height: Int, channels: Int, factor: Int) {
        precondition(factor >= 1)
        self.width = width
        self.height = height
        self.channels = channels
        self.factor = factor
        outWidth = (width + factor - 1) / factor
        outHeight = (height + factor - 1) / factor
        pixels = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
        sums = factor == 1 ? [] : [UInt32](repeating: 0, count: outWidth * channels)
    }

    /// Adds the next row, `width` pixels of `channels` bytes.
    mutating func add(_ row: UnsafeBufferPointer<UInt8>) {
        precondition(row.count == width * channels && rowsAdded < height)
        let y = rowsAdded
        rowsAdded += 1
        let (c, factor, outWidth) = (channels, self.factor, self.outWidth)
        guard factor > 1 else {
            pixels.withUnsafeMutableBufferPointer { target in
                _ = UnsafeMutableBufferPointer(rebasing: target[(y * width * c)...]).update(fromContentsOf: row)
            }
            return
        }
        sums.withUnsafeMutableBufferPointer { sums in
            for x in 0..<width {
                for channel in 0..<c { sums[(x / factor) * c + channel] += UInt32(row[x * c + channel]) }
            }
            guard (y + 1) % factor == 0 || y == height - 1 else { return }
            let bandRows = y % factor + 1, outY = y / factor
            pixels.withUnsafeMutableBufferPointer { target in
                for outX in 0..<outWidth {
                    let count = UInt32(bandRows * (min(width, (outX + 1) * factor) - outX * factor))
                    for channel in 0..<c {
                        let at = outX * c + channel
                        target[(outY * outWidth) * c + at] = UInt8((sums[at] + count / 2) / count)
                        sums[at] = 0
                    }
                }
            }
        }
    }

    /// The reduced image; nil until every row has been added.
    var raster: Raster? {
        guard rowsAdded == height else { return nil }
        return Raster(width: outWidth, height: outHeight, layout: channels == 1 ? .gray : .rgb, pixels: pixels)
    }
}
