import GlossContract
import GlossGeometry
import GlossImaging
import GlossReading

/// How much of a page's ink the recognised words account for, and where the rest lies.
///
/// A page whose layout analysis dropped a column of a table or a caption still shows a high
/// mean confidence: the words it did read are good. What gives it away is ink with no word on
/// it. This measures that on a small grey copy (about 100 ppi for an A4 scan): ink is what is
/// clearly darker than the area around it, a word box (slightly grown) covers its ink, and the
/// ink left over counts as text only where it looks like text: marks of a letter's size, in
/// rows of several, on plain paper. A photo's texture, a rule line, a page border or a scanner
/// shadow are not rows of letter-sized marks on paper, so they leave a page alone. Text that
/// Tesseract misreads (a line turned on its side read as noise) is covered by its words: that
/// is the confidence's business, not this measure's.
///
/// The regions found are kept (`textRegions`) so that page preparation can later look again
/// at what the layout left out.
public struct InkCoverage: Sendable, Equatable {
    /// The longest side of the copy measured, about 100 ppi for an A4 page at 300 ppi: letters
    /// of 8 pt and up are still several pixels tall, and the measure takes a few milliseconds.
    public static let workingSide = 1000
    /// The share of the page's ink in text-like rows without words above which a page is
    /// suspect, and the least such ink, as a share of the page's area, so a stray line of a
    /// footer on a nearly empty page does not flag it. Chosen by measurement (`ReviewTests`;
    /// docs/report.md, "Pages to review").
    public static let suspectShare = TriagePolicy().textInk
    public static let suspectArea = TriagePolicy().textInkArea

    /// Pixels of the working copy that are ink, and those of them no word box covers.
    public var inkPixels: Int
    public var uncoveredPixels: Int
    /// Uncovered ink in text-like rows.
    public var textPixels: Int
    /// The working copy's size.
    public var size: PixelSize
    /// The rows of text-like ink without words, normalised (origin bottom left, as every
    /// analyzer's boxes), largest first.
    public var textRegions: [NormalizedRect]

    /// The share of the page's ink, 0...1, no word box covers.
    public var uncoveredShare: Double { inkPixels == 0 ? 0 : Double(uncoveredPixels) / Double(inkPixels) }
    /// The share of the page's ink in text-like rows without words.
    public var textShare: Double { inkPixels == 0 ? 0 : Double(textPixels) / Double(inkPixels) }

    /// Whether a reviewer should look at the page: much text-like ink has no words.
    public var isSuspect: Bool {
        textShare >= Self.suspectShare && Double(textPixels) >= Self.suspectArea * Double(max(1, size.width * size.height))
    }

    /// The page's review flag, as the page JSON carries it, with the ink the triage
    /// (`GlossReading.Triage`) decides on; the graph makes the verdict once faces are found.
    public var review: PageReview {
        let area = Double(textPixels) / Double(max(1, size.width * size.height))
        return PageReview(suspect: isSuspect, uncoveredInk: (uncoveredShare * 1000).rounded() / 1000,
                          textInk: (textShare * 1000).rounded() / 1000, textInkArea: (area * 100_000).rounded() / 100_000)
    }

    /// Measures `page` (grey or colour, any size) against the boxes of the words read on it.
    /// `ink` is the ink of `page`'s working copy (`ink(in:)`), when the caller measured it already.
    public init(page: Raster, words: [NormalizedRect], ink measured: [UInt8]? = nil) {
        let grey = Self.workingCopy(of: page)
        size = grey.size
        let (width, height) = (grey.width, grey.height)
        guard width > 2, height > 2 else {
            (inkPixels, uncoveredPixels, textPixels, textRegions) = (0, 0, 0, [])
            return
        }
        let allInk = Self.ink(in: grey, measured: measured)
        var ink = allInk
        let inkCount = ink.reduce(0) { $0 + Int($1) }
        inkPixels = inkCount
        var covered = [UInt8](repeating: 0, count: width * height)
        for word in words {
            let box = Self.pixelBox(of: word, width: width, height: height)
            // A box is grown by a third of its height: ascenders, descenders and accents Tesseract's
            // tight box leaves out are the word's own ink.
            let margin = max(2, box.height / 3)
            let x0 = max(0, box.x - margin), x1 = min(width, box.x + box.width + margin)
            let y0 = max(0, box.y - margin), y1 = min(height, box.y + box.height + margin)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 { for x in x0..<x1 { covered[y * width + x] = 1 } }
        }
        var uncovered = 0
        for i in 0..<ink.count where ink[i] == 1 {
            if covered[i] == 1 { ink[i] = 0 } else { uncovered += 1 }
        }
        uncoveredPixels = uncovered
        let rows = TextRows(uncovered: ink, ink: allInk, grey: grey.pixels, width: width, height: height)
        textPixels = rows.inkPixels
        textRegions = rows.boxes.sorted { $0.width * $0.height > $1.width * $1.height }.map {
            NormalizedRect(x: Double($0.x) / Double(width), y: 1 - Double($0.y + $0.height) / Double(height),
                           width: Double($0.width) / Double(width), height: Double($0.height) / Double(height))
        }
    }

    /// The page in grey, each pixel the mean of a whole block of the original, blocks chosen so
    /// the longest side is at most `workingSide`: one pass in integers over the page. A block
    /// is never taller or wider than the page, so a strip narrower than its factor (150,000 by
    /// 120 pixels) still comes out small, one block high.
    static func workingCopy(of page: Raster) -> Raster {
        let grey = page.layout == .gray ? page : page.grayscale()
        let factor = (max(grey.width, grey.height) + workingSide - 1) / workingSide
        guard factor > 1, grey.width > 0, grey.height > 0 else { return grey }
        let across = min(factor, grey.width), down = min(factor, grey.height)
        let width = grey.width / across, height = grey.height / down
        // Each block row's columns summed down first (a loop the compiler vectorises), then
        // each block's columns summed across.
        var columns = [UInt32](repeating: 0, count: grey.width)
        var output = [UInt8](repeating: 0, count: width * height)
        let area = UInt32(across * down)
        grey.pixels.withUnsafeBufferPointer { source in
            columns.withUnsafeMutableBufferPointer { sums in
                for row in 0..<height {
                    for x in 0..<sums.count { sums[x] = 0 }
                    for y in row * down..<(row + 1) * down {
                        let line = source.baseAddress! + y * grey.width
                        for x in 0..<sums.count { sums[x] &+= UInt32(line[x]) }
                    }
                    for i in 0..<width {
                        var sum: UInt32 = 0
                        for k in i * across..<(i + 1) * across { sum &+= sums[k] }
                        output[row * width + i] = UInt8((sum + area / 2) / area)
                    }
                }
            }
        }
        return Raster(width: width, height: height, layout: .gray, pixels: output)
    }

    /// The least a mark must be darker than its surroundings to be ink: the grain of the
    /// paper, faint bleed-through and the soft edges of letters stay paper.
    static let contrast = 40

    /// `measured` when it is the ink of a copy of `grey`'s size (a caller measured it already),
    /// else `grey`'s ink measured now.
    static func ink(in grey: Raster, measured: [UInt8]?) -> [UInt8] {
        if let measured, measured.count == grey.width * grey.height { return measured }
        return ink(in: grey)
    }

    /// Ink: pixels clearly darker than the mean of the area around them (a window a fifteenth
    /// of the page across, larger than any letter), so uneven light, a shadow or a dark border
    /// is not ink inside, only at its edge. One for ink, zero for paper.
    static func ink(in grey: Raster) -> [UInt8] {
        let (width, height) = (grey.width, grey.height)
        let stride = width + 1
        let radius = max(7, max(width, height) / 30)
        // Sums of every rectangle from the top left corner, a row and a column of zeros ahead,
        // kept modulo 2^32: a window's sum, taken by wrapping differences, is right whenever
        // the window itself holds less than 2^32, whatever the size of the page.
        var sums = [UInt32](repeating: 0, count: stride * (height + 1))
        var ink = [UInt8](repeating: 0, count: width * height)
        grey.pixels.withUnsafeBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                for y in 0..<height {
                    var row: UInt32 = 0
                    for x in 0..<width {
                        row &+= UInt32(pixels[y * width + x])
                        sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] &+ row
                    }
                }
            }
            sums.withUnsafeBufferPointer { sums in
                ink.withUnsafeMutableBufferPointer { ink in
                    for y in 0..<height {
                        let y0 = max(0, y - radius), y1 = min(height, y + radius + 1)
                        let top = sums.baseAddress! + y0 * stride, bottom = sums.baseAddress! + y1 * stride
                        for x in 0..<width {
                            let x0 = max(0, x - radius), x1 = min(width, x + radius + 1)
                            let total = Int(bottom[x1] &+ top[x0] &- top[x1] &- bottom[x0])
                            // mean - value >= contrast, without a division per pixel.
                            let area = (x1 - x0) * (y1 - y0)
                            ink[y * width + x] = total - (Int(pixels[y * width + x]) + contrast) * area >= 0 ? 1 : 0
                        }
                    }
                }
            }
        }
        return ink
    }

    /// A normalised box (origin bottom left) in whole pixels of a `width` x `height` copy, top left origin.
    static func pixelBox(of box: NormalizedRect, width: Int, height: Int) -> PixelRect {
        let x0 = Int((box.minX * Double(width)).rounded(.down)), x1 = Int((box.maxX * Double(width)).rounded(.up))
        let y0 = Int(((1 - box.maxY) * Double(height)).rounded(.down)), y1 = Int(((1 - box.minY) * Double(height)).rounded(.up))
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

/// The rows of letter-sized marks among some ink: what of it looks like lines of text.
struct TextRows {
    var inkPixels = 0
    var boxes: [PixelRect] = []

    /// The rows among the `uncovered` ink; `ink` is all of it, for telling paper around them.
    init(uncovered: [UInt8], ink: [UInt8], grey: [UInt8], width: Int, height: Int) {
        // Letter-sized: from 3 pixels (8 pt at the working scale) to a twentieth of the page,
        // not a solid block, not a line.
        let tallest = max(6, max(width, height) / 20)
        let marks = Components(of: uncovered, width: width, height: height).all.filter { mark in
            let box = mark.box
            let fill = Double(mark.pixels) / Double(box.width * box.height)
            return box.height >= 3 && box.height <= tallest && box.width <= tallest * 2
                && fill >= 0.08 && fill <= 0.92 && box.width <= box.height * 8
        }
        guard marks.count >= 3 else { return }
        // Neighbouring marks joined along the row: each mark's box grown sideways by its height.
        var joined = [UInt8](repeating: 0, count: width * height)
        for mark in marks {
            let box = mark.box
            let x0 = max(0, box.x - box.height), x1 = min(width, box.x + box.width + box.height)
            for y in box.y..<box.y + box.height { for x in x0..<x1 { joined[y * width + x] = 1 } }
        }
        let rows = Components(of: joined, width: width, height: height)
        var marksPerRow = [Int](repeating: 0, count: rows.all.count)
        var inkPerRow = [Int](repeating: 0, count: rows.all.count)
        var heights = [[Int]](repeating: [], count: rows.all.count)
        for mark in marks {
            let centre = (mark.box.y + mark.box.height / 2) * width + mark.box.x + mark.box.width / 2
            guard let row = rows.label(at: centre) else { continue }
            marksPerRow[row] += 1
            inkPerRow[row] += mark.pixels
            heights[row].append(mark.box.height)
        }
        for (index, row) in rows.all.enumerated() where marksPerRow[index] >= 3 {
            let typical = heights[index].sorted()[heights[index].count / 2]
            // A row of text is long and low; and it lies on paper, not among a photo's mid tones.
            guard row.box.width >= typical * 3, row.box.height <= typical * 3,
                  Self.onPaper(row.box, ink: ink, grey: grey, width: width, height: height) else { continue }
            inkPixels += inkPerRow[index]
            boxes.append(row.box)
        }
    }

    /// Whether the area around `box` is plain paper between the marks: what is not ink there
    /// is nearly all of one grey. Around a photo's texture it varies.
    static func onPaper(_ box: PixelRect, ink: [UInt8], grey: [UInt8], width: Int, height: Int) -> Bool {
        let margin = max(2, box.height / 2)
        let x0 = max(0, box.x - margin), x1 = min(width, box.x + box.width + margin)
        let y0 = max(0, box.y - margin), y1 = min(height, box.y + box.height + margin)
        var histogram = [Int](repeating: 0, count: 256)
        var paper = 0
        for y in y0..<y1 {
            for x in x0..<x1 where ink[y * width + x] == 0 {
                histogram[Int(grey[y * width + x])] += 1
                paper += 1
            }
        }
        guard paper > 0 else { return false }
        var seen = 0, median = 0
        while seen * 2 < paper {
            seen += histogram[median]
            median += 1
        }
        let near = histogram[max(0, median - 1 - paperSpread)...min(255, median - 1 + paperSpread)].reduce(0, +)
        return Double(near) >= 0.8 * Double(paper)
    }

    /// How far from its usual grey paper may be and still be paper.
    static let paperSpread = 30
}

/// The 8-connected components of the set pixels of a mask.
struct Components {
    struct Component {
        var box: PixelRect
        var pixels: Int
    }

    var all: [Component] = []
    /// Each pixel's component, from 1; 0 for an unset pixel.
    private var labels: [Int32]

    init(of mask: [UInt8], width: Int, height: Int) {
        labels = [Int32](repeating: 0, count: width * height)
        var stack: [Int] = []
        for start in 0..<mask.count where mask[start] != 0 && labels[start] == 0 {
            let label = Int32(all.count + 1)
            labels[start] = label
            stack.append(start)
            var (minX, minY, maxX, maxY, count) = (width, height, -1, -1, 0)
            while let index = stack.popLast() {
                let x = index % width, y = index / width
                count += 1
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < height else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < width else { continue }
                        let next = ny * width + nx
                        if mask[next] != 0 && labels[next] == 0 {
                            labels[next] = label
                            stack.append(next)
                        }
                    }
                }
            }
            all.append(Component(box: PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), pixels: count))
        }
    }

    /// The component at pixel `index`, as an index into `all`; nil for an unset pixel.
    func label(at index: Int) -> Int? {
        let label = labels[index]
        return label == 0 ? nil : Int(label) - 1
    }
}
