import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossReports

/// Where a page's PDF comes from. An input file gets one PDF of all its pages: a single-page
/// file's is written with the page's other files, a multi-page file's once all its pages are
/// done (`PageGraph.writeCombined`). Either way the page is decoded again for it, so that no
/// page's pixels are held through its analysis and a 500-page TIFF is never in memory whole.
enum PagePDF: Sendable {
    /// The page of a single-page file; nil for one that could not be decoded (a blank page).
    case single(PageSource?)
    /// A page of a multi-page file, whose PDF is `pages/<id>.pdf`.
    case combined(id: String)

    /// What the PDF of a decoded page needs of it and of its file.
    struct PageSource: Sendable {
        var decoded: DecodedPage
        var format: ImageFormat
        /// The file's stored size, before orientation: a JPEG embedded as it is must still have it.
        var storedSize: PixelSize
    }

    /// Writes the PDF of `pages` to `path`, atomically, making each page only when its turn comes.
    static func write(to path: String, title: String, context: ReportContext, count: Int,
                      page: (Int) throws -> SearchablePDFPage) throws {
        try AtomicFile.write(to: path) { append in
            var document = try SearchablePDF(context: context, title: title, sink: append)
            for index in 0..<count {
                try Task.checkCancellation()
                try document.add(page(index))
            }
            try document.finish()
        }
    }
}

extension SearchablePDFPage {
    /// The page as its PDF shows it. A JPEG is embedded as the file on disk holds it, read
    /// again from its path (no second loss, and the file's own size), and so is a PNG's
    /// compressed rows where they are smaller than Gloss's; anything else, or a file that
    /// cannot be read again (a URL, a file changed meanwhile, a kind PDF readers do not
    /// decode), as the decoded upright pixels, compressed losslessly.
    init(_ report: PageReport, source: PagePDF.PageSource?) {
        guard let source, report.status == .ok else {
            self.init(report: report, picture: nil, resolution: nil)
            return
        }
        let raster = source.decoded.raster
        // The decoder states the resolution of its raster, which is reduced for a huge image;
        // the report's pixels are the file's.
        let resolution = source.decoded.resolution.map { Double($0) * Double(report.width) / Double(raster.width) }
        let pixels = PDFPicture(width: raster.width, height: raster.height, channels: raster.channels, pixels: raster.pixels)
        var picture = pixels
        if source.format == .jpeg, !RemoteFetcher.isRemote(report.source),
           let bytes = FileManager.default.contents(atPath: report.source),
           let jpeg = PDFPicture.jpeg(Array(bytes), orientation: source.decoded.orientation),
           jpeg.jpegSize == source.storedSize {
            picture = jpeg
        }
        if source.format == .png, source.decoded.orientation == .up, !RemoteFetcher.isRemote(report.source),
           let bytes = FileManager.default.contents(atPath: report.source),
           let png = PDFPicture.png(Array(bytes), pixels: pixels) {
            picture = png
        }
        // A PDF page is drawn at the resolution stated: its size comes back exactly. The pixels
        // stay beside a JPEG for a standard that cannot hold it as it is (CMYK under PDF/A).
        self.init(report: report, picture: picture, resolution: resolution, resolutionIsExact: source.format == .pdf,
                  decodedPicture: picture.isCMYK ? pixels : nil)
    }
}
