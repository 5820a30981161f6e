import CTesseract
import GlossContract
import GlossGeometry
import GlossImaging

/// How Tesseract is told to cut up a region it reads on its own: the few of its page
/// segmentation modes that fit a part of a page whose layout is already known.
public enum RegionLayout: Int, Sendable, CaseIterable {
    /// A uniform block of text, lines one under another (`--psm 6`).
    case block = 6
    /// One line of text (`--psm 7`).
    case line = 7
    /// Text scattered in no particular order, found wherever it is (`--psm 11`).
    case sparse = 11
}

/// Whether Tesseract reads a line again inverted, as light text on a dark ground, when its first
/// reading of the line is unsure (its `tessedit_do_invert`, on by default): the one way it reads
/// white on black, and a second reading of the line wasted where the ink is dark on light paper.
public enum InvertedLines: Sendable {
    case tried
    case skipped
}

extension TextRecognizer {
    /// Recognises the text inside `region` of `image`, cut up as `layout` says, its unsure lines
    /// read again inverted or not as `invertedLines` says, and returns it
    /// with boxes in the whole image's normalised currency (origin bottom left), as
    /// `recognize(_:resolution:cancellation:)` gives them.
    ///
    /// Only the region's pixels are copied and read, so the cost follows the region, not the
    /// page. The engine's own segmentation mode is restored afterwards. `resolution` is the
    /// image's; raising `cancellation` stops the engine and this throws `CancellationError`.
    public func recognize(
        _ region: PixelRect, of image: Raster, layout: RegionLayout, invertedLines: InvertedLines = .tried, resolution: Int?,
        cancellation: CancellationFlag? = nil
    ) throws -> RecognizedText {
        let x0 = max(0, region.x), y0 = max(0, region.y)
        let x1 = min(image.width, region.maxX), y1 = min(image.height, region.maxY)
        guard x1 - x0 >= Self.smallestLegibleSide, y1 - y0 >= Self.smallestLegibleSide else { return RecognizedText() }
        let crop = Self.grey(image, x0..<x1, y0..<y1)
        OpenMP.runSingleThreadedOnThisThread()
        crop.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(engine, pixels.baseAddress, Int32(x1 - x0), Int32(y1 - y0), 1, Int32(x1 - x0))
        }
        TessBaseAPISetSourceResolution(engine, Int32(RecognitionOptions.effectiveResolution(resolution)))
        TessBaseAPISetPageSegMode(engine, TessPageSegMode(UInt32(layout.rawValue)))
        switch invertedLines {
        case .tried: break
        case .skipped: TessBaseAPISetVariable(engine, "tessedit_do_invert", "0")
        }
        defer {
            TessBaseAPIClear(engine)
            TessBaseAPISetPageSegMode(engine, TessPageSegMode(UInt32(options.pageSegmentationMode)))
            switch invertedLines {
            case .tried: break
            case .skipped: TessBaseAPISetVariable(engine, "tessedit_do_invert", "1")
            }
        }
        let monitor = Monitor(cancellation: cancellation)
        // The monitor lives through the call that reads it (its deinit deletes the C handle).
        let status = withExtendedLifetime(monitor) { TessBaseAPIRecognize(engine, monitor.handle) }
        if cancellation?.isRaised == true { throw CancellationError() }
        try check(status == 0, "recognition of a region failed")
        let size = image.size
        return readResults { box in
            NormalizedRect(PixelRect(x: box.x + x0, y: box.y + y0, width: box.width, height: box.height), in: size)
        }
    }

    /// The median grey of the part of `image` that `region` covers, as a region's reading sees
    /// it: its paper, or the dark ground of light lettering; 255 when it covers nothing.
    public static func medianGrey(in region: PixelRect, of image: Raster) -> Int {
        let x0 = max(0, region.x), y0 = max(0, region.y)
        let x1 = min(image.width, region.maxX), y1 = min(image.height, region.maxY)
        guard x0 < x1, y0 < y1 else { return 255 }
        let crop = Raster(width: x1 - x0, height: y1 - y0, layout: .gray, pixels: grey(image, x0..<x1, y0..<y1))
        return Int(crop.medianValues(step: 1)[0])
    }

    /// The grey pixels of a part of `image`, row after row.
    private static func grey(_ image: Raster, _ columns: Range<Int>, _ rows: Range<Int>) -> [UInt8] {
        var crop = [UInt8]()
        crop.reserveCapacity(columns.count * rows.count)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in rows {
                let row = y * image.width
                switch image.layout {
                case .gray:
                    crop.append(contentsOf: pixels[(row + columns.lowerBound)..<(row + columns.upperBound)])
                case .rgb:
                    for x in columns {
                        let i = 3 * (row + x)
                        let r = UInt32(pixels[i]), g = UInt32(pixels[i + 1]), b = UInt32(pixels[i + 2])
                        crop.append(UInt8((299 * r + 587 * g + 114 * b + 500) / 1000))
                    }
                }
            }
        }
        return crop
    }
}
