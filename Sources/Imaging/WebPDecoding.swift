import CWebP
import GlossGeometry

/// WebP goes through libwebp rather than Leptonica, so that a large image is reduced inside the
/// decoder (its rescaler works on rows as they are decoded) and never exists at full size in
/// Gloss; Leptonica decoded the whole picture to 32 bits a pixel and converted it again.
///
/// libwebp's lossless decoder holds the whole image, 4 bytes a pixel, whatever size it is asked
/// to output (`AllocateInternalBuffers32b` in `vp8l_dec.c`), and so may the decoder of a
/// transparent image's alpha plane: 576 MB for 12000x12000. Such a file has no limit of its own:
/// like every page it is refused above `--max-pixels`, and its stored pixels, which is what
/// libwebp holds, are what it takes of the batch's pixel budget while it is read.
enum WebPDecoder {
    /// What the bitstream's header says.
    struct Features {
        var size: PixelSize
        var hasAlpha: Bool
    }

    static func features(_ bytes: UnsafeRawBufferPointer) -> Features? {
        var features = WebPBitstreamFeatures()
        guard WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features) == VP8_STATUS_OK
        else { return nil }
        return Features(size: PixelSize(width: Int(features.width), height: Int(features.height)), hasAlpha: features.has_alpha != 0)
    }

    /// The image as RGB (transparency shown on white), reduced by the smallest whole factor that
    /// brings it to `wholeLimit` pixels or fewer.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, wholeLimit: Int) throws -> Raster {
        let decoder = try Decoder(path: path)
        let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        try decoder.check(WebPGetFeatures(source, bytes.count, &decoder.config.input))
        let stored = PixelSize(width: Int(decoder.config.input.width), height: Int(decoder.config.input.height))
        let factor = reductionFactor(for: stored, limit: wholeLimit)
        let width = (stored.width + factor - 1) / factor, height = (stored.height + factor - 1) / factor
        if factor > 1 {
            decoder.config.options.use_scaling = 1
            decoder.config.options.scaled_width = Int32(width)
            decoder.config.options.scaled_height = Int32(height)
        }
        // Decoded straight into the raster's own buffer: premultiplied RGBA when there is
        // alpha, to be put on white below, else RGB.
        let alpha = decoder.config.input.has_alpha != 0
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        try pixels.withUnsafeMutableBufferPointer { target in
            decoder.config.output.colorspace = alpha ? MODE_rgbA : MODE_RGB
            decoder.config.output.is_external_memory = 1
            decoder.config.output.u.RGBA.rgba = target.baseAddress
            decoder.config.output.u.RGBA.stride = Int32(width * channels)
            decoder.config.output.u.RGBA.size = target.count
            try decoder.check(WebPDecode(source, bytes.count, &decoder.config))
        }
        if alpha {
            // Over white: premultiplied c + (255 - a), in place, each pixel's three bytes
            // written no later than its four are read.
            pixels.withUnsafeMutableBufferPointer { buffer in
                for pixel in 0..<(width * height) {
                    let transparency = 255 - buffer[4 * pixel + 3]
                    for channel in 0..<3 { buffer[3 * pixel + channel] = buffer[4 * pixel + channel] &+ transparency }
                }
            }
            pixels.removeLast(width * height)
        }
        return Raster(width: width, height: height, layout: .rgb, pixels: pixels)
    }

    /// One decoding's configuration, whose output buffer libwebp may own until it is freed.
    private final class Decoder {
        var config = WebPDecoderConfig()
        let path: String

        init(path: String) throws {
            self.path = path
            try check(WebPInitDecoderConfig(&config) != 0 ? VP8_STATUS_OK : VP8_STATUS_INVALID_PARAM)
        }

        deinit { WebPFreeDecBuffer(&config.output) }

        /// Every libwebp status goes through here.
        func check(_ status: VP8StatusCode) throws {
            guard status != VP8_STATUS_OK else { return }
            let reason = switch status {
            case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
            case VP8_STATUS_INVALID_PARAM: "the decoder's settings were refused (libwebp version mismatch?)"
            case VP8_STATUS_BITSTREAM_ERROR: "the bitstream is damaged"
            case VP8_STATUS_UNSUPPORTED_FEATURE: "a feature Gloss does not read (an animation?)"
            case VP8_STATUS_NOT_ENOUGH_DATA: "the data ends early"
            default: "libwebp status \(status.rawValue)"
            }
            throw ImagingError(path: path, reason: .corrupt("WebP: \(reason)"))
        }
    }
}

/// The smallest whole factor by which `size`, divided on each side and rounded up, has no more
/// than `limit` pixels.
func reductionFactor(for size: PixelSize, limit: Int) -> Int {
    var factor = 1
    while ((size.width + factor - 1) / factor) * ((size.height + factor - 1) / factor) > limit { factor += 1 }
    return factor
}
