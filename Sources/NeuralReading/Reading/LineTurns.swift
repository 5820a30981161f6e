import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

/// What the line classifier says of a page's lines as they stand: how many it read and how
/// many of them it takes for upside down, without the detector or the recogniser.
///
/// The lines are pieces of rows of letters found on the page's ink (`LetterSize.rowsBothWays`),
/// each cut out with a margin like a detector's box, and classified as `NeuralReader.detect`
/// classifies a found line.
public struct LineTurns: Sendable, Equatable {
    /// The lines the classifier read.
    public var lines: Int
    /// Those it gave a probability of 180 degrees above one half.
    public var upsideDown: Int

    public init(lines: Int, upsideDown: Int) {
        self.lines = lines
        self.upsideDown = upsideDown
    }

    /// The classifier's reading of `rows` (boxes in `page`'s pixels, origin top left; most
    /// telling first), at most `limit` of them. Polls `isCancelled` between lines.
    public static func read(_ rows: [PixelRect], on page: Raster, limit: Int, classifier: inout some NetworkRunning,
                            input: inout FeatureMap, isCancelled: () -> Bool) throws -> LineTurns {
        var turns = LineTurns(lines: 0, upsideDown: 0)
        for row in rows.prefix(limit) {
            if isCancelled() { throw CancellationError() }
            let line = page.cut(margined(row, within: page.size))
            guard line.width > 0, line.height > 0 else { continue }
            RecognizerInput.fillClassifier(&input, with: line)
            let output = try classifier.run(input, isCancelled: isCancelled)
            guard output.count >= 2 else { continue }
            turns.lines += 1
            // P(0°), P(180°).
            if output.storage[1] > 0.5 { turns.upsideDown += 1 }
        }
        return turns
    }

    /// `row` with a margin a detector's unclipped box would give it: a third of its height
    /// above and below, half of it to either side, inside the page.
    static func margined(_ row: PixelRect, within size: PixelSize) -> PixelRect {
        let vertical = max(1, row.height / 3), horizontal = max(1, row.height / 2)
        let x0 = max(0, row.x - horizontal), y0 = max(0, row.y - vertical)
        let x1 = min(size.width, row.x + row.width + horizontal), y1 = min(size.height, row.y + row.height + vertical)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

extension Raster {
    /// The pixels of `rect` (inside the raster, origin top left), as a raster of their own.
    func cut(_ rect: PixelRect) -> Raster {
        let c = channels
        var pixels = [UInt8]()
        pixels.reserveCapacity(rect.width * rect.height * c)
        self.pixels.withUnsafeBufferPointer { source in
            for y in rect.y..<(rect.y + rect.height) {
                let start = (y * width + rect.x) * c
                pixels.append(contentsOf: source[start..<(start + rect.width * c)])
            }
        }
        return Raster(width: rect.width, height: rect.height, layout: layout, pixels: pixels)
    }
}
