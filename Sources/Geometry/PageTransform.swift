import Foundation

/// How a page was turned before its analyzers read it: a quarter turn so its text stands
/// upright, then a small rotation that levels its lines, on a canvas grown to hold the whole
/// page. Analyzers report in the prepared page; reports speak of the input page, and this
/// value carries positions between the two, so every finding lands where it is in the file.
///
/// Positions in pixels here are continuous, origin top left: pixel (0, 0) covers 0..<1.
public struct PageTransform: Hashable, Sendable {
    /// Quarter turns clockwise that stood the input upright: 0, 1, 2 or 3.
    public let quarterTurns: Int
    /// Degrees the upright page was then turned to level its lines, counter-clockwise positive
    /// as the page is seen.
    public let skew: Double
    /// The input raster's size, in pixels.
    public let inputSize: PixelSize
    /// The prepared raster's size: the input turned, then grown to hold the levelled page.
    public let preparedSize: PixelSize

    /// The transform that turns a page of `inputSize` by `quarterTurns` clockwise quarter
    /// turns (any integer, taken modulo 4), then by `skew` degrees counter-clockwise.
    public init(quarterTurns: Int = 0, skew: Double = 0, inputSize: PixelSize) {
        let turns = ((quarterTurns % 4) + 4) % 4
        self.quarterTurns = turns
        self.skew = skew
        self.inputSize = inputSize
        let upright = turns % 2 == 1 ? PixelSize(width: inputSize.height, height: inputSize.width) : inputSize
        if skew == 0 {
            preparedSize = upright
        } else {
            let radians = skew * .pi / 180
            let c = abs(cos(radians)), s = abs(sin(radians))
            let w = Double(upright.width), h = Double(upright.height)
            // The bounding box of the turned page, rounded down a little so float noise on a
            // whole number does not add a column of white.
            preparedSize = PixelSize(width: Int((w * c + h * s - 1e-6).rounded(.up)),
                                     height: Int((w * s + h * c - 1e-6).rounded(.up)))
        }
    }

    /// Nothing turned: positions are the same on both pages.
    public static func identity(_ size: PixelSize) -> PageTransform { PageTransform(inputSize: size) }

    public var isIdentity: Bool { quarterTurns == 0 && skew == 0 }

    /// Degrees the input was turned clockwise to stand upright: 0, 90, 180 or 270.
    public var rotation: Int { quarterTurns * 90 }

    /// The size of the input once turned upright, before levelling.
    private var uprightSize: PixelSize {
        quarterTurns % 2 == 1 ? PixelSize(width: inputSize.height, height: inputSize.width) : inputSize
    }

    // MARK: Pixels

    /// Where a position of the input page is on the prepared page, in pixels.
    public func preparedPixel(ofInput point: PixelPoint) -> PixelPoint {
        levelled(turned(point))
    }

    /// Where a position of the prepared page is on the input page, in pixels. Positions in the
    /// white margin the levelling added fall outside the input.
    public func inputPixel(ofPrepared point: PixelPoint) -> PixelPoint {
        unturned(unlevelled(point))
    }

    /// Input to upright: the quarter turns, clockwise.
    private func turned(_ p: PixelPoint) -> PixelPoint {
        let w = Double(inputSize.width), h = Double(inputSize.height)
        switch quarterTurns {
        case 1: return PixelPoint(x: h - p.y, y: p.x)
        case 2: return PixelPoint(x: w - p.x, y: h - p.y)
        case 3: return PixelPoint(x: p.y, y: w - p.x)
        default: return p
        }
    }

    /// Upright to input: the quarter turns undone.
    private func unturned(_ p: PixelPoint) -> PixelPoint {
        let w = Double(inputSize.width), h = Double(inputSize.height)
        switch quarterTurns {
        case 1: return PixelPoint(x: p.y, y: h - p.x)
        case 2: return PixelPoint(x: w - p.x, y: h - p.y)
        case 3: return PixelPoint(x: w - p.y, y: p.x)
        default: return p
        }
    }

    /// Upright to prepared: turned counter-clockwise by `skew` about the centre, which moves
    /// to the centre of the grown canvas. With y pointing down, a turn that looks
    /// counter-clockwise is x' = x cos + y sin, y' = -x sin + y cos.
    private func levelled(_ p: PixelPoint) -> PixelPoint {
        guard skew != 0 else { return p }
        let (c, s) = cosSin
        let upright = uprightSize
        let dx = p.x - Double(upright.width) / 2, dy = p.y - Double(upright.height) / 2
        return PixelPoint(x: dx * c + dy * s + Double(preparedSize.width) / 2,
                          y: -dx * s + dy * c + Double(preparedSize.height) / 2)
    }

    /// Prepared to upright: the levelling undone.
    private func unlevelled(_ p: PixelPoint) -> PixelPoint {
        guard skew != 0 else { return p }
        let (c, s) = cosSin
        let upright = uprightSize
        let dx = p.x - Double(preparedSize.width) / 2, dy = p.y - Double(preparedSize.height) / 2
        return PixelPoint(x: dx * c - dy * s + Double(upright.width) / 2,
                          y: dx * s + dy * c + Double(upright.height) / 2)
    }

    private var cosSin: (Double, Double) {
        let radians = skew * .pi / 180
        return (cos(radians), sin(radians))
    }

    // MARK: The normalised currency

    /// Where a normalised position of the prepared page is on the input page (normalised).
    public func inputPoint(ofPrepared point: NormalizedPoint) -> NormalizedPoint {
        guard !isIdentity else { return point }
        let pixel = inputPixel(ofPrepared: PixelPoint(point, in: preparedSize))
        return NormalizedPoint(pixel, in: inputSize)
    }

    /// Where a normalised position of the input page is on the prepared page (normalised).
    public func preparedPoint(ofInput point: NormalizedPoint) -> NormalizedPoint {
        guard !isIdentity else { return point }
        let pixel = preparedPixel(ofInput: PixelPoint(point, in: inputSize))
        return NormalizedPoint(pixel, in: preparedSize)
    }

    /// The input page's rectangle that holds a rectangle of the prepared page: the bounding
    /// box of its four corners once mapped, kept within the page. A box turned by a quarter
    /// turn maps exactly; a levelled one grows by the corners' swing.
    public func inputRect(ofPrepared rect: NormalizedRect) -> NormalizedRect {
        guard !isIdentity else { return rect }
        return bounds(of: corners(of: rect).map { inputPoint(ofPrepared: $0) })
    }

    /// The prepared page's rectangle that holds a rectangle of the input page.
    public func preparedRect(ofInput rect: NormalizedRect) -> NormalizedRect {
        guard !isIdentity else { return rect }
        return bounds(of: corners(of: rect).map { preparedPoint(ofInput: $0) })
    }

    private func corners(of rect: NormalizedRect) -> [NormalizedPoint] {
        [NormalizedPoint(x: rect.minX, y: rect.minY), NormalizedPoint(x: rect.maxX, y: rect.minY),
         NormalizedPoint(x: rect.minX, y: rect.maxY), NormalizedPoint(x: rect.maxX, y: rect.maxY)]
    }

    private func bounds(of points: [NormalizedPoint]) -> NormalizedRect {
        func clamped(_ value: Double) -> Double { Swift.min(1, Swift.max(0, value)) }
        let xs = points.map { clamped($0.x) }, ys = points.map { clamped($0.y) }
        let minX = xs.min()!, minY = ys.min()!
        return NormalizedRect(x: minX, y: minY, width: xs.max()! - minX, height: ys.max()! - minY)
    }
}
