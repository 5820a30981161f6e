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

    /// The picture averaged down to exactly `width` x `height` (each no larger than now).
    public func resampled(width targetWidth: Int, height targetHeight: Int) -> Raster {
        precondition(targetWidth > 0 && targetHeight > 0 && targetWidth <= width && targetHeight <= height)
        if targetWidth == width && targetHeight == height { return self }
        let columns = AreaWeights(from: width, to: targetWidth)
        let rows = AreaWeights(from: height, to: targetHeight)
        let c = channels

        // Horizontal pass into floats, then vertical pass into bytes.
        var wide = [Float](repeating: 0, count: targetWidth * height * c)
        pixels.withUnsafeBufferPointer { source in
            wide.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let sourceRow = y * width * c, targetRow = y * targetWidth * c
                    for ox in 0..<targetWidth {
                        for tap in columns.taps(of: ox) {
                            let from = sourceRow + tap.index * c, to = targetRow + ox * c
                            for k in 0..<c { target[to + k] += Float(source[from + k]) * tap.weight }
                        }
                    }
                }
            }
        }
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * c)
        let rowLength = targetWidth * c
        wide.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                var accumulator = [Float](repeating: 0, count: rowLength)
                for oy in 0..<targetHeight {
                    for i in 0..<rowLength { accumulator[i] = 0 }
                    for tap in rows.taps(of: oy) {
                        let from = tap.index * rowLength
                        for i in 0..<rowLength { accumulator[i] += source[from + i] * tap.weight }
                    }
                    let to = oy * rowLength
                    for i in 0..<rowLength {
                        target[to + i] = UInt8(Swift.min(255, Swift.max(0, accumulator[i].rounded())))
                    }
                }
            }
        }
        return Raster(width: targetWidth, height: targetHeight, layout: layout, pixels: output)
    }
}

/// For each output index along one axis, the input indices it covers and their share of it.
private struct AreaWeights {
    struct Tap {
        var index: Int
        var weight: Float
    }

    private var taps: [Tap] = []
    private var starts: [Int] = [0]

    init(from inputCount: Int, to outputCount: Int) {
        let ratio = Double(inputCount) / Double(outputCount)
        for o in 0..<outputCount {
            let begin = Double(o) * ratio, end = Swift.min(Double(inputCount), Double(o + 1) * ratio)
            var i = Int(begin)
            while Double(i) < end && i < inputCount {
                let covered = Swift.min(end, Double(i + 1)) - Swift.max(begin, Double(i))
                if covered > 1e-9 { taps.append(Tap(index: i, weight: Float(covered / ratio))) }
                i += 1
            }
            starts.append(taps.count)
        }
    }

    func taps(of output: Int) -> ArraySlice<Tap> {
        taps[starts[output]..<starts[output + 1]]
    }
}
