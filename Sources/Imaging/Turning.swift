import GlossGeometry

extension Raster {
    /// The page as `transform` prepares it: turned by its quarter turns and levelled by its
    /// skew, in one pass over the output. Quarter turns alone move whole pixels; a skew
    /// samples bilinearly, and the corners the turn uncovers are `background` (one value per
    /// channel; white when nil), which should be the page's paper so no edge is drawn there.
    public func transformed(by transform: PageTransform, background: [UInt8]? = nil) -> Raster {
        precondition(transform.inputSize == size, "the transform is for a page of \(transform.inputSize), not \(size)")
        guard transform.skew != 0 else {
            switch transform.quarterTurns {
            case 1: return oriented(.right)
            case 2: return oriented(.down)
            case 3: return oriented(.left)
            default: return self
            }
        }
        let output = transform.preparedSize
        let c = channels
        // The map from the prepared page to the input is affine: the source of each output
        // pixel's centre moves by a fixed step along a row and down a column.
        let origin = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 0.5))
        let right = transform.inputPixel(ofPrepared: PixelPoint(x: 1.5, y: 0.5))
        let down = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 1.5))
        let stepX = (x: right.x - origin.x, y: right.y - origin.y)
        let stepY = (x: down.x - origin.x, y: down.y - origin.y)
        let paper = (background?.count == c ? background! : [UInt8](repeating: 255, count: c)).map(Double.init)
        var result = [UInt8](repeating: 0, count: output.width * output.height * c)
        let w = width, h = height
        pixels.withUnsafeBufferPointer { source in
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
                            let wx = Self.cubicWeights(ax), wy = Self.cubicWeights(ay)
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
        return Raster(width: output.width, height: output.height, layout: layout, pixels: result)
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

extension Raster {
    /// The median of each channel, read from every `step`-th pixel across and down: on a
    /// document, its paper (most of a page is paper, even a grey page framed in white).
    public func medianValues(step: Int = 4) -> [UInt8] {
        let c = channels
        var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: c)
        var count = 0
        pixels.withUnsafeBufferPointer { source in
            for y in stride(from: 0, to: height, by: max(1, step)) {
                for x in stride(from: 0, to: width, by: max(1, step)) {
                    for k in 0..<c { histograms[k][Int(source[(y * width + x) * c + k])] += 1 }
                    count += 1
                }
            }
        }
        return histograms.map { histogram in
            var seen = 0
            for (value, number) in histogram.enumerated() {
                seen += number
                if 2 * seen >= count { return UInt8(value) }
            }
            return 255
        }
    }
}
