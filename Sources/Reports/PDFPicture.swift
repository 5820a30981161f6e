import GlossGeometry

/// The picture of one page as a PDF embeds it: a JPEG file's own bytes, or pixels compressed
/// losslessly.
public struct PDFPicture: Sendable {
    enum Content: Sendable {
        /// A JPEG file as it is (`/DCTDecode`): no second loss, no growth. `orientation` turns its
        /// stored pixels upright on the page, since they are not re-encoded.
        case jpeg(bytes: [UInt8], header: JPEGHeader, orientation: Orientation)
        /// Upright 8-bit grey or RGB pixels, rows packed without padding.
        case pixels(width: Int, height: Int, channels: Int, pixels: [UInt8])
        /// An image stream ready to embed: a PNG file's own compressed rows.
        case stream(PDFImageStream)
    }

    let content: Content

    /// A JPEG file embedded as it is, or nil when a PDF reader may not decode it: only 8-bit
    /// baseline or progressive JPEGs of 1, 3 or 4 components are (ISO 32000-1, 7.4.8), not
    /// lossless, arithmetic-coded or 12-bit ones.
    public static func jpeg(_ bytes: [UInt8], orientation: Orientation) -> PDFPicture? {
        guard let header = JPEGHeader(bytes) else { return nil }
        return PDFPicture(content: .jpeg(bytes: bytes, header: header, orientation: orientation))
    }

    /// Upright pixels, 8-bit grey (1 channel) or RGB (3), with any transparency already on white.
    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 1 || channels == 3, "grey or RGB pixels")
        precondition(width > 0 && height > 0 && pixels.count == width * height * channels, "pixels do not match the size")
        content = .pixels(width: width, height: height, channels: channels, pixels: pixels)
    }

    private init(content: Content) { self.content = content }

    /// A PNG file's own compressed rows embedded as they are (`/FlateDecode` with PNG
    /// predictors, as img2pdf embeds them), unless `pixels` compressed by Gloss are smaller (a
    /// two-tone page stored as 8-bit grey): no second encoding, and the file's own size. Nil,
    /// so the pixels are embedded, for a PNG a PDF cannot take as it is: other than 8-bit grey
    /// or RGB, interlaced, or with transparency (`tRNS`, or an alpha channel).
    public static func png(_ bytes: [UInt8], pixels: PDFPicture) -> PDFPicture? {
        guard let png = PNGRows(bytes), case .pixels(let width, let height, let channels, _) = pixels.content,
              png.width == width, png.height == height, png.channels == channels else { return nil }
        let own = PDFImageStream(width: width, height: height, channels: channels, predictedAndDeflated: png.compressed)
        let ours = PDFImageStream(pixels)
        return PDFPicture(content: .stream(own.data.count <= ours.data.count ? own : ours))
    }

    /// The stored size of a JPEG (before its orientation), as its frame header states it.
    public var jpegSize: PixelSize? {
        guard case .jpeg(_, let header, _) = content else { return nil }
        return PixelSize(width: header.width, height: header.height)
    }
}

/// What a PDF needs from a JPEG's headers: its size and components, and whether Adobe's APP14
/// marker is there, which means CMYK samples are stored inverted.
struct JPEGHeader: Sendable {
    var width: Int
    var height: Int
    var components: Int
    var adobe: Bool

    /// Walks the markers up to the first scan; nil for anything but an 8-bit baseline (SOF0),
    /// extended (SOF1) or progressive (SOF2) frame of 1, 3 or 4 components.
    init?(_ bytes: [UInt8]) {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        var frame: (width: Int, height: Int, components: Int)?
        var adobe = false
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }  // no length
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let body = at + 4
            guard length >= 2, body + length - 2 <= bytes.count else { return nil }
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard length >= 8, bytes[body] == 8 else { return nil }
                frame = (Int(bytes[body + 3]) << 8 | Int(bytes[body + 4]), Int(bytes[body + 1]) << 8 | Int(bytes[body + 2]),
                         Int(bytes[body + 5]))
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return nil
            case 0xEE:
                adobe = adobe || (length >= 14 && bytes[body..<(body + 5)].elementsEqual("Adobe".utf8))
            case 0xDA:
                guard let frame, frame.width > 0, frame.height > 0, [1, 3, 4].contains(frame.components) else { return nil }
                (width, height, components) = frame
                self.adobe = adobe
                return
            default:
                break
            }
            at = body + length - 2
        }
        return nil
    }
}

/// What a PDF needs of a PNG file to embed its compressed rows as they are: its size and
/// channels, and its `IDAT` chunks joined, a zlib stream of rows behind PNG filters, which is
/// `/FlateDecode` with `/Predictor 15` (ISO 32000-1, 7.4.4.4). Nil for anything else than an
/// 8-bit grey or RGB picture, not interlaced and without `tRNS`; the chunks' CRCs are libpng's
/// to check, which decoded the same file.
struct PNGRows {
    var width: Int
    var height: Int
    var channels: Int
    var compressed: [UInt8] = []

    init?(_ bytes: [UInt8]) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count > 33, bytes.starts(with: signature) else { return nil }
        func number(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        func type(_ at: Int) -> String { String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) }
        // IHDR first: width, height, bit depth, colour type, compression, filter, interlace.
        guard type(8) == "IHDR", number(8) == 13 else { return nil }
        (width, height) = (number(16), number(20))
        let (depth, colour, interlace) = (bytes[24], bytes[25], bytes[28])
        guard width > 0, height > 0, depth == 8, colour == 0 || colour == 2, bytes[26] == 0, bytes[27] == 0, interlace == 0
        else { return nil }
        channels = colour == 0 ? 1 : 3
        var at = 33
        while at + 12 <= bytes.count {
            let length = number(at)
            guard length <= bytes.count - at - 12 else { return nil }
            switch type(at) {
            case "IDAT": compressed += bytes[(at + 8)..<(at + 8 + length)]
            case "tRNS": return nil
            case "IEND":
                if compressed.isEmpty { return nil }
                return
            default: break
            }
            at += 12 + length
        }
        return nil
    }
}

/// A picture's image XObject: its dictionary entries (all but `/Length`) and its stream.
struct PDFImageStream: Sendable {
    var dictionary: String
    var data: [UInt8]

    /// Rows behind PNG filters, deflated: a PNG's `IDAT`, or `predicted`'s output.
    init(width: Int, height: Int, channels: Int, predictedAndDeflated data: [UInt8]) {
        dictionary = "/Type /XObject /Subtype /Image /Width \(width) /Height \(height)"
            + " /ColorSpace \(channels == 1 ? "/DeviceGray" : "/DeviceRGB") /BitsPerComponent 8 /Filter /FlateDecode"
            + " /DecodeParms << /Predictor 15 /Colors \(channels) /BitsPerComponent 8 /Columns \(width) >>"
        self.data = data
    }

    init(_ picture: PDFPicture) {
        switch picture.content {
        case .jpeg(let bytes, let header, _):
            let space = ["/DeviceGray", "", "/DeviceRGB", "/DeviceCMYK"][header.components - 1]
            // Adobe's CMYK JPEGs hold 255 minus each ink, and PDF readers take the samples as
            // they are: the Decode array turns them back (as Acrobat and img2pdf do).
            let decode = header.components == 4 && header.adobe ? " /Decode [1 0 1 0 1 0 1 0]" : ""
            dictionary = "/Type /XObject /Subtype /Image /Width \(header.width) /Height \(header.height)"
                + " /ColorSpace \(space) /BitsPerComponent 8\(decode) /Filter /DCTDecode"
            data = bytes
        case .pixels(let width, let height, let channels, let pixels):
            if channels == 1, let bits = Self.bitonal(pixels, width: width, height: height) {
                dictionary = "/Type /XObject /Subtype /Image /Width \(width) /Height \(height)"
                    + " /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode"
                data = Deflater.compress(bits)
            } else {
                let stream = PDFImageStream(width: width, height: height, channels: channels,
                                            predictedAndDeflated: Self.predicted(pixels, width: width, height: height, channels: channels))
                (dictionary, data) = (stream.dictionary, stream.data)
            }
        case .stream(let stream):
            (dictionary, data) = (stream.dictionary, stream.data)
        }
    }

    /// Grey pixels that are all black or white, packed 8 to a byte (1 is white, as DeviceGray
    /// reads it), each row starting on a byte; nil as soon as another grey shows up.
    static func bitonal(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8]? {
        let rowBytes = (width + 7) / 8
        var packed = [UInt8](repeating: 0, count: rowBytes * height)
        let allTwoTone = pixels.withUnsafeBufferPointer { source in
            packed.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        switch source[y * width + x] {
                        case 255: target[y * rowBytes + (x >> 3)] |= 0x80 >> UInt8(x & 7)
                        case 0: break
                        default: return false
                        }
                    }
                }
                return true
            }
        }
        return allTwoTone ? packed : nil
    }

    /// Deflated rows, each behind the PNG filter (None, Sub, Up, Average or Paeth) whose output
    /// has the smallest sum of magnitudes, libpng's choice: `/Predictor 15` in the decode
    /// parameters tells the reader to undo them. Scans compress a third smaller than unfiltered.
    static func predicted(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> [UInt8] {
        let deflater = Deflater()
        let rowBytes = width * channels
        var candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: rowBytes + 1), count: 5)
        let zeros = [UInt8](repeating: 0, count: rowBytes)
        pixels.withUnsafeBufferPointer { all in
            zeros.withUnsafeBufferPointer { blank in
                for y in 0..<height {
                    let row = UnsafeBufferPointer(rebasing: all[(y * rowBytes)..<((y + 1) * rowBytes)])
                    let above = y == 0 ? blank : UnsafeBufferPointer(rebasing: all[((y - 1) * rowBytes)..<(y * rowBytes)])
                    var best = 0, bestCost = Int.max
                    for filter in 0..<5 {
                        let cost = candidates[filter].withUnsafeMutableBufferPointer {
                            Self.filter(filter, row: row, above: above, channels: channels, into: $0)
                        }
                        if cost < bestCost { (best, bestCost) = (filter, cost) }
                    }
                    deflater.append(candidates[best])
                }
            }
        }
        return deflater.finish()
    }

    /// Writes the filter's type byte and the filtered row to `out`; returns the sum of the
    /// filtered bytes read as signed values' magnitudes.
    private static func filter(
        _ type: Int, row: UnsafeBufferPointer<UInt8>, above: UnsafeBufferPointer<UInt8>, channels: Int,
        into out: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        out[0] = UInt8(type)
        var cost = 0
        for i in 0..<row.count {
            let a = i >= channels ? Int(row[i - channels]) : 0
            let b = Int(above[i])
            let c = i >= channels ? Int(above[i - channels]) : 0
            let prediction: Int
            switch type {
            case 1: prediction = a
            case 2: prediction = b
            case 3: prediction = (a + b) >> 1
            case 4:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                prediction = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            default: prediction = 0
            }
            let value = UInt8(truncatingIfNeeded: Int(row[i]) - prediction)
            out[i + 1] = value
            cost += value < 128 ? Int(value) : 256 - Int(value)
        }
        return cost
    }
}
