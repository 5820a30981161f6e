/// A rectangle in a PDF's default user space (points, origin at the bottom left).
public struct PDFRectangle: Sendable, Hashable {
    public var x0, y0, x1, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
    }

    public var width: Double { x1 - x0 }
    public var height: Double { y1 - y0 }

    /// The part shared with `other`, or nil when they do not overlap.
    func intersection(_ other: PDFRectangle) -> PDFRectangle? {
        let shared = PDFRectangle(x0: max(x0, other.x0), y0: max(y0, other.y0), x1: min(x1, other.x1), y1: min(y1, other.y1))
        return shared.width > 0 && shared.height > 0 ? shared : nil
    }
}

/// What places a page's pictures and text: its boxes (inherited ones resolved, each within the
/// one it must lie in) and its `/Rotate`, a multiple of 90 degrees clockwise.
public struct PDFPageGeometry: Sendable, Hashable {
    public var mediaBox: PDFRectangle
    /// What a viewer shows, and what Poppler draws for Gloss to read.
    public var cropBox: PDFRectangle
    /// Where qpdf places an overlay: the crop box unless the page has its own.
    public var trimBox: PDFRectangle
    public var rotation: Int

    public init(mediaBox: PDFRectangle, cropBox: PDFRectangle, trimBox: PDFRectangle, rotation: Int) {
        self.mediaBox = mediaBox
        self.cropBox = cropBox
        self.trimBox = trimBox
        self.rotation = ((rotation % 360) + 360) % 360 / 90 * 90
    }

    /// The crop box's size as the page is shown, turned by its rotation.
    public var shownSize: (width: Double, height: Double) {
        rotation % 180 == 0 ? (cropBox.width, cropBox.height) : (cropBox.height, cropBox.width)
    }

    /// A point of user space as the page shows it: from the bottom left of the crop box turned
    /// by `/Rotate` (clockwise), in points.
    func shown(x: Double, y: Double) -> (x: Double, y: Double) {
        let box = cropBox
        switch rotation {
        case 90: return (y - box.y0, box.x1 - x)
        case 180: return (box.x1 - x, box.y1 - y)
        case 270: return (box.y1 - y, x - box.x0)
        default: return (x - box.x0, y - box.y0)
        }
    }

    /// Where the words of a page read from `pixelWidth` by `pixelHeight` pixels (the shown crop
    /// box, as Poppler draws it) go on the page of a text layer that qpdf's overlay lays over
    /// this page. qpdf fits the layer page, turned upright, to the trim box; so the layer page
    /// is the trim box as shown, and the pixels' top left corner is the crop box's, as shown,
    /// measured from the layer page's bottom left.
    public func textLayerFrame(pixelWidth: Int, pixelHeight: Int) -> TextLayerFrame {
        let corners = [shown(x: trimBox.x0, y: trimBox.y0), shown(x: trimBox.x1, y: trimBox.y1)]
        let left = min(corners[0].x, corners[1].x), bottom = min(corners[0].y, corners[1].y)
        let right = max(corners[0].x, corners[1].x), top = max(corners[0].y, corners[1].y)
        let size = shownSize
        return TextLayerFrame(width: right - left, height: top - bottom,
                              pointsPerPixel: size.width / Double(max(pixelWidth, 1)),
                              pictureLeft: -left, pictureTop: size.height - bottom)
    }
}

/// A page of a text layer and where a page's pixels lie on it, in points.
public struct TextLayerFrame: Sendable, Hashable {
    /// The layer page's size.
    public var width, height: Double
    public var pointsPerPixel: Double
    /// The pixels' top left corner, from the layer page's bottom left.
    public var pictureLeft, pictureTop: Double
}
