import CImagingKernels
import GlossGeometry

extension Raster {
    /// The page as `transform` prepares it: turned by its quarter turns and levelled by its
    /// skew, in one pass over the output. Quarter turns alone move whole pixels; a skew
    /// samples with a cubic, and the corners the turn uncovers are `background` (one value per
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
        let sampling = Self.sampling(transform)
        let paper = background?.count == c ? background! : [UInt8](repeating: 255, count: c)
        var result = [UInt8](repeating: 0, count: output.width * output.height * c)
        // Inside the page each pixel weighs sixteen neighbours by a cubic that keeps strokes
        // sharp where a bilinear mix blurs them; one pixel from the edge, four; on the edge,
        // neighbours off the page read as paper, so the edge fades into the margin instead of
        // stopping in a hard step (`CImagingKernels`' `gloss_level`).
        pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                gloss_level(source.baseAddress!, Int32(width), Int32(height), Int32(c), target.baseAddress!,
                            Int32(output.width), Int32(output.height), sampling, paper)
            }
        }
        return Raster(width: output.width, height: output.height, layout: layout, pixels: result)
    }

    /// Where `transform`'s prepared page reads its input: the source of the first output pixel's
    /// centre, and its step along a row and down a column.
    static func sampling(_ transform: PageTransform) -> GlossAffineSampling {
        let origin = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 0.5))
        let right = transform.inputPixel(ofPrepared: PixelPoint(x: 1.5, y: 0.5))
        let down = transform.inputPixel(ofPrepared: PixelPoint(x: 0.5, y: 1.5))
        return GlossAffineSampling(originX: origin.x, originY: origin.y, stepXx: right.x - origin.x,
                                   stepXy: right.y - origin.y, stepYx: down.x - origin.x, stepYy: down.y - origin.y)
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
