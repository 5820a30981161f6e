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

    private var handle: UnsafeMutablePointer<PIX> { pix! }
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

    /// The pixels as a Swift raster: RGB when the image has colour, grey otherwise.
    func raster() -> Raster? {
        if hasColor {
            // Transparent pixels are shown on white, as a browser shows them.
            let opaque = pixGetSpp(handle) == 4 ? LeptonicaImage(pixAlphaBlendUniform(handle, 0xFFFF_FF00)) : nil
            let rgb = withExtendedLifetime(opaque) { LeptonicaImage(pixConvertTo32(opaque?.handle ?? handle)) }
            return rgb?.unpack(layout: .rgb)
        }
        guard let grey = LeptonicaImage(pixConvertTo8(handle, 0)) else { return nil }
        return grey.unpack(layout: .gray)
    }

    /// Copies 8 or 32 bits-per-pixel data out of Leptonica's big-endian 32-bit words.
    private func unpack(layout: Raster.Layout) -> Raster {
        let width = self.width, height = self.height
        let wordsPerLine = Int(pixGetWpl(handle))
        let words = pixGetData(handle)!
        var pixels = [UInt8](repeating: 0, count: width * height * layout.rawValue)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = words + y * wordsPerLine
                switch layout {
                case .gray:
                    for x in 0..<width {
                        let word = row[x >> 2]
                        out[y * width + x] = UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32(x & 3)))
                    }
                case .rgb:
                    for x in 0..<width {
                        let word = row[x], at = (y * width + x) * 3
                        out[at] = UInt8(truncatingIfNeeded: word >> 24)
                        out[at + 1] = UInt8(truncatingIfNeeded: word >> 16)
                        out[at + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    }
                }
            }
        }
        return Raster(width: width, height: height, layout: layout, pixels: pixels)
    }
}
