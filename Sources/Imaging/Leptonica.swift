import CLeptonica

/// Owns one Leptonica `PIX` and frees it when the owner goes away.
///
/// Internal to Imaging: pixels leave this module as `Raster` values, never as C handles.
final class LeptonicaImage {
    private var pix: UnsafeMutablePointer<PIX>?

    /// Takes ownership of `pix`; nil when Leptonica returned NULL.
    init?(_ pix: UnsafeMutablePointer<PIX>?) {
        guard let pix else { return nil }
        self.pix = pix
    }

    deinit { pixDestroy(&pix) }

    /// Leptonica prints every failure to stderr. Gloss reports failures itself, so the library is
    /// silenced once per process before its first use.
    static let silenced: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

    /// The image, for Imaging's other wrappers; valid while this owner lives.
    var handle: UnsafeMutablePointer<PIX> { pix! }
    var width: Int { Int(pixGetWidth(handle)) }
    var height: Int { Int(pixGetHeight(handle)) }
    var depth: Int { Int(pixGetDepth(handle)) }
    /// Pixels per inch as the file states it, or nil when it states none.
    var resolution: Int? {
        let ppi = Int(pixGetXRes(handle))
        return ppi > 0 ? ppi : nil
    }

    private var hasColor: Bool {
        if depth == 32 { return true }
        guard let colormap = pixGetColormap(handle) else { return false }
        var color: Int32 = 0
        return pixcmapHasColor(colormap, &color) == 0 && color != 0
    }

    /// The pixels as a Swift raster, RGB when the image has colour and grey otherwise, averaged
    /// in `factor` x `factor` blocks as its rows are read. Read straight from Leptonica's words
    /// at every depth it decodes to (1, 2, 4 and 8 bits, with or without a colormap; 16; 32),
    /// one row at a time, so no converted copy of the whole image is made (a 1-bit page of
    /// 144 megapixels is 18 MB; converted to 8 bits first, it was 144 MB more).
    func raster(reducedBy factor: Int = 1) -> Raster? {
        let width = self.width, height = self.height, depth = self.depth
        guard [1, 2, 4, 8, 16, 32].contains(depth) else { return nil }
        let colour = hasColor
        let channels = colour ? 3 : 1
        let palette = depth <= 8 ? self.palette(channels: channels) : []
        let alpha = depth == 32 && pixGetSpp(handle) == 4
        let wordsPerLine = Int(pixGetWpl(handle))
        let words = pixGetData(handle)!
        var averager = BlockAverager(width: width, height: height, channels: channels, factor: factor)
        var row = [UInt8](repeating: 0, count: width * channels)
        row.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let line = words + y * wordsPerLine
                switch depth {
                case 32:
                    for x in 0..<width {
                        let word = line[x]
                        let opacity = alpha ? UInt32(word & 0xFF) : 255
                        for channel in 0..<3 {
                            // Transparent pixels are shown on white, as a browser shows them.
                            let value = (word >> (24 - 8 * UInt32(channel))) & 0xFF
                            out[x * 3 + channel] = UInt8((value * opacity + 255 * (255 - opacity) + 127) / 255)
                        }
                    }
                case 16:
                    for x in 0..<width { out[x] = UInt8(truncatingIfNeeded: line[x >> 1] >> (24 - 16 * UInt32(x & 1))) }
                default:
                    let mask = UInt32(1) << depth - 1
                    for x in 0..<width {
                        let bit = x * depth
                        let index = Int((line[bit >> 5] >> UInt32(32 - depth - (bit & 31))) & mask)
                        for channel in 0..<channels { out[x * channels + channel] = palette[index * channels + channel] }
                    }
                }
                averager.add(UnsafeBufferPointer(out))
            }
        }
        return averager.raster
    }

    /// The grey or RGB value of every index of an image of 8 bits or fewer: its colormap's, or
    /// the index scaled to 0...255 (1-bit images have 1 for black, as Leptonica has them).
    private func palette(channels: Int) -> [UInt8] {
        let count = 1 << depth
        if let colormap = pixGetColormap(handle) {
            var table = [UInt8](repeating: 0, count: count * channels)
            for index in 0..<min(count, Int(pixcmapGetCount(colormap))) {
                var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0
                guard pixcmapGetColor(colormap, Int32(index), &r, &g, &b) == 0 else { continue }
                let rgb = [r, g, b].map { UInt8(clamping: $0) }
                for channel in 0..<channels { table[index * channels + channel] = channels == 3 ? rgb[channel] : rgb[0] }
            }
            return table
        }
        return (0..<count).map { index in
            depth == 1 ? (index == 0 ? 255 : 0) : UInt8(index * 255 / (count - 1))
        }
    }
}

extension Raster {
    /// Lends the pixels, as a Leptonica image, to a C library that takes one (Tesseract's
    /// `SetImage2`), for the duration of `body`; nil when the image cannot be made.
    ///
    /// Tesseract's own copy from rows of bytes sets one byte at a time (20 ms for an A4 page at
    /// 300 ppi); packed here four grey pixels or one colour pixel to a word, it is a fraction of
    /// that, and Tesseract then copies the image whole. Package-internal: C handles never reach
    /// Gloss's public API.
    package func withLeptonicaImage<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R? {
        _ = LeptonicaImage.silenced
        guard width > 0, height > 0,
              let image = LeptonicaImage(pixCreateNoInit(Int32(width), Int32(height), layout == .gray ? 8 : 32))
        else { return nil }
        let wordsPerLine = Int(pixGetWpl(image.handle))
        let words = pixGetData(image.handle)!
        pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let line = words + y * wordsPerLine
                if layout == .gray {
                    // Leptonica keeps the leftmost of four grey pixels in a word's high byte: four
                    // bytes read as a big-endian word, and the padding of the last word zeroed.
                    let row = UnsafeRawPointer(pixels.baseAddress! + y * width)
                    let fullWords = width / 4
                    for index in 0..<fullWords {
                        line[index] = UInt32(bigEndian: row.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
                    }
                    if width % 4 != 0 {
                        var word: UInt32 = 0
                        for x in 4 * fullWords..<width {
                            word |= UInt32(row.load(fromByteOffset: x, as: UInt8.self)) << (24 - 8 * UInt32(x % 4))
                        }
                        line[fullWords] = word
                    }
                } else {
                    // Red, green and blue from the high byte down, the low byte (alpha) 0: a pixel's
                    // three bytes and the next one's first, read as a big-endian word and masked.
                    let row = UnsafeRawPointer(pixels.baseAddress! + y * width * 3)
                    for x in 0..<width - 1 {
                        line[x] = UInt32(bigEndian: row.loadUnaligned(fromByteOffset: 3 * x, as: UInt32.self)) & 0xFFFF_FF00
                    }
                    let last = 3 * (width - 1)
                    line[width - 1] = UInt32(row.load(fromByteOffset: last, as: UInt8.self)) << 24
                        | UInt32(row.load(fromByteOffset: last + 1, as: UInt8.self)) << 16
                        | UInt32(row.load(fromByteOffset: last + 2, as: UInt8.self)) << 8
                }
            }
        }
        return try withExtendedLifetime(image) { try body(OpaquePointer(image.handle)) }
    }
}
