import CPoppler
import GlossGeometry
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A PDF opened with Poppler, whose pages are rendered one at a time.
///
/// The document is read from the encoded bytes in place (a mapped file is handed to Poppler
/// without a copy) and owns them for as long as it lives. Poppler's document is not safe to
/// use from two threads at once, so every call into it holds `lock`.
///
/// Gloss itself opens the document only for its pages and their sizes: whatever walks a page's
/// content (its plan, its pixels, its text) runs in `gloss-render` (`PDFRenderProcess`), a
/// process that can be killed when the page is cancelled and whose memory is bounded, so that
/// no page can hold a batch past its timeout or take its memory.
final class PDFDocument: @unchecked Sendable {
    /// How a page becomes pixels: its size in points, the resolution chosen for it, and the
    /// pixel size that gives.
    struct PagePlan: Sendable, Equatable {
        var pointWidth: Double
        var pointHeight: Double
        var resolution: Int
        var size: PixelSize
        /// Whether the page is one full-page scan, rendered at the scan's own resolution.
        var isScan: Bool
        /// The size the scan's image declares, when the plan was made from the page's content.
        var scanImage: PixelSize? = nil
    }

    /// More pages than this are refused on opening, as for TIFF: no real volume holds more, and
    /// a forged page tree can claim millions.
    static let maximumPages = TIFFFile.maximumPages
    /// A full-page scan is rendered at its own resolution up to this; a 1200 ppi scan at 600.
    static let maximumScanResolution = 600
    /// Cairo draws image surfaces of at most this many pixels a side.
    static let cairoSideLimit = 32767
    /// An image covering at least this share of its page makes the page a scan.
    static let scanCoverage = 0.9

    let path: String
    let pageCount: Int
    /// The resolution of pages that are not a single full-page scan (`--pdf-resolution`).
    let resolution: Int
    /// Keeps a mapping alive while Poppler reads it; `gloss-render` reads the same bytes.
    let bytes: EncodedBytes
    private let document: OpaquePointer
    private let lock = Mutex<[Int: PagePlan]>([:])
    /// The plans `gloss-render` drew pages by, for the pixel budget of a page drawn again.
    let drawn = Mutex<[Int: PagePlan]>([:])
    /// Text layers read with a page's pixels, until asked for; a page whose layer was asked for
    /// once keeps none again (a page is drawn again for its searchable PDF).
    let texts = Mutex<(kept: [Int: PDFTextLayer?], read: Set<Int>)>(([:], []))
    /// A descriptor holding the bytes for `gloss-render`: the mapped file's own, or a memory
    /// file written once from a download; opened when a page is first drawn.
    let shared = Mutex<SharedBytes?>(nil)

    /// Opens the PDF in `bytes`: encrypted, damaged and empty documents are refused here with
    /// the reason, as is one claiming more than `maximumPages` pages.
    init(_ bytes: EncodedBytes, path: String, resolution: Int) throws {
        _ = Self.silenced
        let data: OpaquePointer? = switch bytes {
        // The mapping outlives the document (`self.bytes`), so Poppler reads it in place.
        case .file(let file): g_bytes_new_static(file.buffer.baseAddress, gsize(file.count))
        // An array has no stable address to lend: a download is copied once.
        case .memory(let array): array.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        }
        var error: UnsafeMutablePointer<GError>?
        let document = poppler_document_new_from_bytes(data, nil, &error)
        g_bytes_unref(data)
        guard let document else {
            let reason = Self.reason(of: error)
            if let error { g_error_free(error) }
            throw ImagingError(path: path, reason: reason)
        }
        let count = Int(poppler_document_get_n_pages(document))
        guard count > 0, count <= Self.maximumPages else {
            g_object_unref(UnsafeMutableRawPointer(document))
            throw ImagingError(path: path, reason: count == 0 ? .noPages : .tooManyPages(count, limit: Self.maximumPages))
        }
        self.path = path
        self.pageCount = count
        self.resolution = resolution
        self.bytes = bytes
        self.document = document
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(document))
    }

    /// What went wrong in Poppler's words, mapped to Gloss's reasons.
    private static func reason(of error: UnsafeMutablePointer<GError>?) -> ImagingError.Reason {
        guard let error, error.pointee.domain == poppler_error_quark() else {
            return .corrupt("PDF: Poppler could not open the document")
        }
        let message = error.pointee.message.map { String(cString: $0) } ?? "no detail"
        switch UInt32(bitPattern: error.pointee.code) {
        case POPPLER_ERROR_ENCRYPTED.rawValue: return .encrypted
        case POPPLER_ERROR_BAD_CATALOG.rawValue: return .corrupt("PDF: the document catalog cannot be read (\(message))")
        // Poppler's own words ("PDF document is damaged") say it already.
        default: return .corrupt(message.contains("PDF") ? message : "PDF: \(message)")
        }
    }

    /// Poppler prints every syntax problem of a damaged file on stderr; its glib API has no
    /// switch for that. The C++ library's `setErrorCallback` does, and is exported: Gloss
    /// installs a callback that drops the messages (each failure is reported as one line of its
    /// own). If the symbol is missing (another Poppler), the messages go to stderr as before.
    private static let silenced: Void = {
        let mangled = "_Z16setErrorCallbackPFv13ErrorCategoryxPKcE"
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), mangled) else { return }
        typealias Callback = @convention(c) (Int32, Int64, UnsafePointer<CChar>?) -> Void
        typealias Setter = @convention(c) (Callback) -> Void
        unsafeBitCast(symbol, to: Setter.self)({ _, _, _ in })
    }()

    /// Runs `body` with page `index` of the document, under the lock.
    private func withPage<Result>(_ index: Int, _ body: (OpaquePointer, inout [Int: PagePlan]) throws -> Result) throws -> Result {
        try lock.withLock { plans in
            guard let page = poppler_document_get_page(document, Int32(index)) else {
                throw ImagingError(path: path, reason: .corrupt("PDF: page \(index + 1) cannot be read from the page tree"))
            }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            return try body(page, &plans)
        }
    }

    /// The pixel size page `index` has at `resolution`, from its size alone: nothing of its
    /// content is read. A page that `gloss-render` drew already has the plan it was drawn by.
    func estimate(page index: Int) throws -> PagePlan {
        if let known = drawn.withLock({ $0[index] }) { return known }
        return try withPage(index) { page, _ in
            let (width, height) = try size(of: page, index: index)
            return PagePlan(pointWidth: width, pointHeight: height, resolution: resolution,
                            size: Self.pixels(width, height, at: resolution), isScan: false)
        }
    }

    /// Records the plan `gloss-render` drew page `index` by.
    func remember(_ plan: PagePlan, page index: Int) {
        drawn.withLock { $0[index] = plan }
    }

    private func size(of page: OpaquePointer, index: Int) throws -> (Double, Double) {
        var width = 0.0, height = 0.0
        poppler_page_get_size(page, &width, &height)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw ImagingError(path: path, reason: .corrupt("PDF: page \(index + 1) has no size"))
        }
        return (width, height)
    }

    private static func pixels(_ width: Double, _ height: Double, at resolution: Int) -> PixelSize {
        // Capped before the conversion, which traps past Int's range (a MediaBox of 1e20
        // points): any side this long is far over every pixel limit.
        func side(_ points: Double) -> Int { max(1, Int(min((points * Double(resolution) / 72).rounded(), 1e12))) }
        return PixelSize(width: side(width), height: side(height))
    }

    /// The resolution and pixel size page `index` is rendered at; no pixels are drawn. A page
    /// holding one image that covers it (a scan) keeps the image's resolution, up to
    /// `maximumScanResolution`; any other page is drawn at `resolution`. It reads the page's
    /// content: `gloss-render` calls it, never Gloss.
    func plan(page index: Int) throws -> PagePlan {
        try withPage(index) { page, plans in
            if let known = plans[index] { return known }
            let (width, height) = try size(of: page, index: index)
            let scan = Self.scan(of: page, pageArea: width * height)
            let resolution = scan?.resolution ?? self.resolution
            let size = Self.pixels(width, height, at: resolution)
            let plan = PagePlan(pointWidth: width, pointHeight: height, resolution: resolution, size: size, isScan: scan != nil,
                                scanImage: scan?.image)
            plans[index] = plan
            return plan
        }
    }

    /// The resolution of the one image covering most of the page, or nil when no image does.
    ///
    /// The glib API maps where images are drawn but not their pixel sizes. Asked for the image,
    /// Poppler first asks Cairo for a surface of its declared size: `SurfaceGate` notes that
    /// size and refuses every surface, so nothing of the image is decoded. Its resolution is
    /// taken over its whole drawn area (the geometric mean of both axes), so a scan drawn
    /// turned by 90 degrees reads the same.
    private static func scan(of page: OpaquePointer, pageArea: Double) -> (resolution: Int, image: PixelSize)? {
        guard let mappings = poppler_page_get_image_mapping(page) else { return nil }
        defer { poppler_page_free_image_mapping(mappings) }
        var largest: (id: Int32, area: Double)?
        var node: UnsafeMutablePointer<GList>? = mappings
        while let current = node {
            if let data = current.pointee.data {
                let mapping = data.assumingMemoryBound(to: PopplerImageMapping.self).pointee
                let area = abs(mapping.area.x2 - mapping.area.x1) * abs(mapping.area.y2 - mapping.area.y1)
                if area >= pageArea * scanCoverage, area > largest?.area ?? 0 { largest = (mapping.image_id, area) }
            }
            node = current.pointee.next
        }
        guard let largest else { return nil }
        let (_, asked) = SurfaceGate.shared.measuring {
            if let surface = poppler_page_get_image(page, largest.id) { cairo_surface_destroy(surface) }
        }
        guard let declared = asked.first, declared.pixelCount > 0 else { return nil }
        let pixels = Double(declared.pixelCount)
        let perInch = (pixels / (largest.area / (72 * 72))).squareRoot()
        guard perInch.isFinite else { return nil }
        return (max(1, Int(min(perInch, Double(maximumScanResolution)).rounded())), declared)
    }

    /// Draws page `index` as its plan says, on white (in `gloss-render`). Refuses, before
    /// drawing, a page whose pixels are above `pixelLimit` or wider than Cairo can draw, and,
    /// before decoding it, an image the page draws whose declared size is above `pixelLimit`.
    func render(page index: Int, pixelLimit: Int) throws -> (Raster, PagePlan) {
        let plan = try plan(page: index)
        let size = plan.size
        if let image = plan.scanImage, image.pixelCount > pixelLimit {
            throw ImagingError(path: path, reason: .drawsTooLargeImage(width: image.width, height: image.height, limit: pixelLimit))
        }
        guard size.pixelCount <= pixelLimit else {
            throw ImagingError(path: path, reason: .tooLarge(width: size.width, height: size.height, limit: pixelLimit))
        }
        guard size.width <= Self.cairoSideLimit, size.height <= Self.cairoSideLimit else {
            throw ImagingError(path: path, reason: .tooLargeForDecoder(
                width: size.width, height: size.height, limit: Self.cairoSideLimit * Self.cairoSideLimit,
                why: "Cairo draws at most \(Self.cairoSideLimit) pixels a side"))
        }
        let raster = try withPage(index) { page, _ in
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(size.width), Int32(size.height)),
                  cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                throw ImagingError(path: path, reason: .corrupt("PDF: no memory to draw page \(index + 1) at \(size)"))
            }
            defer { cairo_surface_destroy(surface) }
            let context = cairo_create(surface)
            cairo_set_source_rgb(context, 1, 1, 1)
            cairo_paint(context)
            cairo_scale(context, Double(size.width) / plan.pointWidth, Double(size.height) / plan.pointHeight)
            let (_, refused) = SurfaceGate.shared.limiting(to: pixelLimit) { poppler_page_render(page, context) }
            let status = cairo_status(context)
            cairo_destroy(context)
            cairo_surface_flush(surface)
            if let image = refused.max(by: { $0.pixelCount < $1.pixelCount }) {
                throw ImagingError(path: path, reason: .drawsTooLargeImage(width: image.width, height: image.height, limit: pixelLimit))
            }
            // Cairo stops drawing on its first failure (a group it had no memory for): the page
            // would be missing what came after.
            guard status == CAIRO_STATUS_SUCCESS else {
                throw ImagingError(path: path, reason: .renderFailed("Cairo: " + String(cString: cairo_status_to_string(status))))
            }
            guard let data = cairo_image_surface_get_data(surface) else {
                throw ImagingError(path: path, reason: .corrupt("PDF: page \(index + 1) could not be drawn"))
            }
            return Self.raster(data, size: size, stride: Int(cairo_image_surface_get_stride(surface)))
        }
        return (raster, plan)
    }

    /// Cairo's 32-bit pixels (0x00RRGGBB in native order) as grey when every pixel is, else RGB.
    private static func raster(_ data: UnsafeMutablePointer<UInt8>, size: PixelSize, stride: Int) -> Raster {
        let width = size.width, height = size.height
        func row(_ y: Int) -> UnsafeBufferPointer<UInt32> {
            UnsafeBufferPointer(start: UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self), count: width)
        }
        var grey = true
        rows: for y in 0..<height {
            for pixel in row(y) where (pixel >> 16) & 0xFF != pixel & 0xFF || (pixel >> 8) & 0xFF != pixel & 0xFF {
                grey = false
                break rows
            }
        }
        let layout: Raster.Layout = grey ? .gray : .rgb
        var pixels = [UInt8](repeating: 0, count: width * height * layout.rawValue)
        pixels.withUnsafeMutableBufferPointer { target in
            var at = 0
            for y in 0..<height {
                for pixel in row(y) {
                    if grey {
                        target[at] = UInt8(truncatingIfNeeded: pixel)
                        at += 1
                    } else {
                        target[at] = UInt8(truncatingIfNeeded: pixel >> 16)
                        target[at + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                        target[at + 2] = UInt8(truncatingIfNeeded: pixel)
                        at += 3
                    }
                }
            }
        }
        return Raster(width: width, height: height, layout: layout, pixels: pixels)
    }

    /// The text page `index` already holds as Poppler gives it (in `gloss-render`): its
    /// characters, one box per character when Poppler lays them out, and the page's size in
    /// points; nil when it holds no text.
    func rawText(page index: Int) throws -> PDFRawText? {
        try withPage(index) { page, _ in
            var width = 0.0, height = 0.0
            poppler_page_get_size(page, &width, &height)
            guard let raw = poppler_page_get_text(page) else { return nil }
            let text = String(cString: raw)
            g_free(raw)
            guard text.contains(where: { !$0.isWhitespace }) else { return nil }
            var rectangles: UnsafeMutablePointer<PopplerRectangle>?
            var count: guint = 0
            guard poppler_page_get_text_layout(page, &rectangles, &count) != 0, let rectangles else {
                return PDFRawText(text: text, boxes: nil, page: (width, height))
            }
            defer { g_free(rectangles) }
            let boxes = UnsafeBufferPointer(start: rectangles, count: Int(count))
            return PDFRawText(text: text, boxes: boxes.flatMap { [$0.x1, $0.y1, $0.x2, $0.y2] }, page: (width, height))
        }
    }
}

/// A page's text as Poppler gives it: `boxes` holds four numbers per character (x1, y1, x2,
/// y2 in points, origin top left), nil when Poppler gave no layout.
struct PDFRawText: Sendable {
    var text: String
    var boxes: [Double]?
    var page: (width: Double, height: Double)

    var layer: PDFTextLayer {
        guard let boxes else { return PDFTextLayer(text: text, lines: []) }
        var rectangles: [(x1: Double, y1: Double, x2: Double, y2: Double)] = []
        rectangles.reserveCapacity(boxes.count / 4)
        for start in stride(from: 0, to: boxes.count - 3, by: 4) {
            rectangles.append((boxes[start], boxes[start + 1], boxes[start + 2], boxes[start + 3]))
        }
        return PDFTextLayer(text: text, boxes: rectangles, page: page)
    }
}

/// The text a PDF page already holds (as an OCR tool or a word processor wrote it), with word
/// boxes in the normalised currency (0...1, origin bottom left).
public struct PDFTextLayer: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var text: String
        public var box: NormalizedRect
    }

    /// The page's text as Poppler reads it, lines separated by newlines.
    public var text: String
    /// Words in reading order, grouped into lines.
    public var lines: [[Word]]

    init(text: String, lines: [[Word]]) {
        self.text = text
        self.lines = lines
    }

    /// Splits `text` into lines and words; `boxes` holds one rectangle per character (in points,
    /// origin top left), as Poppler's text layout gives them. Without one box per character the
    /// words cannot be placed, and the layer keeps its text alone.
    init(text: String, boxes: [(x1: Double, y1: Double, x2: Double, y2: Double)], page: (width: Double, height: Double)) {
        // Poppler wraps a right-to-left run in embedding marks that have no box of their own;
        // without them, the characters and the boxes agree again.
        let characters = text.unicodeScalars.filter { !Self.isDirectionMark($0) }
        self.text = String(String.UnicodeScalarView(characters))
        guard characters.count == boxes.count else {
            lines = []
            return
        }
        var lines: [[Word]] = [], line: [Word] = []
        var word = "", box: (x1: Double, y1: Double, x2: Double, y2: Double)?
        func endWord() {
            guard let found = box, !word.isEmpty else { return }
            let normalized = NormalizedRect(x: found.x1 / page.width, y: 1 - found.y2 / page.height,
                                            width: (found.x2 - found.x1) / page.width,
                                            height: (found.y2 - found.y1) / page.height)
            line.append(Word(text: word, box: normalized))
            word = ""
            box = nil
        }
        for (character, rectangle) in zip(characters, boxes) {
            if character == "\n" {
                endWord()
                if !line.isEmpty { lines.append(line) }
                line = []
            } else if character.properties.isWhitespace {
                endWord()
            } else {
                word.unicodeScalars.append(character)
                // Cut to the page: a font a hundred quintillion points tall (any number a
                // content stream states) gives boxes of infinite or NaN size, and nothing off
                // the page is seen anyway.
                func onPage(_ value: Double, _ limit: Double) -> Double { value.isNaN ? 0 : min(max(value, 0), limit) }
                let (ax, bx) = (onPage(rectangle.x1, page.width), onPage(rectangle.x2, page.width))
                let (ay, by) = (onPage(rectangle.y1, page.height), onPage(rectangle.y2, page.height))
                let x1 = min(ax, bx), x2 = max(ax, bx), y1 = min(ay, by), y2 = max(ay, by)
                box = box.map { (min($0.x1, x1), min($0.y1, y1), max($0.x2, x2), max($0.y2, y2)) } ?? (x1, y1, x2, y2)
            }
        }
        endWord()
        if !line.isEmpty { lines.append(line) }
        self.lines = lines
    }

    /// The invisible marks that set the direction of the text around them (LRM, RLM, the
    /// embeddings and overrides, the isolates): layout, not characters of a word.
    static func isDirectionMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
