import GlossGeometry

/// How much the text copy of a page is enlarged or reduced before Tesseract reads it, and the
/// resolution Tesseract is told, decided from the height of the page's letters.
///
/// Measured on the 29 pages of the Scribe benchmark with the `tesseract` command:
/// - small letters (x-height under 12 px: screenshots, phone photos of receipts, small print)
///   read best enlarged until their x-height is about 16 px, and then told 300 ppi: a
///   screenshot at x-height 7 went from 0.62 (told 300 as it was) to 0.98 F1;
/// - the resolution told matters to the layout analysis: pages that state the placeholder 96
///   ppi read at 0.872 mean F1 told 96 and at 0.894 told 300, so 72 and 96 are not believed
///   (`StatedResolution`, the rule the searchable PDF's page size follows too);
/// - huge letters (x-height of 48 px and more, a 600 ppi scan that states no resolution) are
///   reduced to about 24 px: the recogniser reads lines at a fixed height anyway, and a
///   quarter of the pixels take a quarter of the time.
public struct TextScale: Sendable, Equatable {
    /// The factor both sides of the text copy are multiplied by; 1 leaves it as it is.
    public var factor: Double
    /// Pixels per inch Tesseract is told the copy has, after scaling.
    public var resolution: Int

    public static let smallestXHeight = 12
    public static let enlargedXHeight = 16
    public static let largestXHeight = 48
    public static let reducedXHeight = 24
    /// An enlarged copy holds at most this many pixels: about an A4 page at 600 ppi.
    public static let mostPixels = 36_000_000
    /// The resolution assumed when a file states none, or a placeholder.
    public static let assumedResolution = 300

    public init(factor: Double, resolution: Int) {
        self.factor = factor
        self.resolution = resolution
    }

    /// The scale for a page of `size` whose letters measured `letters` (nil: too few to tell),
    /// and whose file states `statedResolution`.
    public init(letters: LetterSize?, statedResolution: Int?, size: PixelSize) {
        let stated = StatedResolution.believed(statedResolution) ?? Self.assumedResolution
        guard let xHeight = letters.map({ Double($0.xHeight) }), xHeight > 0 else {
            self.init(factor: 1, resolution: stated)
            return
        }
        if xHeight < Double(Self.smallestXHeight) {
            let room = (Double(Self.mostPixels) / Double(max(1, size.width * size.height))).squareRoot()
            let factor = min(Double(Self.enlargedXHeight) / xHeight, room)
            // Letters brought to the size of body text at 300 ppi are told so.
            self.init(factor: max(1, factor), resolution: factor > 1 ? Self.assumedResolution : stated)
        } else if xHeight >= Double(Self.largestXHeight) {
            let factor = Double(Self.reducedXHeight) / xHeight
            self.init(factor: factor, resolution: max(100, Int((Double(stated) * factor).rounded())))
        } else {
            self.init(factor: 1, resolution: stated)
        }
    }

    /// The size of a copy of `size` scaled by `factor`, at least 1 x 1.
    public func scaled(_ size: PixelSize) -> PixelSize {
        PixelSize(width: max(1, Int((Double(size.width) * factor).rounded())),
                  height: max(1, Int((Double(size.height) * factor).rounded())))
    }
}
