import GlossImaging

/// What a page view shows under its overlay.
enum PageDisplay: Sendable {
    /// A copy at the display size, encoded when the page's files are written.
    case copy(Raster)
    /// The input file itself, and a small copy of it for the thumbnail.
    case original(DisplayPicture, thumbnail: Raster)
}

/// The copies of a page that its analyzers and its page view read, each made once.
struct PageCopies: Sendable {
    /// One per distinct request of the analyzers.
    var images: [ImageRequest: AnalyzerImage] = [:]
    /// For people: the picture under the report's overlay; nil when no page view shows one.
    var display: PageDisplay?

    /// The analyzers' copies are made from `page`; the display copy from `input` when the page
    /// was turned before its analyzers read it (the report shows the input, with its boxes).
    /// With an `original` picture, the input file itself is shown and no display copy is made.
    init(of page: DecodedPage, input: DecodedPage? = nil, for requests: Set<ImageRequest>, displayDimension: Int?,
         original: DisplayPicture? = nil) {
        let shown = (input ?? page).raster
        if let original {
            display = .original(original, thumbnail: shown.downsampled(toFit: DisplayPicture.thumbnailSide))
        } else {
            display = displayDimension.map { .copy(shown.downsampled(toFit: $0)) }
        }
        let displayShowsPage = input == nil
        for request in requests { images[request] = copy(of: page, for: request, displayShowsPage: displayShowsPage) }
    }

    /// The display copy, when one was made.
    private var displayCopy: Raster? {
        if case .copy(let raster) = display { return raster }
        return nil
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
            let source = displayShowsPage && displayCopy.map { max($0.width, $0.height) >= longestSide } == true ? displayCopy! : raster
            let scaled = source.downsampled(toFit: longestSide)
            resolution = resolution.map { Int((Double($0) * Double(scaled.width) / Double(raster.width)).rounded()) }
            raster = scaled
        }
        if request.layout == .gray { raster = raster.grayscale() }
        return AnalyzerImage(raster: raster, resolution: resolution)
    }
}
