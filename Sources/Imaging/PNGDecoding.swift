import CPNG

/// PNG goes through libpng rather than Leptonica, read row by row (`CPNG`'s shim catches
/// libpng's errors): palette, 16-bit and grey+alpha images become 8-bit grey or RGB, their
/// 16-bit samples keep their high bytes (the simplified API would take them for linear light
/// and brighten every mid-grey), transparency is shown on white, and libpng's warnings ("iCCP:
/// known incorrect sRGB profile" and the like) are never printed.
enum PNGDecoder {
    /// Whether the header says Adam7 interlacing (IHDR's last byte, at offset 28).
    static func isInterlaced(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count > 28 && bytes[28] != 0
    }

    /// The whole image.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> Raster {
        try withRows(of: bytes, path: path, whole: true) { reader, width, height, channels in
            var pixels = [UInt8](repeating: 0, count: width * height * channels)
            let read = pixels.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var rows: [UnsafeMutablePointer<UInt8>?] = (0..<height).map { buffer.baseAddress! + $0 * width * channels }
                return gloss_png_rows_image(reader, &rows)
            }
            guard read != 0 else { return nil }
            return Raster(width: width, height: height, layout: channels == 1 ? .gray : .rgb, pixels: pixels)
        }
    }

    /// Decodes a PNG too large to hold whole, reading it row by row and averaging each
    /// `factor` x `factor` block into one pixel as the rows go by: the full image never exists
    /// in memory, only one band of sums.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, reducedBy factor: Int) throws -> Raster {
        try withRows(of: bytes, path: path, whole: false) { reader, width, height, channels in
            var averager = BlockAverager(width: width, height: height, channels: channels, factor: factor)
            var row = [UInt8](repeating: 0, count: width * channels)
            for _ in 0..<height {
                guard gloss_png_rows_next(reader, &row) != 0 else { return nil }
                row.withUnsafeBufferPointer { averager.add($0) }
            }
            return averager.raster
        }
    }

    /// Opens a libpng reader over `bytes` and hands it to `body` with the size and channels of
    /// its rows; `body` returns nil when a libpng call failed, and libpng's reason is thrown.
    private static func withRows(
        of bytes: UnsafeRawBufferPointer, path: String, whole: Bool,
        _ body: (UnsafeMutablePointer<gloss_png_rows>, _ width: Int, _ height: Int, _ channels: Int) -> Raster?
    ) throws -> Raster {
        // On the heap, not a local: libpng keeps its address (its error and read callbacks'
        // pointer) from `begin` to `end`, longer than one call's `&` lends a local's.
        let reader = UnsafeMutablePointer<gloss_png_rows>.allocate(capacity: 1)
        reader.initialize(to: gloss_png_rows())
        defer {
            gloss_png_rows_end(reader)
            reader.deinitialize(count: 1)
            reader.deallocate()
        }
        reader.pointee.data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        reader.pointee.size = bytes.count
        var width: UInt32 = 0, height: UInt32 = 0, channels: Int32 = 0
        let begun = gloss_png_rows_begin(reader, whole ? 1 : 0, &width, &height, &channels) != 0 && (channels == 1 || channels == 3)
        let raster = begun ? body(reader, Int(width), Int(height), Int(channels)) : nil
        guard let raster else {
            let message = withUnsafeBytes(of: reader.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw ImagingError(path: path, reason: .corrupt("libpng: \(message.isEmpty ? "unsupported pixel layout" : message)"))
        }
        return raster
    }

    /// Pixels per inch from the `pHYs` chunk, when it states metres as its unit.
    static func resolution(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var found: Int?
        forEachChunkBeforePixels(bytes) { type, body in
            guard type == "pHYs", body.count == 9, body[body.startIndex + 8] == 1 else { return true }
            let perMetre = body.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            found = perMetre > 0 ? Int((Double(perMetre) * 0.0254).rounded()) : nil
            return false
        }
        return found
    }

    /// Whether every pixel is opaque: a grey, colour or palette image (IHDR's colour type 0, 2
    /// or 3) with no `tRNS` chunk before its pixels.
    static func isOpaque(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 33, [0, 2, 3].contains(bytes[25]) else { return false }
        var transparent = false
        forEachChunkBeforePixels(bytes) { type, _ in
            transparent = type == "tRNS"
            return !transparent
        }
        return !transparent
    }

    /// Calls `body` with the type and data of each chunk before the first `IDAT` (or `IEND`),
    /// until it returns false or a chunk runs past the end.
    private static func forEachChunkBeforePixels(_ bytes: UnsafeRawBufferPointer,
                                                 _ body: (String, Slice<UnsafeRawBufferPointer>) -> Bool) {
        var offset = 8  // after the signature
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard start + length <= bytes.count, type != "IDAT", type != "IEND" else { return }
            guard body(type, bytes[start..<start + length]) else { return }
            offset = start + length + 4  // data and CRC
        }
    }
}
