extension Raster {
    /// The picture enlarged to exactly `width` x `height` (each at least as large as now) by
    /// bilinear interpolation: small letters gain the pixels a recogniser needs to tell their
    /// strokes apart, without the blocks that repeating pixels would draw.
    public func enlarged(width targetWidth: Int, height targetHeight: Int) -> Raster {
        precondition(targetWidth >= width && targetHeight >= height && width > 0 && height > 0)
        if targetWidth == width && targetHeight == height { return self }
        let c = channels
        /// For each output position, the first of the two input positions it lies between and
        /// the weight of the second, in 1/256ths; pixel centres are aligned.
        func table(from source: Int, to target: Int) -> (index: [Int], weight: [Int32]) {
            let scale = Double(source) / Double(target)
            var index = [Int](repeating: 0, count: target), weight = [Int32](repeating: 0, count: target)
            for i in 0..<target {
                let position = Swift.min(Swift.max((Double(i) + 0.5) * scale - 0.5, 0), Double(source - 1))
                let first = Swift.min(Int(position), Swift.max(source - 2, 0))
                index[i] = first
                weight[i] = Int32(((position - Double(first)) * 256).rounded())
            }
            return (index, weight)
        }
        let columns = table(from: width, to: targetWidth), rows = table(from: height, to: targetHeight)
        let nextColumn = width > 1 ? c : 0, nextRow = height > 1 ? width * c : 0
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * c)
        // Each input row pair is first blended across into one row of the output's width, in
        // 1/256ths, then the two are blended down.
        var upper = [Int32](repeating: 0, count: targetWidth * c), lower = upper
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                upper.withUnsafeMutableBufferPointer { upper in
                    lower.withUnsafeMutableBufferPointer { lower in
                        func blendAcross(row y: Int, into line: UnsafeMutableBufferPointer<Int32>) {
                            let input = source.baseAddress! + y * width * c
                            for x in 0..<targetWidth {
                                let at = input + columns.index[x] * c
                                let w = columns.weight[x]
                                for k in 0..<c {
                                    line[x * c + k] = Int32(at[k]) * (256 - w) + Int32(at[k + nextColumn]) * w
                                }
                            }
                        }
                        var loaded = -1
                        for y in 0..<targetHeight {
                            let first = rows.index[y]
                            if first != loaded {
                                blendAcross(row: first, into: upper)
                                blendAcross(row: Swift.min(first + (nextRow > 0 ? 1 : 0), height - 1), into: lower)
                                loaded = first
                            }
                            let w = rows.weight[y]
                            let out = target.baseAddress! + y * targetWidth * c
                            for i in 0..<(targetWidth * c) {
                                out[i] = UInt8(truncatingIfNeeded: (upper[i] * (256 - w) + lower[i] * w + 32768) >> 16)
                            }
                        }
                    }
                }
            }
        }
        return Raster(width: targetWidth, height: targetHeight, layout: layout, pixels: output)
    }
}
