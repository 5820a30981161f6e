import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

// The seams between the reader and the detection it is handed. `BoxFinder`, `DetectorInput`
// and `LineCrop` (this module's detection files) are to conform in place of the placeholders
// at the end of this file, which only exist so the reader runs before they do.

/// A text line the detector found: its four corners in page pixels, clockwise from the top
/// left, and the detector's score for it.
public struct LineQuad: Sendable, Equatable {
    public var corners: [PixelPoint]
    public var score: Double

    public init(corners: [PixelPoint], score: Double) {
        precondition(corners.count == 4, "a line has four corners")
        self.corners = corners
        self.score = score
    }
}

/// A network run on one input at a time: `Network` is one, and a test's fake.
public protocol NetworkRunning {
    mutating func run(_ input: FeatureMap, isCancelled: () -> Bool) throws(NetworkError) -> FeatureMap
}

extension Network: NetworkRunning {}

/// Finds a page's lines with the detector: makes its input from the page, runs it, and turns
/// its probability map into lines in the page's pixels.
public protocol LineFinding {
    mutating func lines(in page: Raster, detector: inout any NetworkRunning, isCancelled: () -> Bool) throws -> [LineQuad]
}

/// A line cut out of the page and rectified.
public struct CroppedLine: Sendable {
    public var raster: Raster
    /// The page pixels of `raster`'s top-left, top-right, bottom-right and bottom-left corners:
    /// the line's corners, moved on if the crop was turned (a tall line is stood on its side).
    public var corners: [PixelPoint]

    public init(raster: Raster, corners: [PixelPoint]) {
        self.raster = raster
        self.corners = corners
    }
}

/// Cuts a line out of the page, rectified to a level rectangle.
public protocol LineCropping {
    func crop(_ page: Raster, along line: LineQuad) -> CroppedLine
}

// MARK: Placeholders, until BoxFinder, DetectorInput and LineCrop are merged

/// A stand-in detection: the page resized so its shorter side is 736 (RapidOCR's default,
/// `limit_side_len`), sides multiples of 32; the map thresholded at 0.3; each 4-connected
/// region's bounding box widened by DB's unclip distance (area x 1.6 / perimeter). Level
/// lines only, no rotated rectangles: the real finder replaces it.
public struct PlaceholderLineFinding: LineFinding {
    /// The detector's input size: the page's shorter side is enlarged to at least this.
    public var shortSide: Int

    public init(shortSide: Int = 736) { self.shortSide = shortSide }

    public mutating func lines(in page: Raster, detector: inout any NetworkRunning, isCancelled: () -> Bool) throws -> [LineQuad] {
        guard page.width > 0, page.height > 0 else { return [] }
        let ratio = max(1, Double(shortSide) / Double(min(page.width, page.height)))
        let width = max(32, Int((Double(page.width) * ratio / 32).rounded()) * 32)
        let height = max(32, Int((Double(page.height) * ratio / 32).rounded()) * 32)
        var input = FeatureMap(channels: 3, height: height, width: width)
        RecognizerInput.fillPlane(&input, with: LinearResize.resize(page, width: width, height: height))
        let map = try detector.run(input, isCancelled: isCancelled)
        var seen = [Bool](repeating: false, count: map.planeSize)
        var lines: [LineQuad] = []
        for start in 0..<map.planeSize where !seen[start] && map.storage[start] > 0.3 {
            var stack = [start], minX = map.width, maxX = 0, minY = map.height, maxY = 0, area = 0.0
            seen[start] = true
            while let index = stack.popLast() {
                let x = index % map.width, y = index / map.width
                (minX, maxX, minY, maxY, area) = (min(minX, x), max(maxX, x), min(minY, y), max(maxY, y), area + 1)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && ny >= 0 && nx < map.width && ny < map.height && !seen[ny * map.width + nx]
                    && map.storage[ny * map.width + nx] > 0.3 {
                    seen[ny * map.width + nx] = true
                    stack.append(ny * map.width + nx)
                }
            }
            guard maxY - minY >= 2 else { continue }
            let (w, h) = (Double(maxX - minX + 1), Double(maxY - minY + 1))
            let grow = w * h * 1.6 / (2 * (w + h))
            let (sx, sy) = (Double(page.width) / Double(map.width), Double(page.height) / Double(map.height))
            let left = max(0, (Double(minX) - grow) * sx), right = min(Double(page.width), (Double(maxX + 1) + grow) * sx)
            let top = max(0, (Double(minY) - grow) * sy), bottom = min(Double(page.height), (Double(maxY + 1) + grow) * sy)
            let corners = [PixelPoint(x: left, y: top), PixelPoint(x: right, y: top), PixelPoint(x: right, y: bottom),
                           PixelPoint(x: left, y: bottom)]
            lines.append(LineQuad(corners: corners, score: area / (w * h)))
        }
        return lines
    }
}

/// A stand-in crop: the quadrilateral sampled onto a rectangle as wide as its top edge and as
/// high as its left edge, nearest pixel; no turning of tall lines.
public struct PlaceholderLineCropping: LineCropping {
    public init() {}

    public func crop(_ page: Raster, along line: LineQuad) -> CroppedLine {
        let c = line.corners
        func length(_ a: PixelPoint, _ b: PixelPoint) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let width = max(1, Int(length(c[0], c[1]).rounded())), height = max(1, Int(length(c[0], c[3]).rounded()))
        let mapping = QuadMapping(c)
        let channels = page.channels
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let point = mapping.point((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height))
                let px = min(max(Int(point.x), 0), page.width - 1), py = min(max(Int(point.y), 0), page.height - 1)
                for channel in 0..<channels {
                    pixels[(y * width + x) * channels + channel] = page.pixels[(py * page.width + px) * channels + channel]
                }
            }
        }
        return CroppedLine(raster: Raster(width: width, height: height, layout: page.layout, pixels: pixels), corners: c)
    }
}
