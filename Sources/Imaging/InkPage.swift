import CLeptonica
import GlossGeometry

/// Which way a page's text stands, as Leptonica reads it from the shapes of letters (ascenders
/// and descenders of Latin text): cheap, and enough to tell an ordinary upright page from one
/// that needs a closer look.
public struct TextDirectionSignal: Sendable, Equatable {
    /// Positive when the text stands upright, negative when it stands on its head; near zero
    /// when there is too little text to tell or it lies on its side.
    public var upConfidence: Double
    /// Large (either sign) when the text lies on its side; its sign says which side.
    public var sidewaysConfidence: Double

    public init(upConfidence: Double, sidewaysConfidence: Double) {
        self.upConfidence = upConfidence
        self.sidewaysConfidence = sidewaysConfidence
    }

    /// Clockwise degrees that would stand the text upright, from whichever reading is stronger.
    public var suggestedRotation: Int {
        if abs(upConfidence) >= abs(sidewaysConfidence) { return upConfidence >= 0 ? 0 : 180 }
        // Text turned a quarter clockwise reads as negative, and is turned back three quarters.
        return sidewaysConfidence < 0 ? 270 : 90
    }
}

/// How far a page's lines are from level, as Leptonica measures it.
public struct SkewMeasurement: Sendable, Equatable {
    /// Degrees to turn the page counter-clockwise (as it is seen) to level its lines.
    public var levellingDegrees: Double
    /// Leptonica's confidence: the sharpness of the best angle against the others (about 3
    /// and above is a clear answer).
    public var confidence: Double

    public init(levellingDegrees: Double, confidence: Double) {
        self.levellingDegrees = levellingDegrees
        self.confidence = confidence
    }
}

/// A black-and-white copy of a page held by Leptonica, for the cheap measures of how its text
/// lies: its direction and its skew. Not Sendable: it holds a C image.
public final class InkPage {
    private let image: LeptonicaImage

    /// The page's dark pixels, split from the light ones at the grey level Otsu's method
    /// finds; nil for an empty raster.
    public init?(grey raster: Raster) {
        let page = raster.grayscale()
        guard page.width > 0, page.height > 0 else { return nil }
        _ = LeptonicaImage.silenced
        guard let image = LeptonicaImage(pixCreate(Int32(page.width), Int32(page.height), 1)) else { return nil }
        let threshold = Self.otsuThreshold(of: page)
        let wordsPerLine = Int(pixGetWpl(image.handle))
        let words = pixGetData(image.handle)!
        let fullWords = page.width / 32
        page.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<page.height {
                let row = pixels.baseAddress! + y * page.width
                let line = words + y * wordsPerLine
                // Leptonica's 1-bit images have 1 for ink, the leftmost pixel in the high bit;
                // a word of 32 pixels is built without a branch per pixel.
                for index in 0..<fullWords {
                    let pixel = row + index * 32
                    var word: UInt32 = 0
                    for bit in 0..<32 { word = word << 1 | (pixel[bit] <= threshold ? 1 : 0) }
                    line[index] = word
                }
                for x in fullWords * 32..<page.width where row[x] <= threshold {
                    line[x >> 5] |= UInt32(0x8000_0000) >> UInt32(x & 31)
                }
            }
        }
        self.image = image
    }

    private init(_ image: LeptonicaImage) { self.image = image }

    public var size: PixelSize { PixelSize(width: image.width, height: image.height) }

    /// The same page turned clockwise by `quarterTurns` quarters.
    public func turned(quarterTurns: Int) -> InkPage? {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        return LeptonicaImage(pixRotateOrth(image.handle, Int32(turns))).map(InkPage.init)
    }

    /// Which way the text stands, read from the ascenders and descenders of its letters as
    /// they stand and turned a quarter (the two halves of Leptonica's `pixOrientDetect`, with
    /// the same figures). The turned reading, half the cost, is skipped when the upright one
    /// alone is at least `certainlyUpright`: `sidewaysConfidence` is then 0.
    public func textDirection(certainlyUpright: Double = .infinity) -> TextDirectionSignal {
        let up = Double(upDownConfidence(of: image.handle))
        guard up < certainlyUpright, let turned = LeptonicaImage(pixRotate90(image.handle, 1)) else {
            return TextDirectionSignal(upConfidence: up, sidewaysConfidence: 0)
        }
        let sideways = withExtendedLifetime(turned) { upDownConfidence(of: turned.handle) }
        return TextDirectionSignal(upConfidence: up, sidewaysConfidence: Double(sideways))
    }

    private func upDownConfidence(of pix: UnsafeMutablePointer<PIX>) -> Float {
        var confidence: Float = 0
        return pixUpDownDetect(pix, &confidence, 0, 0, 0) == 0 ? confidence : 0
    }

    /// How far the lines are from level, searched within 7 degrees either way; nil when
    /// Leptonica finds no answer (a page without lines).
    public func skew() -> SkewMeasurement? {
        // Leptonica reduces the page before its coarse sweep and its fine search; a small page
        // is reduced less, so its letters keep enough pixels to form lines.
        let shortSide = min(image.width, image.height)
        let sweep: Int32 = shortSide >= 1500 ? 4 : 2
        var angle: Float = 0, confidence: Float = 0
        guard pixFindSkewSweepAndSearch(image.handle, &angle, &confidence, sweep, sweep / 2, 7, 1, 0.01) == 0 else { return nil }
        // Leptonica answers with the clockwise turn that levels the page.
        return SkewMeasurement(levellingDegrees: -Double(angle), confidence: Double(confidence))
    }

    /// The grey level that best splits a page into ink and paper.
    static func otsuThreshold(of grey: Raster) -> UInt8 { Raster.otsuThreshold(of: grey.pixels) }
}

extension Raster {
    /// The level that best splits 8-bit values into dark and light (Otsu's method: the largest
    /// variance between the two classes).
    public static func otsuThreshold(of values: [UInt8]) -> UInt8 { otsuThreshold(histogram: histogram(of: values)) }

    /// How many of `values` fall on each level, 0...255. Counted into four interleaved
    /// tables, so neighbouring pixels of the same level (most of a page) do not wait on one
    /// another's increment.
    public static func histogram(of values: [UInt8]) -> [Int] {
        var tables = [Int32](repeating: 0, count: 4 * 256)
        values.withUnsafeBufferPointer { values in
            tables.withUnsafeMutableBufferPointer { tables in
                let count = values.count, quads = count / 4
                var index = 0
                for _ in 0..<quads {
                    tables[Int(values[index])] &+= 1
                    tables[256 + Int(values[index + 1])] &+= 1
                    tables[512 + Int(values[index + 2])] &+= 1
                    tables[768 + Int(values[index + 3])] &+= 1
                    index += 4
                }
                while index < count {
                    tables[Int(values[index])] &+= 1
                    index += 1
                }
            }
        }
        return (0..<256).map { Int(tables[$0]) + Int(tables[256 + $0]) + Int(tables[512 + $0]) + Int(tables[768 + $0]) }
    }

    /// Otsu's level for values counted in `histogram` (256 levels).
    public static func otsuThreshold(histogram: [Int]) -> UInt8 {
        let total = Double(histogram.reduce(0, +))
        let weightedTotal = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var darkCount = 0.0, darkSum = 0.0, best = 0.0, threshold = 127
        for level in 0..<255 {
            darkCount += Double(histogram[level])
            darkSum += Double(level * histogram[level])
            let lightCount = total - darkCount
            guard darkCount > 0, lightCount > 0 else { continue }
            let difference = darkSum / darkCount - (weightedTotal - darkSum) / lightCount
            let between = darkCount * lightCount * difference * difference
            if between > best {
                best = between
                threshold = level
            }
        }
        return UInt8(threshold)
    }
}
