import CPNG

extension Raster {
    /// The raster as PNG bytes, through libpng's simplified write API.
    ///
    /// `fast` trades size for time: libpng's fast mode writes a page several times faster and
    /// the file somewhat larger, which suits the display copies a batch writes for every page.
    public func pngData(fast: Bool = false) throws -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        if fast { image.flags = UInt32(PNG_IMAGE_FLAG_FAST) }
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = layout == .rgb ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        let stride = Int32(bytesPerRow)
        // Written once into room for the worst case (libpng measures a size by compressing the
        // whole image, so measuring first would encode twice): stored deflate blocks of the raw
        // rows, each with its filter byte, plus chunk and header overhead.
        let raw = (bytesPerRow + 1) * height
        var capacity = raw + raw / 256 + 4096
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var size = capacity
            let written = pixels.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBytes {
                    png_image_write_to_memory(&image, $0.baseAddress, &size, 0, source.baseAddress, stride, nil)
                }
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

    private func encodingError(_ image: png_image) -> ImagingError {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ImagingError(path: "<display copy>", reason: .encodingFailed("libpng: \(message)"))
    }
}
