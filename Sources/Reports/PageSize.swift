import GlossGeometry

/// The size of a searchable PDF's page, in points (72 an inch), from its picture's size in
/// pixels and a resolution Gloss believes.
///
/// - A resolution that is exact (a PDF page drawn at it) or that the file states and
///   `StatedResolution` believes (100 to 4800 ppi) gives the picture's size at it.
/// - Without one (none stated, or a placeholder 72 or 96), the page is a paper size fitted to
///   the picture: A4 or Letter, turned the way the picture is (portrait when it is at least as
///   tall as wide), whichever of the two the picture covers more of at the largest size that
///   fits in it. The page is that fitted size, so it keeps the picture's aspect ratio and one
///   side is the paper's: pictures whose long side is more than 1.353 times their short side
///   (the geometric mean of A4's 1.414 and Letter's 1.294) fit A4, squarer ones Letter.
///
/// Either way a side is kept within the 3 to 14,400 points that readers accept (ISO 32000-1,
/// Annex C.2).
public enum PDFPageSize {
    /// A paper size, portrait, in points.
    public struct Paper: Sendable, Equatable {
        public var name: String
        public var width: Double
        public var height: Double

        /// 210 x 297 mm.
        public static let a4 = Paper(name: "A4", width: 595.276, height: 841.89)
        /// 8.5 x 11 inches.
        public static let letter = Paper(name: "Letter", width: 612, height: 792)
        /// The papers a picture without a believable resolution is fitted to.
        public static let fitted = [a4, letter]
    }

    /// The page of a picture of `size` pixels: width and height in points, and the points each
    /// pixel spans. `resolution` is the pixels per inch; `exact` says it is known (a drawn PDF
    /// page) rather than stated by the file.
    public static func of(_ size: PixelSize, resolution: Double?, exact: Bool = false) -> (width: Double, height: Double, pointsPerPixel: Double) {
        guard size.width > 0, size.height > 0 else { return (Paper.a4.width, Paper.a4.height, 1) }  // a page with no picture
        let believed = exact ? resolution.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } : StatedResolution.believed(resolution)
        let scale = believed.map { 72 / $0 } ?? fitted(size).pointsPerPixel
        let shortest = Double(min(size.width, size.height)), longest = Double(max(size.width, size.height))
        let kept = min(max(scale, 3 / shortest), 14_400 / longest)
        return (Double(size.width) * kept, Double(size.height) * kept, kept)
    }

    /// The paper a picture of `size` pixels is fitted to, and the points per pixel that fit it.
    public static func fitted(_ size: PixelSize) -> (paper: Paper, pointsPerPixel: Double) {
        let width = Double(max(size.width, 1)), height = Double(max(size.height, 1))
        let portrait = height >= width
        var best: (paper: Paper, pointsPerPixel: Double, covered: Double)?
        for paper in Paper.fitted {
            let (paperWidth, paperHeight) = portrait ? (paper.width, paper.height) : (paper.height, paper.width)
            let scale = min(paperWidth / width, paperHeight / height)
            let covered = width * scale * height * scale / (paperWidth * paperHeight)
            if best.map({ covered > $0.covered }) ?? true { best = (paper, scale, covered) }
        }
        return best.map { ($0.paper, $0.pointsPerPixel) } ?? (Paper.a4, 1)
    }
}
