import CPNG

/// PNG goes through libpng's simplified API rather than Leptonica: it composites transparency
/// onto white, reduces 16-bit and palette images to 8-bit grey or RGB, and keeps its warnings
/// ("iCCP: invalid rendering intent" and the like) in the image record instead of printing them.
enum PNGDecoder {
    static func decode(_ bytes: [UInt8], path: String) throws -> Raster {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw failure(image, path) }
        let color = image.format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0
        image.format = color ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        let layout: Raster.Layout = color ? .rgb : .gray
        let width = Int(image.width), height = Int(image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * layout.rawValue)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&image, &white, $0.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw failure(image, path) }
        return Raster(width: width, height: height, layout: layout, pixels: pixels)
    }

    /// Decodes a PNG too large to hold whole, reading it row by row and averaging each
    /// `factor` x `factor` block into one pixel as the rows go by: the full image never exists
    /// in memory, only one band of sums.
    static func decode(_ bytes: [UInt8], path: String, reducedBy factor: Int) throws -> Raster {
        var reader = gloss_png_rows()
        defer { gloss_png_rows_end(&reader) }
        func failure() -> ImagingError {
            let message = withUnsafeBytes(of: reader.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return ImagingError(path: path, reason: .corrupt("libpng: \(message)"))
        }
        return try bytes.withUnsafeBufferPointer { data in
            reader.data = data.baseAddress
            reader.size = data.count
            var width: UInt32 = 0, height: UInt32 = 0, channels: Int32 = 0
            guard gloss_png_rows_begin(&reader, &width, &height, &channels) != 0, channels == 1 || channels == 3 else {
                throw failure()
            }
            let w = Int(width), h = Int(height), c = Int(channels)
            let outWidth = (w + factor - 1) / factor, outHeight = (h + factor - 1) / factor
            var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * c)
            var row = [UInt8](repeating: 0, count: w * c)
            var sums = [UInt32](repeating: 0, count: outWidth * c)
            for y in 0..<h {
                guard gloss_png_rows_next(&reader, &row) != 0 else { throw failure() }
                for x in 0..<w {
                    for channel in 0..<c { sums[(x / factor) * c + channel] += UInt32(row[x * c + channel]) }
                }
                guard (y + 1) % factor == 0 || y == h - 1 else { continue }
                let bandRows = y % factor + 1, outY = y / factor
                for outX in 0..<outWidth {
                    let count = UInt32(bandRows * (min(w, (outX + 1) * factor) - outX * factor))
                    for channel in 0..<c {
                        let at = outX * c + channel
                        pixels[(outY * outWidth) * c + at] = UInt8((sums[at] + count / 2) / count)
                        sums[at] = 0
                    }
                }
            }
            return Raster(width: outWidth, height: outHeight, layout: c == 1 ? .gray : .rgb, pixels: pixels)
        }
    }

    private static func failure(_ image: png_image, _ path: String) -> ImagingError {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ImagingError(path: path, reason: .corrupt("libpng: \(message)"))
    }

    /// Pixels per inch from the `pHYs` chunk, when it states metres as its unit.
    static func resolution(_ bytes: [UInt8]) -> Int? {
        var offset = 8  // after the signature
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard length >= 0, body + length <= bytes.count else { return nil }
            if type == "pHYs", length == 9, bytes[body + 8] == 1 {
                let perMetre = bytes[body..<body + 4].reduce(0) { $0 << 8 | Int($1) }
                return perMetre > 0 ? Int((Double(perMetre) * 0.0254).rounded()) : nil
            }
            if type == "IDAT" || type == "IEND" { return nil }
            offset = body + length + 4  // data and CRC
        }
        return nil
    }
}
