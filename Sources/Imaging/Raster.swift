import GlossGeometry

/// Decoded pixels owned by Swift: 8-bit grey or 8-bit RGB, rows packed without padding.
///
/// A value type, so a page can be handed from stage to stage and task to task without sharing a
/// C handle. Leptonica is used to decode, then left behind.
public struct Raster: Sendable, Equatable {
    public enum Layout: Int, Sendable {
        case gray = 1
        case rgb = 3
    }

    public let width: Int
    public let height: Int
    public let layout: Layout
    /// `height` rows of `width * layout.rawValue` bytes.
    public private(set) var pixels: [UInt8]

    public init(width: Int, height: Int, layout: Layout, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * layout.rawValue,
                     "pixel buffer does not match \(width)x\(height) \(layout)")
        self.width = width
        self.height = height
        self.layout = layout
        self.pixels = pixels
    }

    /// A raster of one colour.
    public init(width: Int, height: Int, layout: Layout, filledWith value: UInt8) {
        self.init(width: width, height: height, layout: layout,
                  pixels: [UInt8](repeating: value, count: width * height * layout.rawValue))
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var channels: Int { layout.rawValue }
    public var bytesPerRow: Int { width * layout.rawValue }

    /// The grey value at (`x`, `y`); for RGB the first channel.
    public subscript(x: Int, y: Int) -> UInt8 {
        pixels[(y * width + x) * channels]
    }

    /// The same picture in 8-bit grey (ITU-R BT.601 luma, as Leptonica and Tesseract weigh it).
    public func grayscale() -> Raster {
        guard layout == .rgb else { return self }
        var grey = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { source in
            grey.withUnsafeMutableBufferPointer { target in
                for i in 0..<target.count {
                    let r = UInt32(source[3 * i]), g = UInt32(source[3 * i + 1]), b = UInt32(source[3 * i + 2])
                    target[i] = UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
                }
            }
        }
        return Raster(width: width, height: height, layout: .gray, pixels: grey)
    }

    /// The same picture in grey when it is colour in layout only, every pixel's three channels
    /// equal (a grey scan saved as RGB, as many are); nil for a colour picture or a grey one.
    /// Grey, the page costs a third of the memory and of every pass over it, Tesseract's
    /// thresholding among them (0.2 to 0.3 s of an A4 page read as colour), and reads the same:
    /// `grayscale()` of equal channels is that channel.
    public func greyIfNeutral() -> Raster? {
        guard layout == .rgb else { return nil }
        // Looked at first, without a copy: a colour page (most stop at their first coloured
        // row) costs no memory, and a grey one is copied once it is known to be grey.
        let neutral = pixels.withUnsafeBufferPointer { source -> Bool in
            for y in 0..<height {
                // Differences are gathered across a row and looked at once it ends.
                var differences: UInt8 = 0
                for x in (y * width)..<((y + 1) * width) {
                    let r = source[3 * x]
                    differences |= (r ^ source[3 * x + 1]) | (r ^ source[3 * x + 2])
                }
                if differences != 0 { return false }
            }
            return true
        }
        guard neutral else { return nil }
        let grey = pixels.withUnsafeBufferPointer { source -> [UInt8] in
            [UInt8](unsafeUninitializedCapacity: width * height) { target, count in
                for i in 0..<(width * height) { target[i] = source[3 * i] }
                count = width * height
            }
        }
        return Raster(width: width, height: height, layout: .gray, pixels: grey)
    }

    /// The picture as it should be shown, for pixels stored with `orientation`.
    public func oriented(_ orientation: Orientation) -> Raster {
        guard orientation != .up else { return self }
        let upright = orientation.uprightSize(of: size)
        let stored = size
        let c = channels
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<upright.height {
                    for x in 0..<upright.width {
                        let s = orientation.storedPixel(atUpright: x, y, storedSize: stored)
                        let from = (s.y * stored.width + s.x) * c
                        let to = (y * upright.width + x) * c
                        for k in 0..<c { target[to + k] = source[from + k] }
                    }
                }
            }
        }
        return Raster(width: upright.width, height: upright.height, layout: layout, pixels: output)
    }
}
