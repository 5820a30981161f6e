/// How the stored pixels of an image must be turned to show it upright: the eight values of the
/// EXIF/TIFF Orientation tag, named as Core Graphics names them.
public enum Orientation: Int, CaseIterable, Sendable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// True when showing the image swaps its width and height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The size of the upright image for stored pixels of `size`.
    public func uprightSize(of size: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: size.height, height: size.width) : size
    }

    /// Where a stored position lands in the upright image. Both are in unit coordinates with a
    /// top-left origin (u to the right, v down), the frame in which EXIF defines the tag.
    func uprightUnit(u: Double, v: Double) -> (u: Double, v: Double) {
        switch self {
        case .up: (u, v)
        case .upMirrored: (1 - u, v)
        case .down: (1 - u, 1 - v)
        case .downMirrored: (u, 1 - v)
        case .leftMirrored: (v, u)
        case .right: (1 - v, u)
        case .rightMirrored: (1 - v, 1 - u)
        case .left: (v, 1 - u)
        }
    }

    /// The stored pixel that shows at upright pixel (`x`, `y`), for stored pixels of `size`.
    /// Imaging uses this to turn rasters, so pixels and rectangles can never disagree.
    public func storedPixel(atUpright x: Int, _ y: Int, storedSize size: PixelSize) -> (x: Int, y: Int) {
        let w = size.width, h = size.height
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - 1 - x)
        case .rightMirrored: return (w - 1 - y, h - 1 - x)
        case .left: return (w - 1 - y, x)
        }
    }

    /// The position in the upright image of a point given in the stored image.
    public func upright(_ point: NormalizedPoint) -> NormalizedPoint {
        guard self != .up else { return point }
        let p = uprightUnit(u: point.x, v: 1 - point.y)
        return NormalizedPoint(x: p.u, y: 1 - p.v)
    }

    /// The rectangle in the upright image of a rectangle given in the stored image.
    public func upright(_ rect: NormalizedRect) -> NormalizedRect {
        guard self != .up else { return rect }
        let a = upright(NormalizedPoint(x: rect.minX, y: rect.minY))
        let b = upright(NormalizedPoint(x: rect.maxX, y: rect.maxY))
        return NormalizedRect(
            x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x), height: abs(a.y - b.y)
        )
    }
}
