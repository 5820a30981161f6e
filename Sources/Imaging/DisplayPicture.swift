/// The picture of a page a person looks at in the report, encoded for what it shows.
///
/// A 2000 px page as an 8-bit PNG is 0.5 MB for a grey scan and 3 to 6 MB for a photo, which is
/// fine from a local disk and unusable from a shared drive or a web server. Documents become a
/// 16-shade palette PNG (sharp type, no JPEG ringing, half the bytes); photos, and pages in
/// colour or with large mid-tone areas, a JPEG. The choice and the quality were measured on
/// 62 real pages (bench/images.sh and the README's table).
public struct DisplayPicture: Sendable {
    public enum Kind: String, Sendable {
        case document, photo
    }

    public var kind: Kind
    public var bytes: [UInt8]

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
        switch kind {
        case .document: bytes = try raster.posterizedPNGData(levels: 16, fast: true)
        case .photo: bytes = try raster.jpegData(quality: Self.photoQuality)
        }
    }

    /// A small JPEG of `raster` for lists of pages.
    public init(thumbnailOf raster: Raster) throws {
        kind = .photo
        bytes = try raster.downsampled(toFit: Self.thumbnailSide).jpegData(quality: Self.thumbnailQuality)
    }

    public var fileExtension: String { kind == .document ? "png" : "jpg" }
    public var mediaType: String { kind == .document ? "image/png" : "image/jpeg" }

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
