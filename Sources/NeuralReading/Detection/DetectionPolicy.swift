import GlossGeometry

/// Every number of text detection, from the page's size to the boxes' order, in one value.
///
/// `rapidOCR` holds RapidOCR 3.10.0's defaults (`rapidocr/config.yaml`, `Global` and `Det`,
/// and the constants of `rapidocr/ch_ppocr_det`), which Gloss matches box for box; the
/// size rules at the end are Gloss's: the letter-size rule, measured by
/// `bench/neural/detector_size.py`, and the word-height rule, which acts only where a reading
/// measured the page's words (`accurate`), so RapidOCR's reading keeps RapidOCR's sizes.
public struct DetectionPolicy: Sendable, Equatable {
    /// Which side of the page RapidOCR's detector size limits (`Det.limit_type`).
    public enum SideLimit: Sendable, Equatable {
        /// `min`: the shorter side is enlarged to at least `limitSideLength`.
        case shorterSideAtLeast
        /// `max`: the longer side is reduced to at most `limitSideLength`.
        case longerSideAtMost
    }

    // MARK: The page before detection (`Global`, `rapidocr/utils/process_img.py`)

    /// `Global.max_side_len` 2000: a page whose longer side exceeds it is first reduced to it.
    public var boundedLongerSide = 2000
    /// `Global.min_side_len` 30: a page whose shorter side is under it is first enlarged to it.
    public var boundedShorterSide = 30
    /// `Global.width_height_ratio` 8: a page wider than 8 times its height is padded with black
    /// above and below (`apply_vertical_padding`) so that a single line is not squashed.
    public var paddingWidthRatio = 8
    /// `Global.min_height` 30: a page this tall or less is padded likewise.
    public var paddingHeight = 30

    // MARK: The detector's input (`Det`, `DetPreProcess.resize`)

    /// `Det.limit_side_len` 736.
    public var limitSideLength = 736
    /// `Det.limit_type` `min`.
    public var sideLimit = SideLimit.shorterSideAtLeast
    /// Both sides of the input are rounded to multiples of 32, the network's total stride.
    public var sizeMultiple = 32

    // MARK: From map to boxes (`DBPostProcess` as `TextDetector` builds it)

    /// `Det.thresh` 0.3: a pixel whose probability exceeds it is text.
    public var pixelThreshold: Float = 0.3
    /// `Det.use_dilation` true: the text mask is dilated by a 2x2 square before regions are found.
    public var dilates = true
    /// `Det.max_candidates` 1000: regions beyond this many are ignored.
    public var maximumCandidates = 1000
    /// `DBPostProcess.min_size` 3: a region whose rectangle's shorter side is under 3 map pixels
    /// is noise.
    public var smallestSide: Double = 3
    /// `Det.box_thresh` 0.5: the mean probability inside a region's rectangle (`score_mode`
    /// `fast`) must reach it.
    public var boxThreshold: Double = 0.5
    /// `Det.unclip_ratio` 1.6: a rectangle is grown on every side by area x 1.6 / perimeter, to
    /// undo DB's shrinking of the text regions it was trained on.
    public var unclipRatio: Double = 1.6
    /// `min_size + 2` = 5: the grown rectangle's shorter side must reach it, in map pixels.
    public var smallestGrownSide: Double = 5
    /// `filter_det_res`: a box whose sides, in the page's pixels and truncated, are 3 or less is
    /// dropped.
    public var largestDroppedSide = 3
    /// `_BOX_SORT_Y_THRESHOLD` 10: boxes whose top-left corners are less than 10 pixels apart
    /// vertically (in sorted order) are on one row and ordered left to right.
    public var rowTolerance: Double = 10

    // MARK: Cutting lines out (`get_rotate_crop_image`)

    /// A crop at least 1.5 times as tall as it is wide is a vertical line: it is turned 90°.
    public var verticalLineRatio: Double = 1.5
    /// `cv2.INTER_CUBIC`, as `get_rotate_crop_image` warps.
    public var cropInterpolation = LineCrop.Interpolation.bicubic

    // MARK: Gloss's rule: the input size from the letters' size

    /// The x-height, in the detector's input pixels, that the page is scaled to. Measured by
    /// `bench/neural/detector_size.py` (RapidOCR's networks, the text fixtures and the
    /// non-Scribe OCR-quality pages, split in halves; `Sources/NeuralReading/README.md`): mean
    /// F1 at x-heights 6, 8, 12, 16 was 0.904, 0.907, 0.932, 0.941 on the half tuned on and
    /// 0.939, 0.937, 0.949, 0.965 on the half only measured, against 0.918 and 0.963 at
    /// RapidOCR's own size. Words are lost below 12; 16 was best on both halves.
    public var targetXHeight: Double = 16
    /// When set, the letter rule only ever shrinks: the page is scaled so its letters are this
    /// tall only when that gives a smaller input than RapidOCR's rule, else RapidOCR's input is
    /// kept. Measured at 12 (`bench/neural/detector_size.py`, `min:12`): on the half only
    /// measured F1 0.917 and CER 0.238 against RapidOCR's size's 0.916 and 0.239, with 0.70 of
    /// its input pixels (`Sources/NeuralReading/README.md`). In `accurate` on all 73 bench pages
    /// it took 0.81x / 0.85x of the CPU (tune / measure) at the same mean F1, but lost F1 on the
    /// receipts of both halves at 12 and at 16 (same README), so it is not the default. Nil
    /// (the default) keeps the rule above; either needs the page's x-height, which the reader
    /// is not given by default.
    public var shrinkingXHeight: Double?
    /// When set, and the page's sure words are measured (`plan(for:wordHeight:)`: in
    /// `accurate`, the median height of the words Tesseract read surely), the page is shrunk so
    /// that height becomes this many input pixels, when that gives a smaller input than
    /// RapidOCR's rule. A word's box spans what its letters span (ascenders and descenders on a
    /// page of prose, the capitals and digits alone on a receipt or a table of figures), so a
    /// page set in capitals is not shrunk as far as the x-height would shrink it: on those the
    /// x-height rule (`shrinkingXHeight`) measured the capitals as the x-height and lost words.
    /// RapidOCR's own reading never has that height, so its input stays RapidOCR's. Chosen on
    /// the tune half of the 73 bench pages among 16, 20 and 24 (`bench/reading/cost.py
    /// --baseline`, `accurate`): 16 took 0.912x of the CPU a page at F1 -0.001 and CER -0.004
    /// there, and 0.879x at F1 +0.001 and CER +0.001 on the measure half (20: 0.975x / 0.970x;
    /// 24: 0.985x / 0.989x); `docs/reading-measured.md`, "The detector's size from the words read".
    public var shrinkingWordHeight: Double? = 16
    /// The page is never scaled by less or more than this, whatever its letters measure: a
    /// guard against a mismeasured x-height, not a measured bound.
    public var scaleRange: ClosedRange<Double> = 0.25...3
    /// The input's longer side never exceeds this by more than the rounding to 32 (RapidOCR's
    /// own bound, `Global.max_side_len`), nor its area this squared: the detector's time and
    /// memory grow with its area.
    public var largestInputSide = 2000

    public init() {}

    /// RapidOCR 3.10.0's defaults (and Gloss's word-height rule, inert without a word height).
    public static let rapidOCR = DetectionPolicy()
}

/// How a page becomes the detector's input, and how the detector's pixels map back to it.
///
/// RapidOCR resizes in up to two steps: the page to `bounded` (within `Global`'s bounds), that,
/// padded with `padding` black rows above and below, to `input`. Boxes are found in the padded
/// bounded image's pixels, ordered there, then scaled to the page.
public struct DetectorPlan: Sendable, Equatable {
    /// The page's size.
    public var page: PixelSize
    /// The page after the first resize; the page's own size when there is none.
    public var bounded: PixelSize
    /// Black rows added above and below `bounded`.
    public var padding: Int
    /// The detector's input, multiples of 32.
    public var input: PixelSize
    /// From the bounded image's pixels to the page's (RapidOCR's `ratio_w`, `ratio_h`).
    public var ratioX: Double
    public var ratioY: Double

    public init(page: PixelSize, bounded: PixelSize, padding: Int, input: PixelSize, ratioX: Double, ratioY: Double) {
        self.page = page
        self.bounded = bounded
        self.padding = padding
        self.input = input
        self.ratioX = ratioX
        self.ratioY = ratioY
    }

    /// The bounded image with its padding: what the detector's input is resized from.
    public var padded: PixelSize { PixelSize(width: bounded.width, height: bounded.height + 2 * padding) }

    /// Page pixels per input pixel, horizontally and vertically, and the page row of input row
    /// 0: `pageX = inputX * scaleX`, `pageY = inputY * scaleY - offsetY`.
    public var scaleX: Double { Double(padded.width) / Double(input.width) * ratioX }
    public var scaleY: Double { Double(padded.height) / Double(input.height) * ratioY }
    public var offsetY: Double { Double(padding) * ratioY }
}

extension DetectionPolicy {
    /// The detector's plan for a page: with `wordHeight` (the median height of its sure words,
    /// in its pixels) and `shrinkingWordHeight`, the smaller of RapidOCR's input and the page
    /// scaled so that height becomes `shrinkingWordHeight`; else RapidOCR's rule when `xHeight`
    /// (the page's letter height in its pixels, `LetterSize.xHeight`) is nil, else the page
    /// scaled so its letters are `targetXHeight` tall. Nil when the page is too small to give
    /// any input.
    public func plan(for page: PixelSize, xHeight: Int? = nil, wordHeight: Double? = nil) -> DetectorPlan? {
        guard page.width > 0, page.height > 0 else { return nil }
        if let wordHeight, wordHeight > 0, let shrinkingWordHeight {
            return shrunk(page, scale: shrinkingWordHeight / wordHeight)
        }
        if let xHeight, xHeight > 0 {
            guard let shrinkingXHeight else { return letterPlan(for: page, xHeight: xHeight) }
            return shrunk(page, scale: shrinkingXHeight / Double(xHeight))
        }
        // resize_image_within_bounds: each step's ratio replaces the last, as RapidOCR's does.
        var bounded = page, ratioX = 1.0, ratioY = 1.0
        if max(page.width, page.height) > boundedLongerSide {
            let side = page.height > page.width ? page.height : page.width
            bounded = rounded(page, ratio: Double(boundedLongerSide) / Double(side))
            guard bounded.width > 0, bounded.height > 0 else { return nil }
            (ratioX, ratioY) = (Double(page.width) / Double(bounded.width), Double(page.height) / Double(bounded.height))
        }
        if min(bounded.width, bounded.height) < boundedShorterSide {
            let before = bounded
            let side = before.height < before.width ? before.height : before.width
            bounded = rounded(before, ratio: Double(boundedShorterSide) / Double(side))
            guard bounded.width > 0, bounded.height > 0 else { return nil }
            (ratioX, ratioY) = (Double(before.width) / Double(bounded.width), Double(before.height) / Double(bounded.height))
        }
        let padding = self.padding(for: bounded)
        let padded = PixelSize(width: bounded.width, height: bounded.height + 2 * padding)
        let input = withinLargestArea(detectorSize(for: padded))
        guard input.width > 0, input.height > 0 else { return nil }
        return DetectorPlan(page: page, bounded: bounded, padding: padding, input: input, ratioX: ratioX, ratioY: ratioY)
    }

    /// The detector's input size for a page (`plan(for:xHeight:)`'s `input`).
    public func inputSize(for page: PixelSize, xHeight: Int? = nil) -> PixelSize? {
        plan(for: page, xHeight: xHeight)?.input
    }

    /// RapidOCR's `apply_vertical_padding`: rows added above and below a very wide or low image.
    func padding(for size: PixelSize) -> Int {
        let wide = Double(size.width) / Double(size.height) > Double(paddingWidthRatio)
        guard size.height <= paddingHeight || wide else { return 0 }
        let target = max(Int(Double(size.width) / Double(paddingWidthRatio)), paddingHeight) * 2
        return abs(target - size.height) / 2
    }

    /// `DetPreProcess.resize`: the side limit, then both sides rounded to multiples of 32.
    func detectorSize(for size: PixelSize) -> PixelSize {
        let ratio: Double
        switch sideLimit {
        case .shorterSideAtLeast:
            let side = size.height < size.width ? size.height : size.width
            ratio = min(size.width, size.height) < limitSideLength ? Double(limitSideLength) / Double(side) : 1
        case .longerSideAtMost:
            let side = size.height > size.width ? size.height : size.width
            ratio = max(size.width, size.height) > limitSideLength ? Double(limitSideLength) / Double(side) : 1
        }
        return rounded(size, ratio: ratio)
    }

    /// `size` reduced, when its area is more than `largestInputSide` squared (the largest input
    /// RapidOCR's rule gives a page of ordinary proportions), to about that area, each side a
    /// multiple of 32 and at least 32. RapidOCR's rule enlarges the shorter side to 736 whatever
    /// the longer one: a strip of 1 x 2000 pixels became an input of 736 x 1,380,000, 55 GB
    /// of maps; a receipt 15 times as long as it is wide, about 736 x 11,000.
    public func withinLargestArea(_ size: PixelSize) -> PixelSize {
        let area = Double(size.width) * Double(size.height), largest = Double(largestInputSide) * Double(largestInputSide)
        guard area > largest else { return size }
        let ratio = (largest / area).squareRoot()
        func side(_ value: Int) -> Int { max(sizeMultiple, Int(Double(value) * ratio) / sizeMultiple * sizeMultiple) }
        return PixelSize(width: side(size.width), height: side(size.height))
    }

    /// `int(side * ratio)`, then rounded half to even to a multiple of 32, as Python's `round`.
    func rounded(_ size: PixelSize, ratio: Double) -> PixelSize {
        func side(_ value: Int) -> Int {
            let scaled = Int(Double(value) * ratio)
            return Int((Double(scaled) / Double(sizeMultiple)).rounded(.toNearestOrEven)) * sizeMultiple
        }
        return PixelSize(width: side(size.width), height: side(size.height))
    }

    /// Gloss's rule: one resize of the page, so its x-height becomes `targetXHeight`, within
    /// `scaleRange` and `largestInputSide`, sides rounded to multiples of 32 (at least 32).
    func letterPlan(for page: PixelSize, xHeight: Int) -> DetectorPlan {
        scaledPlan(for: page, scale: targetXHeight / Double(xHeight))
    }

    /// The page resized by `scale` (`scaledPlan`) where that gives a smaller input than
    /// RapidOCR's rule, else RapidOCR's: the shrink-only rules.
    func shrunk(_ page: PixelSize, scale: Double) -> DetectorPlan {
        let scaled = scaledPlan(for: page, scale: scale)
        guard let rapid = plan(for: page) else { return scaled }
        return scaled.input.width * scaled.input.height < rapid.input.width * rapid.input.height ? scaled : rapid
    }

    /// One resize of the page by `scale`, within `scaleRange` and `largestInputSide`, sides
    /// rounded to multiples of 32 (at least 32).
    func scaledPlan(for page: PixelSize, scale wanted: Double) -> DetectorPlan {
        var scale = min(max(wanted, scaleRange.lowerBound), scaleRange.upperBound)
        scale = min(scale, Double(largestInputSide) / Double(max(page.width, page.height)))
        func side(_ value: Int) -> Int {
            max(sizeMultiple, Int((Double(value) * scale / Double(sizeMultiple)).rounded()) * sizeMultiple)
        }
        let input = PixelSize(width: side(page.width), height: side(page.height))
        return DetectorPlan(page: page, bounded: page, padding: 0, input: input, ratioX: 1, ratioY: 1)
    }
}
