// The edge between the normalised currency (bottom-left origin) and pixels (top-left origin).
// Every conversion in Gloss goes through these four initialisers, so the flip of the y axis is
// written exactly once.

extension PixelRect {
    /// The pixel rectangle that `rect` covers in an image of `size`.
    ///
    /// Each edge is rounded on its own, so rectangles that share an edge in normalised space
    /// still share it in pixels.
    ///
    /// An edge far off the page (a damaged record's) stops a page's width or height beyond it,
    /// and a NaN edge is taken as 0, so that a conversion never traps.
    public init(_ rect: NormalizedRect, in size: PixelSize) {
        let w = Double(size.width), h = Double(size.height)
        func sane(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, -1), 2) }
        let left = Int((sane(rect.minX) * w).rounded())
        let right = Int((sane(rect.maxX) * w).rounded())
        let top = Int(((1 - sane(rect.maxY)) * h).rounded())
        let bottom = Int(((1 - sane(rect.minY)) * h).rounded())
        self.init(x: left, y: top, width: right - left, height: bottom - top)
    }
}

extension NormalizedRect {
    /// The normalised rectangle of a pixel rectangle in an image of `size`.
    public init(_ rect: PixelRect, in size: PixelSize) {
        let w = Double(size.width), h = Double(size.height)
        self.init(
            x: Double(rect.x) / w,
            y: 1 - Double(rect.maxY) / h,
            width: Double(rect.width) / w,
            height: Double(rect.height) / h
        )
    }
}

extension PixelPoint {
    /// The pixel position of `point` in an image of `size`.
    public init(_ point: NormalizedPoint, in size: PixelSize) {
        self.init(x: point.x * Double(size.width), y: (1 - point.y) * Double(size.height))
    }
}

extension NormalizedPoint {
    /// The normalised position of a pixel position in an image of `size`.
    public init(_ point: PixelPoint, in size: PixelSize) {
        self.init(x: point.x / Double(size.width), y: 1 - point.y / Double(size.height))
    }
}
