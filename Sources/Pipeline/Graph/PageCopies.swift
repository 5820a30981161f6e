import GlossImaging

/// The copies of a page that its analyzers and its page view read, each made once.
struct PageCopies: Sendable {
    /// One per distinct request of the analyzers.
    var images: [ImageRequest: AnalyzerImage] = [:]
    /// For people: the picture under the report's overlay; nil when no page view shows one.
    var display: Raster?

    /// The analyzers' copies are made from `page`; the display copy from `input` when the page
    /// was turned before its analyzers read it (the report shows the input, with its boxes).
    init(of page: DecodedPage, input: DecodedPage? = nil, for requests: Set<ImageRequest>, displayDimension: Int?) {
        display = displayDimension.map { (input ?? page).raster.downsampled(toFit: $0) }
        let displayShowsPage = input == nil
        for request in requests { images[request] = copy(of: page, for: request, displayShowsPage: displayShowsPage) }
    }

    private func copy(of page: DecodedPage, for request: ImageRequest, displayShowsPage: Bool) -> AnalyzerImage {
        var raster = page.raster, resolution = page.resolution
        if let maximum = request.maximumResolution, let stated = resolution, stated > maximum * 4 / 3 {
            let scale = Double(maximum) / Double(stated)
            // Straight to grey when grey is asked for: no colour copy of the page in between.
            raster = raster.resampled(width: max(1, Int((Double(raster.width) * scale).rounded())),
                                      height: max(1, Int((Double(raster.height) * scale).rounded())),
                                      grey: request.layout == .gray)
            resolution = maximum
        }
        if let longestSide = request.longestSide, max(raster.width, raster.height) > longestSide {
            // A display copy at least as large holds every pixel this copy needs, and is smaller to read.
            let source = displayShowsPage && display.map { max($0.width, $0.height) >= longestSide } == true ? display! : raster
            let scaled = source.downsampled(toFit: longestSide)
            resolution = resolution.map { Int((Double($0) * Double(scaled.width) / Double(raster.width)).rounded()) }
            raster = scaled
        }
        if request.layout == .gray { raster = raster.grayscale() }
        return AnalyzerImage(raster: raster, resolution: resolution)
    }
}
