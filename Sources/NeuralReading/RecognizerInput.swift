import GlossImaging
import GlossNeuralNetwork

/// The recogniser's and the classifier's input, prepared as RapidOCR prepares it
/// (`rapidocr/ch_ppocr_rec/main.py`, `ch_ppocr_cls/main.py`), so the text read is the same:
/// lines sorted by their width to height ratio, read in chunks, each line resized to 48
/// pixels high keeping its ratio and padded with zeros on the right to its chunk's width.
public enum RecognizerInput {
    /// Lines read with one padded width: RapidOCR's `rec_batch_num`. A line's text depends on
    /// its padding, so the chunks are RapidOCR's too.
    public static let chunkSize = 6
    /// The recogniser's input height (`rec_img_shape`).
    public static let height = 48
    /// The narrowest chunk, in width / height: `rec_img_shape`'s 320 / 48.
    public static let minimumRatio = 320.0 / 48.0
    /// The widest input, 48 x 160: a line longer for its height than that (a rule or a row of
    /// dots taken for text, a whole line of an A3 page read in landscape is about 120) is
    /// squeezed to it. Attention's scores grow as the square of the width, and the maps are
    /// kept at the widest size read: a line of 5 x 2000 px read whole held 200 MB.
    public static let maximumWidth = 48 * 160
    /// The widest input whose maps are kept from page to page: a line of an A4 page at 300 ppi
    /// (about 2,000 x 40 px) is 48 x 50. Wider ones' are given back after their page.
    public static let keptWidth = 48 * 80
    /// The classifier's input, 48 x 192 (`cls_image_shape`).
    public static let classifierWidth = 192
    /// The recogniser's stride: the padded width is rounded up to a multiple of it, so every
    /// time step sees 8 whole columns (RapidOCR's widths are not always multiples of 8; the
    /// zeros added are a column or few of padding more). With onnxruntime, all 28 lines of the
    /// text fixtures read the same padded so as RapidOCR pads them.
    static let timeStride = 8

    /// Lines read together: their indices, widest last, and the chunk's padded width.
    public struct Chunk: Sendable, Equatable {
        public var lines: [Int]
        /// 48 x the chunk's largest ratio (at least 320 / 48), truncated as RapidOCR does; at
        /// most `maximumWidth`.
        public var width: Int
        /// `width` rounded up to a multiple of the recogniser's stride: the input's width.
        public var paddedWidth: Int
    }

    /// The chunks of lines of these sizes, in RapidOCR's order: sorted by width / height (a
    /// stable sort, so equal ratios keep their order), `chunkSize` at a time.
    public static func chunks(of sizes: [(width: Int, height: Int)], chunkSize: Int = chunkSize) -> [Chunk] {
        let ratios = sizes.map { Double($0.width) / Double(max(1, $0.height)) }
        let order = ratios.indices.sorted { ratios[$0] < ratios[$1] || (ratios[$0] == ratios[$1] && $0 < $1) }
        return stride(from: 0, to: order.count, by: chunkSize).map { start in
            let lines = Array(order[start..<min(order.count, start + chunkSize)])
            let ratio = lines.map { ratios[$0] }.reduce(minimumRatio, max)
            let width = min(maximumWidth, Int(Double(height) * ratio))
            return Chunk(lines: lines, width: width, paddedWidth: (width + timeStride - 1) / timeStride * timeStride)
        }
    }

    /// The chunks `widths` asks for: RapidOCR's (`chunks(of:)`), or a chunk per line at the
    /// line's own width (`ownWidths(of:minimum:)`).
    public static func chunks(of sizes: [(width: Int, height: Int)], widths: LineWidths) -> [Chunk] {
        switch widths {
        case .rapidOCRChunks: return chunks(of: sizes)
        case .own(let minimum): return ownWidths(of: sizes, minimum: minimum)
        }
    }

    /// A chunk per line, in the input's order, each as wide as the line resized to 48 high
    /// (`resizedWidth`), at least `minimum`, rounded up to the recogniser's stride: no
    /// column of another line's padding is computed.
    public static func ownWidths(of sizes: [(width: Int, height: Int)], minimum: Int) -> [Chunk] {
        sizes.indices.map { index in
            let width = max(minimum, resizedWidth(of: sizes[index], limit: maximumWidth))
            return Chunk(lines: [index], width: width, paddedWidth: (width + timeStride - 1) / timeStride * timeStride)
        }
    }

    /// A line's width once resized to 48 high: ceil(48 x ratio), at most `limit`.
    public static func resizedWidth(of size: (width: Int, height: Int), limit: Int) -> Int {
        let ratio = Double(size.width) / Double(max(1, size.height))
        return max(1, min(limit, Int((Double(height) * ratio).rounded(.up))))
    }

    /// Fills `map` (reshaped to 3 x 48 x `width`) with `line` resized to `resizedWidth` x 48,
    /// channels B, G, R, each sample (v / 255 - 0.5) / 0.5, and zeros to the right.
    public static func fill(_ map: inout FeatureMap, with line: Raster, resizedWidth: Int, width: Int) {
        map.reshape(channels: 3, height: height, width: width)
        fillPlane(&map, with: LinearResize.resize(line, width: resizedWidth, height: height))
    }

    /// Writes `resized` into the top left of `map` (3 channels, as large or larger), B, G, R,
    /// normalised, and zeros everywhere else.
    static func fillPlane(_ map: inout FeatureMap, with resized: Raster) {
        let (height, width, resizedWidth) = (map.height, map.width, resized.width)
        let plane = height * width
        map.storage.withUnsafeMutableBufferPointer { target in
            for index in 0..<(3 * plane) { target[index] = 0 }
            let channels = resized.channels
            resized.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<min(height, resized.height) {
                    for x in 0..<min(width, resizedWidth) {
                        let pixel = (y * resizedWidth + x) * channels
                        for channel in 0..<3 {
                            // B, G, R: OpenCV's order, which RapidOCR hands the network.
                            let source = channels == 3 ? 2 - channel : 0
                            target[channel * plane + y * width + x] = (Float(pixels[pixel + source]) / 255 - 0.5) / 0.5
                        }
                    }
                }
            }
        }
    }

    /// Fills `map` with the classifier's input for `line`: 3 x 48 x 192, resized and padded as
    /// the recogniser's.
    public static func fillClassifier(_ map: inout FeatureMap, with line: Raster) {
        let width = resizedWidth(of: (line.width, line.height), limit: classifierWidth)
        fill(&map, with: line, resizedWidth: width, width: classifierWidth)
    }
}

/// How wide the recogniser's input is for each line (`ReadingPolicy.lineWidths`).
public enum LineWidths: Sendable, Equatable {
    /// RapidOCR's batching: lines sorted by ratio, six at a time, each padded to its chunk's
    /// widest (at least 320 px). A line's text depends on its padding, so this mode reads what
    /// RapidOCR reads (the agreement the bench reports).
    case rapidOCRChunks
    /// Each line at its own resized width, at least `minimum` pixels, rounded up to a
    /// multiple of 8: no padding computed.
    case own(minimum: Int)
}
