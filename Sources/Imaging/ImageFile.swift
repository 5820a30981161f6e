import CLeptonica
import GlossGeometry

/// The encoded formats Gloss reads: the one table of input kinds. The folder walk takes the
/// file name endings it looks for from it, the decoder the signatures it recognises, and the
/// start of a batch whether a file may hold several pages; each format's decoder is chosen by an
/// exhaustive `switch` in `ImageFile`, so a format added here is read everywhere or not compiled.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, tiff, pnm, webp, gif, bmp, jp2, pdf

    /// How one format is named, found and read.
    public struct Kind: Sendable {
        /// As people write it in messages.
        public var name: String
        /// The file name endings that mark it in a folder, lower case, without the dot.
        public var extensions: [String]
        /// Leptonica's codes for the signatures (magic numbers) it recognises as this format;
        /// empty for PDF, whose `%PDF-` Gloss finds itself, anywhere in the first kilobyte.
        var signatures: [Int]
        /// Whether one file may hold several pages, which the workers of a batch then share.
        public var holdsPages: Bool
    }

    public var kind: Kind {
        switch self {
        case .png: Kind(name: "PNG", extensions: ["png"], signatures: [IFF_PNG], holdsPages: false)
        case .jpeg: Kind(name: "JPEG", extensions: ["jpg", "jpeg"], signatures: [IFF_JFIF_JPEG], holdsPages: false)
        case .tiff:
            Kind(name: "TIFF", extensions: ["tif", "tiff"],
                 signatures: [IFF_TIFF, IFF_TIFF_PACKBITS, IFF_TIFF_RLE, IFF_TIFF_G3, IFF_TIFF_G4, IFF_TIFF_LZW, IFF_TIFF_ZIP,
                              IFF_TIFF_JPEG],
                 holdsPages: true)
        case .pnm: Kind(name: "PNM", extensions: ["pnm", "pbm", "pgm", "ppm"], signatures: [IFF_PNM], holdsPages: false)
        case .webp: Kind(name: "WebP", extensions: ["webp"], signatures: [IFF_WEBP], holdsPages: false)
        // Only the first image of an animation is read.
        case .gif: Kind(name: "GIF", extensions: ["gif"], signatures: [IFF_GIF], holdsPages: false)
        case .bmp: Kind(name: "BMP", extensions: ["bmp"], signatures: [IFF_BMP], holdsPages: false)
        // Leptonica tells both JPEG 2000 forms by their signatures, the JP2 boxes and the bare
        // codestream, and openjpeg decodes both.
        case .jp2: Kind(name: "JP2", extensions: ["jp2", "j2k"], signatures: [IFF_JP2], holdsPages: false)
        case .pdf: Kind(name: "PDF", extensions: ["pdf"], signatures: [], holdsPages: true)
        }
    }

    /// As people write it in messages.
    public var name: String { kind.name }

    /// Every file name ending Gloss reads, lower case, without the dot.
    public static let fileExtensions: Set<String> = Set(allCases.flatMap(\.kind.extensions))

    /// The format a file name's ending marks (any case); nil for one Gloss does not read.
    public init?(fileExtension: String) {
        let lowered = fileExtension.lowercased()
        guard let format = Self.allCases.first(where: { $0.kind.extensions.contains(lowered) }) else { return nil }
        self = format
    }

    init?(leptonica code: Int32) {
        guard let format = Self.allCases.first(where: { $0.kind.signatures.contains(Int(code)) }) else { return nil }
        self = format
    }
}

/// One page of an image, decoded and turned upright.
public struct DecodedPage: Sendable {
    /// The upright pixels: EXIF orientation is already applied. For an image too large to
    /// hold whole, a reduced copy (see `size`). Grey when the file is colour in layout only,
    /// every pixel's channels equal.
    public var raster: Raster
    /// The page's upright size in the file's own pixels, which reports are in: the raster's
    /// size, unless the image was reduced as it was read.
    public var size: PixelSize
    /// Pixels per inch as the file states it, or nil when it states none.
    public var resolution: Int?
    /// The orientation the stored pixels had, now applied.
    public var orientation: Orientation

    /// `resolution`, which the decoder states for its raster, carried to `size`, the file's own
    /// pixels (a huge image's reduced raster states a lower one).
    public var resolutionInFilePixels: Int? {
        resolution.map { Int((Double($0) * Double(size.width) / Double(max(1, raster.width))).rounded()) }
    }
}

/// An image file, mapped rather than read, whose pages are decoded one at a time.
///
/// Opening reads only the header, so a file that claims too many pixels is refused before a
/// single pixel is decoded (a 1.6 MB PNG can claim 40000x40000), and a file far larger than its
/// header can justify (a 1 GB "PNG" of 1000x1000) before a byte past the header is read.
public struct ImageFile: Sendable {
    public let path: String
    public let format: ImageFormat
    /// The stored size of the first page (before orientation).
    public let storedSize: PixelSize
    public let pageCount: Int
    /// The encoded file.
    let bytes: EncodedBytes
    /// The most pixels a page may claim; checked for every page, before its pixels are decoded.
    let pixelLimit: Int
    /// A TIFF's pages are read by libtiff from a stream opened with the file.
    private let tiff: TIFFFile?
    /// A PDF's pages are rendered by Poppler from the document opened with the file.
    private let pdf: PDFDocument?
    /// A JPEG's marker segments before its image data (Exif, JFIF, Adobe), copied: small, and
    /// read more than once.
    private let jpegHeader: [UInt8]

    /// The default pixel limit: 150 megapixels, an A3 page at 1200 ppi.
    public static let defaultPixelLimit = 150_000_000

    /// The default largest file read (`--max-file-size`): 2 GiB, more than one page of 150
    /// megapixels takes in any format (1.2 GB as uncompressed 16-bit RGBA); a multi-page TIFF of
    /// a whole volume may need more.
    public static let defaultMaxFileSize = 2 << 30

    /// What a file may hold beyond its pixels: profiles, Exif, XMP and thumbnails.
    static let metadataAllowance = 64 << 20

    /// Above this, a PNG is reduced as it is read (100 megapixels: an A3 page at 800 ppi is
    /// read whole; a 20000x20000 map is read as 10000x10000).
    public static let wholeDecodeLimit = 100_000_000

    /// The resolution a PDF page is rendered at unless it is one full-page scan (`--pdf-resolution`).
    public static let defaultPDFResolution = 300

    /// The size in bytes of the encoded file.
    public var byteCount: Int { bytes.count }

    /// Opens the file at `path` (`OpenFile`) and reads its header. A file of more than `maxFileSize` bytes is
    /// refused from its size alone, before a byte is read.
    /// `pdfResolution` is the resolution of a PDF's pages that are not a full-page scan.
    public init(contentsOf path: String, pixelLimit: Int = ImageFile.defaultPixelLimit,
                maxFileSize: Int = ImageFile.defaultMaxFileSize, pdfResolution: Int = ImageFile.defaultPDFResolution) throws {
        try self.init(.file(OpenFile(path: path, maximumSize: maxFileSize)), path: path, pixelLimit: pixelLimit,
                      pdfResolution: pdfResolution)
    }

    /// Wraps bytes already in memory (a download); `path` names them in errors.
    public init(bytes: [UInt8], path: String, pixelLimit: Int = ImageFile.defaultPixelLimit,
                maxFileSize: Int = ImageFile.defaultMaxFileSize, pdfResolution: Int = ImageFile.defaultPDFResolution) throws {
        guard !bytes.isEmpty else { throw ImagingError(path: path, reason: .empty) }
        guard bytes.count <= maxFileSize else {
            throw ImagingError(path: path, reason: .fileTooLarge(size: bytes.count, limit: maxFileSize))
        }
        try self.init(.memory(bytes), path: path, pixelLimit: pixelLimit, pdfResolution: pdfResolution)
    }

    private init(_ bytes: EncodedBytes, path: String, pixelLimit: Int, pdfResolution: Int) throws {
        _ = LeptonicaImage.silenced
        // A PDF may start its header anywhere in its first kilobyte; Leptonica does not read it.
        if bytes.withUnsafeBytes({ Self.holdsPDFSignature($0) }) {
            let document = try PDFDocument(bytes, path: path, resolution: pdfResolution)
            let size = try document.estimate(page: 0).size
            guard size.pixelCount <= pixelLimit else {
                throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
            }
            self.path = path
            format = .pdf
            storedSize = size
            self.bytes = bytes
            self.pixelLimit = pixelLimit
            pageCount = document.pageCount
            pdf = document
            tiff = nil
            jpegHeader = []
            return
        }
        pdf = nil
        // The format from the signature alone (Leptonica reads at most the first 12 bytes, so a
        // shorter file is padded); then the size from the header, by the format's own reader.
        var signature = [UInt8](repeating: 0, count: 16)
        let first = bytes.prefix(16)
        signature.replaceSubrange(0..<first.count, with: first)
        var code: Int32 = 0
        guard findFileFormatBuffer(signature, &code) == 0, let known = ImageFormat(leptonica: code) else {
            throw ImagingError(path: path, reason: .unsupportedFormat)
        }
        tiff = known == .tiff ? try TIFFFile(bytes, path: path) : nil
        jpegHeader = known == .jpeg ? bytes.withUnsafeBytes { Array($0.prefix(JPEGSegments.headerLength(of: $0))) } : []
        let webp = known == .webp ? bytes.withUnsafeBytes { WebPDecoder.features($0) } : nil
        let header: (size: PixelSize, bytesPerPixel: Int?)? = switch known {
        case .jpeg: bytes.withUnsafeBytes { JPEGDecoder.size($0) }.map { ($0, 4) }
        case .tiff: tiff?.size.map { ($0, nil) }
        case .webp: webp.map { ($0.size, 4) }
        case .gif: bytes.withUnsafeBytes { GIFFirstImage($0) }.map { ($0.size, nil) }  // an animation may hold many
        case .bmp: bytes.withUnsafeBytes { Self.bmpSize($0) }.map { ($0, 4) }  // Leptonica's header read decodes it all
        default: bytes.withUnsafeBytes { Self.header($0, format: known) }
        }
        guard let header, header.size.width > 0, header.size.height > 0 else {
            throw ImagingError(path: path, reason: .corrupt("the \(known.name) header is cut short or damaged"))
        }
        let size = header.size
        guard size.pixelCount <= pixelLimit else {
            throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
        }
        // A single image's bytes are bounded by its pixels: twice their raw size in the file's
        // own layout (compression that fails, row filters), plus room for metadata. More is
        // refused, so no file makes Gloss hash or decode bytes its header cannot account for.
        if let bytesPerPixel = header.bytesPerPixel {
            let justified = size.pixelCount * bytesPerPixel * 2 + Self.metadataAllowance
            guard bytes.count <= justified else {
                throw ImagingError(path: path, reason: .unjustifiedSize(fileSize: bytes.count, width: size.width,
                                                                       height: size.height, justified: justified))
            }
        }
        self.path = path
        self.format = known
        self.storedSize = size
        self.bytes = bytes
        self.pixelLimit = pixelLimit
        self.pageCount = tiff?.pageCount ?? 1
    }

    /// Whether a browser shows the file as Gloss decodes it, so that the file itself can stand
    /// for its pixels in a report: one image, a PNG without transparency (Gloss shows it on
    /// white), or a grey or colour JPEG that needs no turning.
    var looksTheSameInABrowser: Bool {
        guard pageCount == 1 else { return false }
        switch format {
        case .png: return bytes.withUnsafeBytes { PNGDecoder.isOpaque($0) }
        case .jpeg:
            return (ExifReader.orientation(inJPEG: jpegHeader) ?? .up) == .up
                && bytes.withUnsafeBytes { JPEGDecoder.isGreyOrColour($0) }
        default: return false
        }
    }

    /// The file's bytes, copied.
    var contents: [UInt8] {
        switch bytes {
        case .memory(let array): array
        case .file: bytes.withUnsafeBytes { Array($0) }
        }
    }

    /// Whether `%PDF-` starts a line within the first kilobyte, where PDF readers look for it.
    private static func holdsPDFSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let signature = Array("%PDF-".utf8)
        let window = bytes.prefix(1024)
        guard window.count >= signature.count else { return false }
        return (0...(window.count - signature.count)).contains { start in
            (start == 0 || window[start - 1] == 0x0A || window[start - 1] == 0x0D)
                && signature.indices.allSatisfy { window[start + $0] == signature[$0] }
        }
    }

    /// The pixels page `index` holds (for a PDF, that it will be rendered at, or was): the pixel
    /// budget a page is read under. Other pages of a TIFF are taken to be the size of the first;
    /// a PDF page not drawn yet is counted at the PDF resolution, its content unread (a scan is
    /// drawn at its own resolution, up to 600 ppi).
    public func pixelCount(ofPage index: Int) -> Int {
        guard let pdf, let plan = try? pdf.estimate(page: index) else { return storedSize.pixelCount }
        return plan.size.pixelCount
    }

    /// The text page `index` of a PDF already holds, with its words' boxes; nil for a page
    /// without text, and for other formats.
    public func textLayer(ofPage index: Int) throws -> PDFTextLayer? {
        guard let pdf else { return nil }
        guard (0..<pageCount).contains(index) else {
            throw ImagingError(path: path, reason: .noSuchPage(index, pageCount: pageCount))
        }
        return try pdf.textLayerInChild(page: index, pixelLimit: pixelLimit)
    }

    /// A BMP's size from its info header, read here: Leptonica's header reader decodes the whole
    /// image to find it, so a file claiming any size would be decoded before the pixel limit
    /// was set against it. The OS/2 header (12 bytes) holds 16-bit sides, the others 32-bit
    /// ones, a negative height meaning rows stored top down.
    static func bmpSize(_ bytes: UnsafeRawBufferPointer) -> PixelSize? {
        guard bytes.count >= 26, bytes[0] == 0x42, bytes[1] == 0x4D else { return nil }
        func little(_ at: Int, _ count: Int) -> UInt32 {
            (0..<count).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        let (width, height) = little(14, 4) == 12
            ? (Int(Int16(bitPattern: UInt16(little(18, 2)))), Int(Int16(bitPattern: UInt16(little(20, 2)))))
            : (Int(Int32(bitPattern: little(18, 4))), Int(Int32(bitPattern: little(22, 4))))
        guard width > 0, height != 0 else { return nil }
        return PixelSize(width: width, height: abs(height))
    }

    /// The size from Leptonica's header reader, and the most bytes a pixel takes stored
    /// uncompressed in this format (from the header for PNG; the widest of any otherwise).
    private static func header(_ bytes: UnsafeRawBufferPointer, format known: ImageFormat) -> (PixelSize, Int?)? {
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        var bits: Int32 = 0, samples: Int32 = 0, colormapped: Int32 = 0
        let status = pixReadHeaderMem(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                      &format, &width, &height, &bits, &samples, &colormapped)
        guard status == 0 else { return nil }
        let bytesPerPixel = known == .png ? max(1, (Int(bits) * Int(samples) + 7) / 8) : 8
        return (PixelSize(width: Int(width), height: Int(height)), bytesPerPixel)
    }

    /// Hands the encoded bytes to `body` in chunks of at most `chunkSize`, in order, through one
    /// buffer of that size: a mapped file is read through its descriptor, so hashing even a
    /// large file holds one chunk. `body` may throw (a cancelled task) to stop early.
    public func forEachChunk(ofSize chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch bytes {
        case .memory(let array):
            try array.withUnsafeBytes { all in
                for start in stride(from: 0, to: all.count, by: chunkSize) {
                    try body(UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + chunkSize)]))
                }
            }
        case .file(let file):
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            for start in stride(from: 0, to: file.count, by: chunkSize) {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(chunkSize, file.count - start)])
                try file.read(into: chunk, at: start, path: path)
                try body(UnsafeRawBufferPointer(chunk))
            }
        }
    }

    /// Decodes page `index` (0-based) and turns it upright. An image of more than `wholeLimit`
    /// pixels is reduced as it is read (a PNG or a TIFF or GIF page by whole blocks, a JPEG by
    /// a DCT scale, a WebP by libwebp's rescaler), so it never exists in memory at full size.
    public func decodePage(_ index: Int = 0, wholeLimit: Int = ImageFile.wholeDecodeLimit) throws -> DecodedPage {
        guard (0..<pageCount).contains(index) else {
            throw ImagingError(path: path, reason: .noSuchPage(index, pageCount: pageCount))
        }
        let (decoded, resolution, stored) = try bytes.withUnsafeBytes { try decodePixels(index, from: $0, wholeLimit: wholeLimit) }
        // A grey page stored as colour is read as the grey page it is (`Raster.greyIfNeutral`).
        let raster = decoded.greyIfNeutral() ?? decoded
        // Leptonica already turns TIFF pages by their Orientation tag; JPEG's Exif it ignores.
        let orientation = format == .jpeg ? ExifReader.orientation(inJPEG: jpegHeader) ?? .up : .up
        // Reports are in the file's own pixels, also when the raster was reduced as it was read.
        return DecodedPage(raster: raster.oriented(orientation), size: orientation.uprightSize(of: stored), resolution: resolution,
                           orientation: orientation)
    }

    /// The stored pixels, their resolution and the page's stored size; an image above
    /// `wholeLimit` pixels comes back reduced, with its resolution scaled to match.
    private func decodePixels(_ index: Int, from bytes: UnsafeRawBufferPointer, wholeLimit: Int)
        throws -> (Raster, resolution: Int?, size: PixelSize) {
        switch format {
        case .png where storedSize.pixelCount > wholeLimit:
            // A large PNG is reduced as its rows are read, which an interlaced one's passes do not allow.
            if PNGDecoder.isInterlaced(bytes) {
                throw ImagingError(path: path, reason: .tooLargeForDecoder(
                    width: storedSize.width, height: storedSize.height, limit: wholeLimit,
                    why: "an interlaced PNG is read whole; saved without interlacing it is reduced as it is read"))
            }
            let factor = reductionFactor(for: storedSize, limit: wholeLimit)
            let raster = try PNGDecoder.decode(bytes, path: path, reducedBy: factor)
            return (raster, PNGDecoder.resolution(bytes).map { $0 / factor }, storedSize)
        case .png:
            return (try PNGDecoder.decode(bytes, path: path), PNGDecoder.resolution(bytes), storedSize)
        case .jpeg:
            let raster = try JPEGDecoder.decode(bytes, header: jpegHeader, path: path, wholeLimit: wholeLimit)
            let scale = Double(raster.width) / Double(storedSize.width)
            return (raster, JPEGDecoder.resolution(jpegHeader).map { Int((Double($0) * scale).rounded()) }, storedSize)
        case .webp:
            return (try WebPDecoder.decode(bytes, path: path, wholeLimit: wholeLimit), nil, storedSize)
        case .pdf:
            // Rendered at the planned size, the pixel limit checked first; `wholeLimit` does not
            // apply: the plan caps the resolution and the pixel limit bounds the page.
            guard let pdf else { break }
            let (raster, plan) = try pdf.renderInChild(page: index, pixelLimit: pixelLimit)
            return (raster, plan.resolution, plan.size)
        case .tiff, .pnm, .gif, .bmp, .jp2:
            break
        }
        var problem: String?
        let image: LeptonicaImage?
        switch format {
        case .tiff:
            // Only the first page's header was checked on opening: a later page may claim more.
            // Its size is read as libtiff reads it (any integer type); a directory that states
            // none, or lies past the end, is left to the decoder, which says why it fails.
            if index > 0, let size = tiff?.size(ofPage: index), size.pixelCount > pixelLimit {
                throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
            }
            (image, problem) = tiff?.decode(page: index) ?? (nil, nil)
        case .gif:
            // The first image alone, so that giflib decodes no other frame.
            let end = GIFFirstImage(bytes)?.end ?? bytes.count
            if end < bytes.count, bytes[end] != 0x3B {
                image = (Array(bytes.prefix(end)) + [0x3B]).withUnsafeBufferPointer { LeptonicaImage(pixReadMem($0.baseAddress, $0.count)) }
            } else {
                image = LeptonicaImage(pixReadMem(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count))
            }
        case .pnm, .bmp, .jp2, .png, .jpeg, .webp, .pdf:
            image = LeptonicaImage(pixReadMem(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count))
        }
        guard let image else {
            // Leptonica gives no reason of its own: say which decoder found nothing.
            throw ImagingError(path: path, reason: .corrupt("\(format.name): " + (problem ?? "the decoder found no image")))
        }
        let size = PixelSize(width: image.width, height: image.height)
        let factor = reductionFactor(for: size, limit: wholeLimit)
        guard let raster = image.raster(reducedBy: factor) else {
            throw ImagingError(path: path, reason: .corrupt("unsupported pixel layout, \(image.depth) bits per pixel"))
        }
        return (raster, image.resolution.map { $0 / factor }, size)
    }
}
