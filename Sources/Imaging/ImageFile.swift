import CLeptonica
import GlossGeometry

#if canImport(Glibc)
import Glibc
#endif

/// The encoded formats Gloss reads, as Leptonica recognises them from the bytes.
public enum ImageFormat: String, Sendable {
    case png, jpeg, tiff, pnm, webp, gif, bmp, jp2

    /// As people write it in messages.
    public var name: String { self == .webp ? "WebP" : rawValue.uppercased() }

    init?(leptonica code: Int32) {
        switch Int(code) {
        case IFF_PNG: self = .png
        case IFF_JFIF_JPEG: self = .jpeg
        case IFF_TIFF, IFF_TIFF_PACKBITS, IFF_TIFF_RLE, IFF_TIFF_G3, IFF_TIFF_G4, IFF_TIFF_LZW,
             IFF_TIFF_ZIP, IFF_TIFF_JPEG: self = .tiff
        case IFF_PNM: self = .pnm
        case IFF_WEBP: self = .webp
        case IFF_GIF: self = .gif
        case IFF_BMP: self = .bmp
        case IFF_JP2: self = .jp2
        default: return nil
        }
    }
}

/// One page of an image, decoded and turned upright.
public struct DecodedPage: Sendable {
    /// The upright pixels: EXIF orientation is already applied. For an image too large to
    /// hold whole, a reduced copy (see `size`).
    public var raster: Raster
    /// The page's upright size in the file's own pixels, which reports are in: the raster's
    /// size, unless the image was reduced as it was read.
    public var size: PixelSize
    /// Pixels per inch as the file states it, or nil when it states none.
    public var resolution: Int?
    /// The orientation the stored pixels had, now applied.
    public var orientation: Orientation
}

/// An image file read into memory once, whose pages are decoded one at a time.
///
/// Opening reads only the header, so a file that claims too many pixels is refused before a
/// single pixel is decoded (a 1.6 MB PNG can claim 40000x40000).
public struct ImageFile: Sendable {
    public let path: String
    public let format: ImageFormat
    /// The stored size of the first page (before orientation).
    public let storedSize: PixelSize
    public let pageCount: Int
    /// The encoded file, as read.
    public let bytes: [UInt8]
    /// The most pixels a page may claim; checked for every page, before its pixels are decoded.
    let pixelLimit: Int
    /// A TIFF's pages are read from one temporary copy, made when the file is opened.
    private let tiff: TIFFFile?

    /// The default pixel limit: 150 megapixels, an A3 page at 1200 ppi.
    public static let defaultPixelLimit = 150_000_000

    /// Above this, a PNG is reduced as it is read (100 megapixels: an A3 page at 800 ppi is
    /// read whole; a 20000x20000 map is read as 10000x10000).
    public static let wholeDecodeLimit = 100_000_000

    /// Reads the file at `path` and its header.
    public init(contentsOf path: String, pixelLimit: Int = ImageFile.defaultPixelLimit) throws {
        try self.init(bytes: readWholeFile(path), path: path, pixelLimit: pixelLimit)
    }

    /// Wraps bytes already in memory; `path` names them in errors.
    public init(bytes: [UInt8], path: String, pixelLimit: Int = ImageFile.defaultPixelLimit) throws {
        _ = LeptonicaImage.silenced
        guard !bytes.isEmpty else { throw ImagingError(path: path, reason: .empty) }
        // The format from the signature alone (Leptonica reads at most the first 12 bytes, so a
        // shorter file is padded); then the size from the header, by the format's own reader.
        var signature = [UInt8](repeating: 0, count: 16)
        signature.replaceSubrange(0..<min(16, bytes.count), with: bytes.prefix(16))
        var code: Int32 = 0
        guard findFileFormatBuffer(signature, &code) == 0, let known = ImageFormat(leptonica: code) else {
            throw ImagingError(path: path, reason: .unsupportedFormat)
        }
        if known == .tiff {
            guard let tiff = TIFFFile(bytes) else {
                throw ImagingError(path: path, reason: .unreadable("no room for the temporary copy a TIFF is read from"))
            }
            self.tiff = tiff
        } else {
            tiff = nil
        }
        let size = switch known {
        case .jpeg: JPEGDecoder.size(bytes)
        case .tiff: tiff?.size
        default: Self.headerSize(bytes)
        }
        guard let size, size.width > 0, size.height > 0 else {
            throw ImagingError(path: path, reason: .corrupt("the \(known.name) header is cut short or damaged"))
        }
        guard size.pixelCount <= pixelLimit else {
            throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
        }
        self.path = path
        self.format = known
        self.storedSize = size
        self.bytes = bytes
        self.pixelLimit = pixelLimit
        self.pageCount = tiff?.pageCount ?? 1
    }

    private static func headerSize(_ bytes: [UInt8]) -> PixelSize? {
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        var bits: Int32 = 0, samples: Int32 = 0, colormapped: Int32 = 0
        let status = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &format, &width, &height, &bits, &samples, &colormapped)
        }
        return status == 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
    }

    /// Decodes page `index` (0-based) and turns it upright. A PNG or JPEG of more than
    /// `wholeLimit` pixels is reduced as it is read (a PNG by whole blocks, a JPEG by a DCT
    /// scale), so it never exists in memory at full size.
    public func decodePage(_ index: Int = 0, wholeLimit: Int = ImageFile.wholeDecodeLimit) throws -> DecodedPage {
        guard (0..<pageCount).contains(index) else {
            throw ImagingError(path: path, reason: .noSuchPage(index, pageCount: pageCount))
        }
        let (raster, resolution) = try decodePixels(index, wholeLimit: wholeLimit)
        // Leptonica already turns TIFF pages by their Orientation tag; JPEG's Exif it ignores.
        let orientation = format == .jpeg ? ExifReader.orientation(inJPEG: bytes) ?? .up : .up
        let upright = raster.oriented(orientation)
        // Reports are in the file's own pixels, also when the raster was reduced as it was read
        // (only single-page formats are; a TIFF page's size is its raster's).
        let size = format == .tiff ? upright.size : orientation.uprightSize(of: storedSize)
        return DecodedPage(raster: upright, size: size, resolution: resolution, orientation: orientation)
    }

    /// The stored pixels and their resolution; a PNG or JPEG above `wholeLimit` pixels comes
    /// back reduced, with its resolution scaled to match.
    private func decodePixels(_ index: Int, wholeLimit: Int) throws -> (Raster, resolution: Int?) {
        let reduce = storedSize.pixelCount > wholeLimit
        switch format {
        case .png where reduce:
            var factor = 2
            while ((storedSize.width + factor - 1) / factor) * ((storedSize.height + factor - 1) / factor) > wholeLimit {
                factor += 1
            }
            return (try PNGDecoder.decode(bytes, path: path, reducedBy: factor), PNGDecoder.resolution(bytes).map { $0 / factor })
        case .png:
            return (try PNGDecoder.decode(bytes, path: path), PNGDecoder.resolution(bytes))
        case .jpeg:
            let raster = try JPEGDecoder.decode(bytes, path: path, wholeLimit: wholeLimit)
            let scale = Double(raster.width) / Double(storedSize.width)
            return (raster, JPEGDecoder.resolution(bytes).map { Int((Double($0) * scale).rounded()) })
        default:
            break
        }
        var problem: String?
        let image: LeptonicaImage?
        if format == .tiff {
            // Only the first page's header was checked on opening: a later page may claim more.
            if index > 0, let size = tiff?.size(ofPage: index), size.pixelCount > pixelLimit {
                throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
            }
            (image, problem) = tiff?.decode(page: index) ?? (nil, nil)
        } else {
            image = LeptonicaImage(bytes.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) })
        }
        guard let image else {
            // Leptonica gives no reason of its own: say which decoder found nothing.
            throw ImagingError(path: path, reason: .corrupt("\(format.name): " + (problem ?? "the decoder found no image")))
        }
        guard let raster = image.raster() else {
            throw ImagingError(path: path, reason: .corrupt("unsupported pixel layout, \(image.depth) bits per pixel"))
        }
        return (raster, image.resolution)
    }
}

/// The whole file, or an error that says why not (missing, a directory, no permission...).
private func readWholeFile(_ path: String) throws -> [UInt8] {
    // Non-blocking, so that a FIFO or a device named like an image is refused below rather
    // than waited on forever; it changes nothing for a regular file.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
        throw ImagingError(path: path, reason: .unreadable("not a regular file"))
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
        if count == 0 { break }
        filled += count
    }
    return Array(bytes.prefix(filled))
}

private func systemError() -> String { String(cString: strerror(errno)) }
