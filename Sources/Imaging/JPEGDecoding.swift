import CTurboJPEG
import GlossGeometry

/// JPEG goes through TurboJPEG rather than Leptonica: its messages ("Premature end of JPEG
/// file") come back as text instead of going to stderr, a warning stops the decode (a
/// truncated scan is reported, not filled with grey), and progressive files are limited in
/// their number of scans, so a hostile file cannot spin for minutes.
enum JPEGDecoder {
    /// The image, or, when it has more than `wholeLimit` pixels, a copy reduced by the largest
    /// of libjpeg's DCT scales (1/2, 1/4, 1/8...) that brings it under: the reduction happens
    /// inside the decoder, so the full image never exists in memory.
    /// `header` holds the marker segments before the image data (`JPEGSegments.headerLength`).
    static func decode(_ bytes: UnsafeRawBufferPointer, header: [UInt8], path: String, wholeLimit: Int = .max) throws -> Raster {
        let decompressor = try Decompressor(path: path)
        let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        try decompressor.check(path, tjDecompressHeader3(decompressor.handle, source, UInt(bytes.count), &width, &height,
                                                         &subsampling, &colorspace))
        if Int(width) * Int(height) > wholeLimit, let scale = reduction(width: Int(width), height: Int(height), limit: wholeLimit) {
            (width, height) = (Int32(scale.width), Int32(scale.height))
        }
        let grey = colorspace == Int32(TJCS_GRAY.rawValue)
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let format = grey ? TJPF_GRAY : cmyk ? TJPF_CMYK : TJPF_RGB
        let channels = grey ? 1 : cmyk ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * channels)
        func decompress(_ flags: Int32) -> Int32 {
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(decompressor.handle, source, UInt(bytes.count), target.baseAddress, width, 0, height,
                              Int32(format.rawValue), flags)
            }
        }
        let status = decompress(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        // Bytes between the last scan and the end-of-image marker (cameras, scanners and editors
        // leave some) come after every row is decoded: read on, and keep the picture when that
        // is still the only warning. Any other warning (a truncated scan) stops the decode.
        if status != 0, tjGetErrorCode(decompressor.handle) == Int32(TJERR_WARNING.rawValue),
           Self.isTrailingJunk(String(cString: tjGetErrorStr2(decompressor.handle))) {
            let again = decompress(TJFLAG_LIMITSCANS)
            if again != 0, !Self.isTrailingJunk(String(cString: tjGetErrorStr2(decompressor.handle))) {
                try decompressor.check(path, again)
            }
        } else {
            try decompressor.check(path, status)
        }
        if grey { return Raster(width: Int(width), height: Int(height), layout: .gray, pixels: pixels) }
        if cmyk { pixels = rgb(fromCMYK: pixels, inverted: hasAdobeMarker(header)) }
        return Raster(width: Int(width), height: Int(height), layout: .rgb, pixels: pixels)
    }

    /// libjpeg's warning for bytes before the end-of-image marker (`JWRN_EXTRANEOUS_DATA` at 0xd9).
    static func isTrailingJunk(_ message: String) -> Bool {
        message.hasPrefix("Corrupt JPEG data: ") && message.hasSuffix("extraneous bytes before marker 0xd9")
    }

    /// The largest size among TurboJPEG's scaling factors below 1 that fits in `limit` pixels.
    private static func reduction(width: Int, height: Int, limit: Int) -> PixelSize? {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return nil }
        var sizes: [PixelSize] = []
        for index in 0..<Int(count) {
            let numerator = Int(factors[index].num), denominator = Int(factors[index].denom)
            guard numerator < denominator else { continue }
            let scaled = { (side: Int) -> Int in (side * numerator + denominator - 1) / denominator }
            sizes.append(PixelSize(width: scaled(width), height: scaled(height)))
        }
        let fitting = sizes.filter { $0.pixelCount <= limit }
        return fitting.max { $0.pixelCount < $1.pixelCount } ?? sizes.min { $0.pixelCount < $1.pixelCount }
    }

    /// CMYK to RGB by the usual printer's approximation. Files written by Adobe software (an
    /// APP14 "Adobe" segment) store the inks inverted, as most CMYK JPEGs in the wild do.
    private static func rgb(fromCMYK cmyk: [UInt8], inverted: Bool) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
        for pixel in 0..<(cmyk.count / 4) {
            let k = Int(inverted ? cmyk[4 * pixel + 3] : 255 - cmyk[4 * pixel + 3])
            for channel in 0..<3 {
                let ink = Int(inverted ? cmyk[4 * pixel + channel] : 255 - cmyk[4 * pixel + channel])
                rgb[3 * pixel + channel] = UInt8((ink * k + 127) / 255)
            }
        }
        return rgb
    }

    private static func hasAdobeMarker(_ bytes: [UInt8]) -> Bool {
        JPEGSegments(bytes).contains { $0.marker == 0xEE && $0.body.starts(with: Array("Adobe".utf8)) }
    }

    /// The stored size from the frame header, or nil when there is none to read.
    static func size(_ bytes: UnsafeRawBufferPointer) -> PixelSize? { frame(bytes)?.size }

    /// Whether the frame is grey or colour (YCbCr or RGB), which every browser shows as Gloss
    /// reads it; CMYK is not (Adobe's inverted CMYK is read differently from one to another).
    static func isGreyOrColour(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let colorspace = frame(bytes)?.colorspace else { return false }
        return [TJCS_GRAY, TJCS_YCbCr, TJCS_RGB].map { Int32($0.rawValue) }.contains(colorspace)
    }

    /// The frame header's size and TurboJPEG colour space.
    private static func frame(_ bytes: UnsafeRawBufferPointer) -> (size: PixelSize, colorspace: Int32)? {
        guard let decompressor = try? Decompressor(path: "") else { return nil }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = tjDecompressHeader3(decompressor.handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                         UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        return status == 0 ? (PixelSize(width: Int(width), height: Int(height)), colorspace) : nil
    }

    /// Pixels per inch from the JFIF header, when it states inches or centimetres.
    static func resolution(_ bytes: [UInt8]) -> Int? {
        guard let jfif = JPEGSegments(bytes).first(where: { $0.marker == 0xE0 && $0.body.starts(with: Array("JFIF\0".utf8)) }),
              jfif.body.count >= 12 else { return nil }
        let body = Array(jfif.body)
        let density = Int(body[8]) << 8 | Int(body[9])
        switch body[7] {
        case 1: return density > 0 ? density : nil
        case 2: return density > 0 ? Int((Double(density) * 2.54).rounded()) : nil
        default: return nil
        }
    }

    /// Owns one TurboJPEG handle.
    private final class Decompressor {
        let handle: tjhandle

        init(path: String) throws {
            guard let handle = tjInitDecompress() else {
                throw ImagingError(path: path, reason: .corrupt("JPEG decoder could not start"))
            }
            self.handle = handle
        }

        deinit { tjDestroy(handle) }

        /// Every TurboJPEG return code goes through here.
        func check(_ path: String, _ status: Int32) throws {
            guard status != 0 else { return }
            let message = String(cString: tjGetErrorStr2(handle))
            throw ImagingError(path: path, reason: .corrupt("JPEG: \(message)"))
        }
    }
}

/// The marker segments of a JPEG file up to the start of the image data, read with bounds
/// checks: a hostile length can only end the walk.
struct JPEGSegments: Sequence {
    struct Segment {
        var marker: UInt8
        var body: ArraySlice<UInt8>
    }

    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Where the image data starts (its SOS marker), or the whole length when the walk ends
    /// first: the part of a file its metadata can be in, found without reading further.
    static func headerLength(of bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 0 }
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { return offset }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return Swift.min(offset, bytes.count)
    }

    func makeIterator() -> AnyIterator<Segment> {
        let bytes = self.bytes
        var offset = bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8 ? 2 : bytes.count  // after SOI
        return AnyIterator {
            while offset + 1 < bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] == 0xFF { offset += 1 }  // fill
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            guard marker != 0xDA, marker != 0xD9 else { return nil }  // image data, or the end
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            defer { offset += 2 + length }
            return Segment(marker: marker, body: bytes[(offset + 4)..<(offset + 2 + length)])
        }
    }
}
