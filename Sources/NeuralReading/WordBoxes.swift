import GlossContract
import GlossGeometry
import GlossImaging

/// Where a line read by the recogniser lies on the page: the page pixels of its crop's four
/// corners, and the width the crop was resized to for the recogniser.
public struct LinePlacement: Sendable, Equatable {
    /// Page pixels of the crop's top-left, top-right, bottom-right and bottom-left corners, in
    /// that order: the crop as it was read, turned already if the classifier turned it.
    public var corners: [PixelPoint]
    /// The crop's width in the recogniser's input, 48 pixels high, before the padding.
    public var resizedWidth: Int

    public init(corners: [PixelPoint], resizedWidth: Int) {
        precondition(corners.count == 4, "a line has four corners")
        self.corners = corners
        self.resizedWidth = resizedWidth
    }

    /// The same line read turned by 180 degrees: its corners two places on.
    public func turnedOver() -> LinePlacement {
        LinePlacement(corners: Array(corners[2...] + corners[..<2]), resizedWidth: resizedWidth)
    }
}

/// The perspective transform that takes the unit square onto a quadrilateral: (0, 0) to its
/// first corner, (1, 0) to its second, (1, 1) to its third, (0, 1) to its fourth (Heckbert's
/// square-to-quad mapping; an affine one for a parallelogram, as DB's rotated rectangles are).
struct QuadMapping: Sendable {
    private let a, b, c, d, e, f, g, h: Double

    init(_ corners: [PixelPoint]) {
        let p0 = corners[0], p1 = corners[1], p2 = corners[2], p3 = corners[3]
        let sx = p0.x - p1.x + p2.x - p3.x, sy = p0.y - p1.y + p2.y - p3.y
        var g = 0.0, h = 0.0
        if abs(sx) > 1e-9 || abs(sy) > 1e-9 {
            let dx1 = p1.x - p2.x, dx2 = p3.x - p2.x, dy1 = p1.y - p2.y, dy2 = p3.y - p2.y
            let denominator = dx1 * dy2 - dx2 * dy1
            if abs(denominator) > 1e-12 {
                g = (sx * dy2 - dx2 * sy) / denominator
                h = (dx1 * sy - sx * dy1) / denominator
            }
        }
        (self.g, self.h) = (g, h)
        a = p1.x - p0.x + g * p1.x
        b = p3.x - p0.x + h * p3.x
        c = p0.x
        d = p1.y - p0.y + g * p1.y
        e = p3.y - p0.y + h * p3.y
        f = p0.y
    }

    /// The page point of (`u`, `v`) in the unit square.
    func point(_ u: Double, _ v: Double) -> PixelPoint {
        let w = g * u + h * v + 1
        return PixelPoint(x: (a * u + b * v + c) / w, y: (d * u + e * v + f) / w)
    }
}

/// Words' and lines' boxes from the recogniser's time steps, in the one currency.
///
/// Each time step is 8 pixels of the 48-high resized line. A character's centre is the middle
/// of its steps; a word reaches half a character's advance beyond its first and last
/// characters' centres (RapidOCR's `cal_rec_boxes` measures it so too), and vertically the
/// whole line; given the crop, the box is drawn in to the ink there. That extent is carried
/// onto the crop by the resize ratio, then onto the page by the crop's corners. Measured by
/// `models/ppocr/measure_word_boxes.py` on six rendered fixtures: all 192 words within 3
/// pixels of the drawn ones; the step spans alone, 7 pixels off at the median.
public enum WordBoxes {
    /// Pixels of the resized line per time step: the recogniser's stride.
    static let stepWidth = 8.0

    /// The mean advance from one character to the next, in resized pixels: over the words of two
    /// characters or more, from their first to their last character's centre; for a line of
    /// single letters, the line's width shared among its characters, as RapidOCR does.
    static func advance(of line: DecodedLine, resizedWidth: Int) -> Double {
        var span = 0.0, gaps = 0
        for word in line.words where word.characters.count > 1 {
            span += centre(of: word.characters[word.characters.count - 1]) - centre(of: word.characters[0])
            gaps += word.characters.count - 1
        }
        if gaps > 0 { return span / Double(gaps) }
        return Double(resizedWidth) / Double(max(1, line.characters.count))
    }

    /// The middle of a character's steps, in resized pixels.
    static func centre(of character: DecodedCharacter) -> Double {
        (Double(character.firstStep + character.lastStep) / 2 + 0.5) * stepWidth
    }

    /// A word's left and right, in resized pixels, within the line's resized width.
    static func extent(of word: DecodedWord, advance: Double, resizedWidth: Int) -> (left: Double, right: Double) {
        let width = Double(resizedWidth)
        let left = centre(of: word.characters[0]) - advance / 2
        let right = centre(of: word.characters[word.characters.count - 1]) + advance / 2
        return (min(max(0, left), width), min(max(0, right), width))
    }

    /// The line on the page, with its words; nil when it has none. Given the crop as it was
    /// read, each word's box is drawn in to the ink within its extent (`InkBounds`).
    public static func line(_ decoded: DecodedLine, placement: LinePlacement, page: PixelSize, crop: Raster? = nil) -> TextLine? {
        let words = decoded.words
        guard !words.isEmpty, placement.resizedWidth > 0 else { return nil }
        let mapping = QuadMapping(placement.corners)
        let advance = advance(of: decoded, resizedWidth: placement.resizedWidth)
        let width = Double(placement.resizedWidth)
        let extents = words.map { extent(of: $0, advance: advance, resizedWidth: placement.resizedWidth) }
        let ink = crop.map(InkBounds.init)
        let recognized = words.indices.map { index in
            let (left, right) = extents[index]
            // Fractions of the crop: u across, v down.
            var (u0, u1, v0, v1) = (left / width, right / width, 0.0, 1.0)
            if let ink {
                // The ink searched a quarter of an advance beyond the extent, never past half way
                // to the next word's.
                let slack = advance / 4 / width
                let before = index > 0 ? (extents[index - 1].right / width + u0) / 2 : 0
                let after = index + 1 < extents.count ? (u1 + extents[index + 1].left / width) / 2 : 1
                if let found = ink.bounds(from: max(before, u0 - slack), to: min(after, u1 + slack)) {
                    (u0, u1, v0, v1) = found
                }
            }
            let box = normalizedBox([mapping.point(u0, v0), mapping.point(u1, v0), mapping.point(u1, v1), mapping.point(u0, v1)], in: page)
            return RecognizedWord(text: words[index].text, box: box, confidence: words[index].confidence)
        }
        let baseline = Baseline(start: NormalizedPoint(mapping.point(0, 1), in: page), end: NormalizedPoint(mapping.point(1, 1), in: page))
        return TextLine(box: normalizedBox(placement.corners, in: page), baseline: baseline, words: recognized)
    }

    /// The smallest page rectangle holding `points` (page pixels), kept on the page.
    static func normalizedBox(_ points: [PixelPoint], in page: PixelSize) -> NormalizedRect {
        let normalized = points.map { NormalizedPoint($0, in: page) }
        let xs = normalized.map { min(max($0.x, 0), 1) }, ys = normalized.map { min(max($0.y, 0), 1) }
        let (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        return NormalizedRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

/// The dark pixels of a line's crop, for drawing a word's box in to its letters: the crop in
/// grey, and Otsu's threshold of its histogram (the letters and their paper are the crop's
/// two classes). The rendered fixtures' words are their ink's bounds; the line's quadrilateral,
/// widened by DB's unclipping, reaches 3 to 13 pixels beyond them.
struct InkBounds {
    let grey: Raster
    let threshold: Int

    init(_ crop: Raster) {
        grey = crop.grayscale()
        var histogram = [Int](repeating: 0, count: 256)
        for value in grey.pixels { histogram[Int(value)] += 1 }
        threshold = Self.otsu(histogram)
    }

    /// The level that best splits `histogram` in two (largest between-class variance); a
    /// pixel at or under it is ink.
    static func otsu(_ histogram: [Int]) -> Int {
        let total = histogram.reduce(0, +)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var below = 0, belowSum = 0.0, best = 0.0, level = 127
        for value in 0..<255 {
            below += histogram[value]
            belowSum += Double(value * histogram[value])
            guard below > 0, below < total else { continue }
            let meanBelow = belowSum / Double(below), meanAbove = (sum - belowSum) / Double(total - below)
            let variance = Double(below) * Double(total - below) * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if variance > best {
                best = variance
                level = value
            }
        }
        return level
    }

    /// The ink's extent between the fractions `from` and `to` of the crop's width, as fractions
    /// (left, right, top, bottom); nil when no pixel there is ink.
    func bounds(from: Double, to: Double) -> (Double, Double, Double, Double)? {
        let (width, height) = (grey.width, grey.height)
        guard width > 0, height > 0 else { return nil }
        let first = max(0, Int((from * Double(width)).rounded(.down))), last = min(width, Int((to * Double(width)).rounded(.up)))
        var (left, right, top, bottom) = (width, -1, height, -1)
        grey.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                for x in first..<max(first, last) where Int(pixels[y * width + x]) <= threshold {
                    (left, right, top, bottom) = (min(left, x), max(right, x), min(top, y), max(bottom, y))
                }
            }
        }
        guard right >= left else { return nil }
        return (Double(left) / Double(width), Double(right + 1) / Double(width), Double(top) / Double(height),
                Double(bottom + 1) / Double(height))
    }
}
