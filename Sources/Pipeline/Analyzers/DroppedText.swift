import GlossContract
import GlossGeometry
import GlossImaging
import GlossTextRecognition

/// Text Tesseract's page layout left out, found and read again.
///
/// On sparse pages (tables of short numbers, forms, charts) Tesseract's layout analysis can
/// drop whole columns, or take a column of numbers for one word written downwards and read it
/// as garbage. Both leave ink that no trusted word covers. This finds that ink on the small
/// grey copy the coverage is measured on: marks of a letter's size, joined into lines, lines
/// stacked into blocks. Each block is then read by Tesseract on its own, in the segmentation
/// mode that fits its shape, and the words it finds are merged into the page's text.
///
/// Nothing is read again on a page whose ink the words cover, and a region costs what its own
/// pixels cost, so the time added follows the text missed, not the page.
struct DroppedText {
    /// A part of the page to read again.
    struct Region: Equatable {
        /// Normalised, origin bottom left, padded around the ink.
        var box: NormalizedRect
        /// The lines of marks found in it.
        var lines: Int
        var layout: RegionLayout
    }

    /// Whether Tesseract reads a region's unsure lines again inverted, from the region's median
    /// grey on the copy it reads (`TextRecognizer.medianGrey(in:of:)`): only on a dark ground.
    static func invertedLines(onGround ground: Int) -> InvertedLines {
        ground >= lightGround ? .skipped : .tried
    }

    /// Words below this confidence do not count as covering their ink: a column of numbers
    /// taken for a word written downwards comes back as garbage of low confidence, and its
    /// ink is read again. Chosen by measurement (docs/reading.md, "Text the layout dropped").
    static let trustedConfidence = 50.0
    /// Words read again below this confidence are dropped: a rule's end, a smudge, a graphic's
    /// edge or an engraving's hatching read as letters. Measured on the 63 real pages of
    /// `bench/ocr-quality`: of the words read again at 60 to 70, a quarter were in the page's
    /// truth; at 70 to 80, two in five; at 80 to 90, three in five. A word adds to F1 when more
    /// than about half such words are right.
    static let acceptedConfidence = 70.0
    /// Words of one or two characters read again need more: at 70 to 90, 6 of 22 were right,
    /// at 90 and above, 46 of 47 (a table's dropped numbers come back there).
    static let acceptedShortWordConfidence = 90.0

    /// Whether a word read again is sure enough to keep.
    static func isSure(_ word: RecognizedWord) -> Bool {
        word.confidence >= (word.text.count <= 2 ? acceptedShortWordConfidence : acceptedConfidence)
    }

    /// How a region is read. Measured on 16 real pages with dropped text (tables, charts, a
    /// form, multi-column pages): a uniform block (psm 6) for every region reads as well as a
    /// single line (psm 7) for one-line regions, within 0.001 F1, and sparse text (psm 11)
    /// worse by 0.008 (docs/reading.md, "Text the layout dropped").
    static let layout = RegionLayout.block
    /// A region whose median grey (on the copy Tesseract reads) is this light or lighter is dark
    /// ink on light paper, where Tesseract's inverted second reading of an unsure line never
    /// wins: it is skipped. On the bench's pages the regions of white labels photographed on
    /// dark goods (`photo-label-*`) and of a slide's inverted title bars have medians of 0 to
    /// 43, the regions of paper 180 to 254 (docs/reading.md, "Text the layout dropped").
    static let lightGround = 128

    /// At most this many regions, the largest, are read on one page: a bound on what a page
    /// full of letter-like texture costs (the busiest real page measured, a form, has 60).
    static let mostRegions = 60

    /// When fewer than this share of a page's words are trusted, its reading failed as a whole
    /// (the page lies on its side, or is a photo), which a second reading of the same pixels
    /// does not mend, at seconds a page: nothing is read again. Measured: on real pages lying on
    /// their side a third of the words are trusted; on the real pages that gained, two thirds or more.
    static let leastTrustedShare = 0.5

    /// The regions of `text`'s page worth reading again, found on `small`, the page's grey
    /// working copy (`InkCoverage.workingCopy`), largest first. `ink` is `small`'s ink
    /// (`InkCoverage.ink(in:)`), when the caller measured it already.
    static func regions(in small: Raster, text: RecognizedText, ink measured: [UInt8]? = nil) -> [Region] {
        let (width, height) = (small.width, small.height)
        let words = text.words
        let trustedWords = words.filter { $0.confidence >= trustedConfidence }
        guard width > 8, height > 8, Double(trustedWords.count) >= leastTrustedShare * Double(words.count) else { return [] }
        let ink = InkCoverage.ink(in: small, measured: measured)
        var uncovered = ink
        for word in trustedWords {
            let box = InkCoverage.pixelBox(of: word.box, width: width, height: height)
            // Grown by a third of its height, as the coverage measure does: accents, descenders
            // and the soft edges Tesseract's tight box leaves out are the word's own ink.
            let margin = max(2, box.height / 3)
            let x0 = max(0, box.x - margin), x1 = min(width, box.maxX + margin)
            let y0 = max(0, box.y - margin), y1 = min(height, box.maxY + margin)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 { for x in x0..<x1 { uncovered[y * width + x] = 0 } }
        }
        let marks = letterMarks(in: uncovered, width: width, height: height)
        guard !marks.isEmpty else { return [] }
        let lines = textLines(of: marks, ink: ink, grey: small.pixels, width: width, height: height)
        return blocks(of: lines).prefix(mostRegions).map { block in
            let pad = max(2, block.lineHeight / 2)
            let x0 = max(0, block.box.x - pad), y0 = max(0, block.box.y - pad)
            let x1 = min(width, block.box.maxX + pad), y1 = min(height, block.box.maxY + pad)
            return Region(box: NormalizedRect(PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), in: small.size),
                          lines: block.lines, layout: layout)
        }
    }

    /// The components of `mask` of a letter's size: at least 4 pixels tall (a 7 pt digit at
    /// the working scale is 8), at most a twentieth of the page, neither a rule nor a solid block.
    static func letterMarks(in mask: [UInt8], width: Int, height: Int) -> [PixelRect] {
        let tallest = max(8, max(width, height) / 20)
        return Components(of: mask, width: width, height: height).all.compactMap { mark in
            let box = mark.box
            let fill = Double(mark.pixels) / Double(box.width * box.height)
            let letterSized = box.height >= 4 && box.height <= tallest && box.width <= tallest * 2
                && box.width <= box.height * 6 && box.height <= box.width * 8
            return letterSized && fill >= 0.1 && fill <= 0.95 ? box : nil
        }
    }

    /// A line of marks.
    struct Line {
        var box: PixelRect
        var marks: Int
        /// The median height of its marks.
        var typical: Int
    }

    /// Marks joined along their rows into lines: each mark's box grown sideways by its height
    /// (a word space, not the gap between a table's columns). A line of one mark is kept only
    /// when it is a digit's or a letter's full height, not a dot; a line must lie on paper.
    static func textLines(of marks: [PixelRect], ink: [UInt8], grey: [UInt8], width: Int, height: Int) -> [Line] {
        var joined = [UInt8](repeating: 0, count: width * height)
        for box in marks {
            let x0 = max(0, box.x - box.height), x1 = min(width, box.maxX + box.height)
            for y in box.y..<box.maxY { for x in x0..<x1 { joined[y * width + x] = 1 } }
        }
        let rows = Components(of: joined, width: width, height: height)
        var heights = [[Int]](repeating: [], count: rows.all.count)
        for box in marks {
            guard let row = rows.label(at: (box.y + box.height / 2) * width + box.x + box.width / 2) else { continue }
            heights[row].append(box.height)
        }
        var lines: [Line] = []
        for (index, row) in rows.all.enumerated() where !heights[index].isEmpty {
            let sorted = heights[index].sorted()
            let typical = sorted[sorted.count / 2]
            guard row.box.height <= typical * 3, sorted.count > 1 || typical >= 6,
                  TextRows.onPaper(row.box, ink: ink, grey: grey, width: width, height: height) else { continue }
            lines.append(Line(box: row.box, marks: sorted.count, typical: typical))
        }
        return lines
    }

    /// A block of lines.
    struct Block {
        var box: PixelRect
        var lines: Int
        var lineHeight: Int
    }

    /// Lines stacked into blocks: a line joins the block above it when they overlap across and
    /// the gap between them is under twice the line's height, so a table's column is one block
    /// and its neighbour column another. Largest first.
    static func blocks(of lines: [Line]) -> [Block] {
        var stacks = DisjointSets(count: lines.count)
        let order = lines.indices.sorted { lines[$0].box.y < lines[$1].box.y }
        for (position, i) in order.enumerated() {
            let a = lines[i].box
            for j in order[(position + 1)...] {
                let b = lines[j].box
                let gap = b.y - a.maxY
                if gap > 2 * max(lines[i].typical, lines[j].typical) { break }
                let overlap = min(a.maxX, b.maxX) - max(a.x, b.x)
                if overlap > 0 && Double(overlap) >= 0.3 * Double(min(a.width, b.width)) { stacks.join(j, i) }
            }
        }
        var grouped: [Int: Block] = [:]
        for i in lines.indices {
            let line = lines[i]
            let root = stacks.root(i)
            if var block = grouped[root] {
                let x0 = min(block.box.x, line.box.x), y0 = min(block.box.y, line.box.y)
                let x1 = max(block.box.maxX, line.box.maxX), y1 = max(block.box.maxY, line.box.maxY)
                block.box = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                block.lines += 1
                block.lineHeight = max(block.lineHeight, line.typical)
                grouped[root] = block
            } else {
                grouped[root] = Block(box: line.box, lines: 1, lineHeight: line.typical)
            }
        }
        // Blocks of equal area by their place, top to bottom then left to right: a dictionary's
        // order differs from run to run, and so would the words merged from them.
        return grouped.values.sorted { a, b in
            let (areaA, areaB) = (a.box.width * a.box.height, b.box.width * b.box.height)
            return areaA != areaB ? areaA > areaB : (a.box.y, a.box.x) < (b.box.y, b.box.x)
        }
    }
}
