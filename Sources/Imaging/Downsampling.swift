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
        let rowLength = targetWidth * c
        let toGrey = grey && c == 3

        // Each output row is the weighted sum of the input rows it covers, each first averaged
        // across into a float row. Input rows are averaged across as the output rows reach them,
        // into a ring that holds just the rows one output row spans (an output row shares at most
        // its first input row with the one before), so no image-sized float buffer is made.
        let ring = rows.maximumCount + 1
        var across = [Float](repeating: 0, count: rowLength * ring)
        var result = [UInt8](repeating: 0, count: (toGrey ? targetWidth : rowLength) * targetHeight)
        var accumulator = [Float](repeating: 0, count: rowLength)
        var averaged = -1
        pixels.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { rowsAcross in
                result.withUnsafeMutableBufferPointer { target in
                    accumulator.withUnsafeMutableBufferPointer { sum in
                        columns.withTables { start, count, offset, weight in
                            /// Input row `y` averaged across, into its slot of the ring.
                            func average(row y: Int) {
                                let input = source.baseAddress! + y * width * c
                                let output = rowsAcross.baseAddress! + (y % ring) * rowLength
                                if c == 1 {
                                    // Grey, most scans: the loop without the colour channels.
                                    for ox in 0..<targetWidth {
                                        var at = input + start[ox]
                                        var w = weight + offset[ox]
                                        var r: Float = 0
                                        for _ in 0..<count[ox] {
                                            r += Float(at.pointee) * w.pointee
                                            at += 1
                                            w += 1
                                        }
                                        output[ox] = r
                                    }
                                    return
                                }
                                for ox in 0..<targetWidth {
                                    var at = input + start[ox] * c
                                    var w = weight + offset[ox]
                                    // One pass over the taps for all channels of the pixel.
                                    var r: Float = 0, g: Float = 0, b: Float = 0
                                    for _ in 0..<count[ox] {
                                        let share = w.pointee
                                        r += Float(at[0]) * share
                                        if c == 3 {
                                            g += Float(at[1]) * share
                                            b += Float(at[2]) * share
                                        }
                                        at += c
                                        w += 1
                                    }
                                    output[ox * c] = r
                                    if c == 3 {
                                        output[ox * c + 1] = g
                                        output[ox * c + 2] = b
                                    }
                                }
                            }
                            rows.withTables { rowStart, rowCount, rowOffset, rowWeight in
                                for oy in 0..<targetHeight {
                                    let sums = sum.baseAddress!
                                    sums.update(repeating: 0, count: rowLength)
                                    var w = rowWeight + rowOffset[oy]
                                    for y in rowStart[oy]..<(rowStart[oy] + rowCount[oy]) {
                                        if y > averaged {
                                            average(row: y)
                                            averaged = y
                                        }
                                        let row = rowsAcross.baseAddress! + (y % ring) * rowLength, factor = w.pointee
                                        for i in 0..<rowLength { sums[i] += row[i] * factor }
                                        w += 1
                                    }
                                    let byte = { (i: Int) in UInt32(Swift.min(255, Swift.max(0, sums[i] + 0.5))) }
                                    if c == 1 {
                                        let output = target.baseAddress! + oy * rowLength
                                        for i in 0..<rowLength {
                                            output[i] = UInt8(truncatingIfNeeded: Int32(Swift.min(255, Swift.max(0, sums[i] + 0.5))))
                                        }
                                    } else if toGrey {
                                        let output = target.baseAddress! + oy * targetWidth
                                        for x in 0..<targetWidth {
                                            // The luma `grayscale()` gives, of the rounded colour.
                                            let luma = 299 * byte(3 * x) + 587 * byte(3 * x + 1) + 114 * byte(3 * x + 2)
                                            output[x] = UInt8((luma + 500) / 1000)
                                        }
                                    } else {
                                        let output = target.baseAddress! + oy * rowLength
                                        for i in 0..<rowLength { output[i] = UInt8(byte(i)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Raster(width: targetWidth, height: targetHeight, layout: toGrey ? .gray : layout, pixels: result)
    }
}

/// For each output index along one axis: the first input index it covers, how many it covers,
/// and their shares of it, stored flat.
private struct AreaWeights {
    private var starts: [Int] = []
    private var counts: [Int] = []
    private var offsets: [Int] = []
    private var weights: [Float] = []
    /// The most inputs one output covers.
    private(set) var maximumCount = 0

    init(from inputCount: Int, to outputCount: Int) {
        let ratio = Double(inputCount) / Double(outputCount)
        for o in 0..<outputCount {
            let begin = Double(o) * ratio, end = Swift.min(Double(inputCount), Double(o + 1) * ratio)
            let first = Int(begin)
            var taps = 0
            offsets.append(weights.count)
            var i = first
            while Double(i) < end && i < inputCount {
                let covered = Swift.min(end, Double(i + 1)) - Swift.max(begin, Double(i))
                weights.append(Float(Swift.max(0, covered) / ratio))
                taps += 1
                i += 1
            }
            starts.append(first)
            counts.append(taps)
            maximumCount = Swift.max(maximumCount, taps)
        }
    }

    /// The tables as raw pointers, for the inner loops: first input, tap count, offset of the
    /// first weight, and the weights.
    func withTables<R>(
        _ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) -> R
    ) -> R {
        starts.withUnsafeBufferPointer { s in
            counts.withUnsafeBufferPointer { n in
                offsets.withUnsafeBufferPointer { o in
                    weights.withUnsafeBufferPointer { w in body(s.baseAddress!, n.baseAddress!, o.baseAddress!, w.baseAddress!) }
                }
            }
        }
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
