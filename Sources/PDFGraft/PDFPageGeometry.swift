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

/// What places a page's text: its crop box (inherited or not, within its media box), which is
/// what a viewer shows and what Poppler draws for Gloss to read, and its `/Rotate`, a multiple
/// of 90 degrees clockwise.
public struct PDFPageGeometry: Sendable, Hashable {
    public var cropBox: PDFRectangle
    public var rotation: Int

    public init(cropBox: PDFRectangle, rotation: Int) {
        self.cropBox = cropBox
        self.rotation = ((rotation % 360) + 360) % 360 / 90 * 90
    }

    /// The crop box's size as the page is shown, turned by its rotation.
    public var shownSize: (width: Double, height: Double) {
        rotation % 180 == 0 ? (cropBox.width, cropBox.height) : (cropBox.height, cropBox.width)
    }

    /// The `cm` matrix that takes a point of the page as shown (points from the bottom left of
    /// the crop box turned upright) to user space: the inverse of the page's rotation, then the
    /// crop box's corner.
    public var shownToUserSpace: [Double] {
        let box = cropBox
        switch rotation {
        case 90: return [0, 1, -1, 0, box.x1, box.y0]
        case 180: return [-1, 0, 0, -1, box.x1, box.y1]
        case 270: return [0, -1, 1, 0, box.x0, box.y1]
        default: return [1, 0, 0, 1, box.x0, box.y0]
        }
    }

    /// The page of a text layer for this page, read from `pixelWidth` pixels across as shown
    /// (Poppler draws the shown crop box): its size is the shown page's, the pixels cover it
    /// from its top left, and `shownToUserSpace` places it on the page.
    public func textLayerFrame(pixelWidth: Int) -> TextLayerFrame {
        let size = shownSize
        return TextLayerFrame(width: size.width, height: size.height, pointsPerPixel: size.width / Double(max(pixelWidth, 1)),
                              pictureLeft: 0, pictureTop: size.height)
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
