/// The size of an image in pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `width * height`, or `Int.max` where that overflows (a PDF page claiming to be a
    /// kilometre wide): a count set against a limit, which such a page must exceed, not trap.
    public var pixelCount: Int {
        let (count, overflows) = width.multipliedReportingOverflow(by: height)
        return overflows ? .max : count
    }
    public var description: String { "\(width)x\(height)" }
}

/// A point in normalised image coordinates: 0...1 on both axes, origin at the bottom left.
///
/// This is the one currency every recogniser speaks (as Apple's Vision does), so that results
/// stay valid whatever size the image is drawn at later.
public struct NormalizedPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in normalised image coordinates: 0...1, origin at the bottom left.
public struct NormalizedRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The smallest rectangle that holds both.
    public func union(_ other: NormalizedRect) -> NormalizedRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let minX = Swift.min(self.minX, other.minX), minY = Swift.min(self.minY, other.minY)
        let maxX = Swift.max(self.maxX, other.maxX), maxY = Swift.max(self.maxY, other.maxY)
        return NormalizedRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The smallest rectangle that holds all of `boxes` (the first when every one is empty);
    /// none gives the empty rectangle at the origin.
    public static func enclosing(_ boxes: some Collection<NormalizedRect>) -> NormalizedRect {
        guard let first = boxes.first else { return NormalizedRect(x: 0, y: 0, width: 0, height: 0) }
        return boxes.dropFirst().reduce(first) { $0.union($1) }
    }
}

/// A point in pixels, origin at the top left (the convention of screens, SVG, hOCR and ALTO).
public struct PixelPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in whole pixels, origin at the top left.
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "(\(x), \(y), \(width)x\(height))" }
}
