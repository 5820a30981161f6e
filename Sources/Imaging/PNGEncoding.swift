import CPNG

extension Raster {
    /// The raster as PNG bytes, through libpng's simplified write API.
    ///
    /// `fast` trades size for time: libpng's fast mode writes a page several times faster and
    /// the file somewhat larger.
    public func pngData(fast: Bool = false) throws -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        if fast { image.flags = UInt32(PNG_IMAGE_FLAG_FAST) }
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = layout == .rgb ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        return try pixels.withUnsafeBytes { try Self.write(&image, rows: $0, stride: bytesPerRow, rowBytes: bytesPerRow) }
    }

    /// The picture in grey, reduced to `levels` evenly spaced shades (2, 4 or 16), as a palette
    /// PNG of 1, 2 or 4 bits a pixel: libpng packs the pixels to the palette's size.
    ///
    /// Meant for documents: sixteen shades keep anti-aliased type smooth, and drop the paper's
    /// grain, which otherwise is most of a scan's PNG. Measured on real grey scans at 2000 px,
    /// the file is half of an 8-bit PNG.
    public func posterizedPNGData(levels: Int = 16, fast: Bool = false) throws -> [UInt8] {
        precondition([2, 4, 16].contains(levels), "a palette PNG packs 2, 4 or 16 shades")
        let grey = grayscale()
        let top = levels - 1
        // Each grey value's shade, rounded to the nearest.
        let shade = (0...255).map { UInt8(($0 * top + 127) / 255) }
        var indices = [UInt8](repeating: 0, count: grey.pixels.count)
        grey.pixels.withUnsafeBufferPointer { source in
            indices.withUnsafeMutableBufferPointer { target in
                shade.withUnsafeBufferPointer { shade in
                    for i in 0..<target.count { target[i] = shade[Int(source[i])] }
                }
            }
        }
        let palette = (0..<levels).map { UInt8(($0 * 255 + top / 2) / top) }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        if fast { image.flags = UInt32(PNG_IMAGE_FLAG_FAST) }
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_GRAY) | UInt32(PNG_FORMAT_FLAG_COLORMAP)
        image.colormap_entries = UInt32(levels)
        let bitsPerPixel = levels == 16 ? 4 : levels == 4 ? 2 : 1
        return try indices.withUnsafeBytes { rows in
            try palette.withUnsafeBytes { colormap in
                try Self.write(&image, rows: rows, stride: width, rowBytes: (width * bitsPerPixel + 7) / 8,
                               colormap: colormap.baseAddress)
            }
        }
    }

    /// Runs libpng's writer once, into room for the worst case (libpng measures a size by
    /// compressing the whole image, so measuring first would encode twice): stored deflate
    /// blocks of the packed rows, each with its filter byte, plus chunk and header overhead.
    private static func write(
        _ image: inout png_image, rows: UnsafeRawBufferPointer, stride: Int, rowBytes: Int,
        colormap: UnsafeRawPointer? = nil
    ) throws -> [UInt8] {
        let raw = (rowBytes + 1) * Int(image.height)
        var capacity = raw + raw / 256 + 4096
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var size = capacity
            let written = output.withUnsafeMutableBytes {
                png_image_write_to_memory(&image, $0.baseAddress, &size, 0, rows.baseAddress, Int32(stride), colormap)
            }
            if written != 0 {
                output.removeLast(capacity - size)
                return output
            }
            // Too small after all: libpng says how much it needs.
            guard size > capacity else { throw encodingError(image) }
            capacity = size
        }
    }

    private static func encodingError(_ image: png_image) -> ImagingError {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ImagingError(path: "<display copy>", reason: .encodingFailed("libpng: \(message)"))
    }
}
