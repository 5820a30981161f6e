/// The picture of a page a person looks at in the report, encoded for what it shows.
///
/// A 2000 px page as an 8-bit PNG is 0.5 MB for a grey scan and 3 to 6 MB for a photo, which is
/// fine from a local disk and unusable from a shared drive or a web server. Documents become a
/// 16-shade palette PNG (sharp type, no JPEG ringing, half the bytes); photos, and pages in
/// colour or with large mid-tone areas, a JPEG. The choice and the quality were measured on
/// 62 real pages (bench/images.sh and the table in docs/formats.md). A PNG or JPEG that is already light
/// and near the display size is shown as it is (`init(reusing:fitting:)`).
public struct DisplayPicture: Sendable {
    public enum Kind: String, Sendable {
        /// A palette PNG Gloss made.
        case document
        /// A JPEG Gloss made.
        case photo
        /// The input file itself.
        case original
    }

    public var kind: Kind
    public var bytes: [UInt8]
    /// PNG or JPEG.
    public var format: ImageFormat

    /// JPEG quality of the display copy of a photo: the knee of size against block SSIM on
    /// real photos (0.986 at 80, 0.989 at 85, 0.993 at 90, for 9.3, 10.7 and 13.2% of the PNG).
    public static let photoQuality = 85
    /// Thumbnails are small and seen small: a lower quality costs nothing visible.
    public static let thumbnailQuality = 75
    /// The index shows thumbnails at most this many pixels on their longest side.
    public static let thumbnailSide = 320

    /// `raster` encoded as a document or a photo, whichever it looks like.
    public init(showing raster: Raster) throws {
        kind = Self.kind(of: raster)
        if kind == .photo {
            bytes = try raster.jpegData(quality: Self.photoQuality)
            format = .jpeg
        } else {
            bytes = try raster.posterizedPNGData(levels: 16, fast: true)
            format = .png
        }
    }

    /// The file itself, when making a display copy gains nothing: a browser shows it as Gloss
    /// read it (`looksTheSameInABrowser`), it is at most twice `dimension` on its longest side,
    /// and it weighs no more than `originalBytesPerPixel` at the size a display copy would have.
    /// The reader then sees the archive's own pixels, and the page costs no resampling and no
    /// encoding; nil otherwise.
    public init?(reusing file: ImageFile, fitting dimension: Int) {
        let size = file.storedSize
        let longest = max(size.width, size.height)
        guard longest > 0, longest <= 2 * dimension, file.format == .png || file.format == .jpeg else { return nil }
        let scale = min(1, Double(dimension) / Double(longest))
        let shownPixels = Double(size.width) * scale * Double(size.height) * scale
        guard Double(file.byteCount) <= Self.originalBytesPerPixel * shownPixels, file.looksTheSameInABrowser else { return nil }
        kind = .original
        format = file.format
        bytes = file.contents
    }

    /// What the display copies Gloss makes weigh at most, per pixel shown: a 16-shade PNG of a
    /// printed page 0.05 to 0.1 bytes, a JPEG of a photo 0.1 to 0.2. A file no heavier is shown
    /// as it is.
    public static let originalBytesPerPixel = 0.2

    /// A small JPEG of `raster` for lists of pages.
    public init(thumbnailOf raster: Raster) throws {
        kind = .photo
        format = .jpeg
        bytes = try raster.downsampled(toFit: Self.thumbnailSide).jpegData(quality: Self.thumbnailQuality)
    }

    public var fileExtension: String { format == .png ? "png" : "jpg" }
    public var mediaType: String { format == .png ? "image/png" : "image/jpeg" }

    /// A document is grey (nearly every pixel's channels within 24 of each other) and mostly
    /// paper or ink: under a quarter of its pixels are mid-tones. Typed and printed scans have
    /// 2 to 6% mid-tones; photos, slides on grey and shaded backgrounds 50% and more.
    public static func kind(of raster: Raster) -> Kind {
        // Every other pixel of every other row is plenty for shares of a whole page.
        var sampled = 0, coloured = 0, midTones = 0
        raster.pixels.withUnsafeBufferPointer { pixels in
            let channels = raster.channels
            for y in Swift.stride(from: 0, to: raster.height, by: 2) {
                var offset = y * raster.bytesPerRow
                for _ in Swift.stride(from: 0, to: raster.width, by: 2) {
                    let luma: Int
                    if channels == 3 {
                        let r = Int(pixels[offset]), g = Int(pixels[offset + 1]), b = Int(pixels[offset + 2])
                        if max(r, g, b) - min(r, g, b) >= 24 { coloured += 1 }
                        luma = (299 * r + 587 * g + 114 * b) / 1000
                    } else {
                        luma = Int(pixels[offset])
                    }
                    if luma > 48 && luma < 208 { midTones += 1 }
                    sampled += 1
                    offset += 2 * channels
                }
            }
        }
        guard sampled > 0 else { return .document }
        return coloured * 50 <= sampled && midTones * 4 < sampled ? .document : .photo
    }
}
