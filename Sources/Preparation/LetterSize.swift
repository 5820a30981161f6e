import GlossGeometry
import GlossImaging

/// How tall a page's letters are, measured from its ink: the most common height of the marks
/// of a letter's shape. On a page of text that is the height of `a`, `e`, `n`, `o` (the
/// x-height); on a table of figures, the height of the digits.
///
/// Tesseract's layout analysis sizes its rules (gaps, columns, noise) from the resolution it is
/// told, and its recogniser reads best at certain letter sizes. A file's stated resolution is
/// often a placeholder (72 or 96 ppi on a page scanned at 300), so the letters themselves are
/// the better witness of how large the text is.
public struct LetterSize: Sendable, Equatable {
    /// The most common letter height, in pixels of the image measured.
    public var xHeight: Int
    /// How many letter-shaped marks were measured.
    public var letters: Int

    /// Fewer letter-shaped marks than this say nothing reliable about a page's text.
    public static let fewestLetters = 20

    public init(xHeight: Int, letters: Int) {
        self.xHeight = xHeight
        self.letters = letters
    }

    /// Measures `page` (grey or colour); nil when it holds too few letter-shaped marks.
    public init?(of page: Raster) {
        guard let found = Self.letterMarks(on: page) else { return nil }
        let (candidates, isLetter, tallest) = (found.candidates, found.isLetter, found.tallest)
        var histogram = [Int](repeating: 0, count: tallest + 2)
        var letters = 0
        for (mark, isLetter) in zip(candidates, isLetter) where isLetter {
            histogram[mark.height] += 1
            letters += 1
        }
        guard letters >= Self.fewestLetters else { return nil }
        // Smoothed over neighbouring heights: a font's x-height falls on two adjacent values.
        var best = 0, bestScore = -1
        for height in 1...tallest {
            let score = histogram[height - 1] + 2 * histogram[height] + histogram[height + 1]
            if score > bestScore { (best, bestScore) = (height, score) }
        }
        self.init(xHeight: best, letters: letters)
    }
}

/// The letter-shaped marks of a page, whether each is a letter of a line of text
/// (`LetterSize.letters(among:)`), the row of each (marks of one row share its number), and the
/// tallest height taken for a letter.
struct LetterMarks {
    var candidates: [Marks.Box]
    var isLetter: [Bool]
    var rows: [Int]
    var tallest: Int
}

extension LetterSize {
    /// The marks of a letter's shape on `page`, whether each is a letter of a line of text
    /// (`letters(among:)`), the row each belongs to, and the tallest height taken for a
    /// letter; nil for a page too small to measure.
    static func letterMarks(on page: Raster) -> LetterMarks? {
        marks(on: page).map { letterMarks(among: $0.boxes, pageHeight: $0.height) }
    }

    /// The marks of ink on `page` (grey or colour), split from the paper at the grey level
    /// Otsu's method finds, and the page's size; nil for a page too small to measure.
    static func marks(on page: Raster) -> (boxes: [Marks.Box], width: Int, height: Int)? {
        let grey = page.layout == .gray ? page : page.grayscale()
        guard grey.width > 2, grey.height > 2 else { return nil }
        let levels = Raster.histogram(of: grey.pixels)
        let threshold = Raster.otsuThreshold(histogram: levels)
        let dark = levels[...Int(threshold)].reduce(0, +)
        // Light text on a dark page: the letters are the light side.
        let inkIsDark = dark * 2 <= grey.pixels.count
        return (Marks(in: grey, threshold: threshold, inkIsDark: inkIsDark).boxes, grey.width, grey.height)
    }

    /// Which of `boxes`, the marks of a page `pageHeight` pixels tall, are letter-shaped, and of
    /// those which are letters of a line and in which row.
    static func letterMarks(among boxes: [Marks.Box], pageHeight: Int) -> LetterMarks {
        let tallest = max(8, pageHeight / 8)
        // Shading: large marks that are mostly ink, the merged dots of a halftone or dither.
        let shading = boxes.filter { $0.height > 24 && $0.width > 24 && $0.pixels * 4 >= $0.width * $0.height }
        let candidates = boxes.filter { mark in
            mark.looksLikeALetter(tallest: tallest) && !shading.contains {
                $0.minX <= mark.minX && $0.maxX >= mark.maxX && $0.minY <= mark.minY && $0.maxY >= mark.maxY
                    && $0.width * $0.height >= 4 * mark.width * mark.height
            }
        }
        let (isLetter, rows) = letterRows(among: candidates)
        return LetterMarks(candidates: candidates, isLetter: isLetter, rows: rows, tallest: tallest)
    }

    /// A row of letters on a page: the box of its marks, in the page's pixels (origin top
    /// left), and how many letters it holds.
    public struct Row: Sendable, Equatable {
        public var box: PixelRect
        public var letters: Int
    }

    /// The rows of letters on `page` (`letters(among:)`), most letters first: pieces of its
    /// lines of text, a word or more each, found without reading anything.
    public static func rows(on page: Raster) -> [Row] {
        letterMarks(on: page).map(rows(of:)) ?? []
    }

    /// The rows of letters on `page` as it stands and on the page stood up a quarter turn
    /// clockwise (`PageTransform(quarterTurns: 1)`), in that page's pixels: the marks are found
    /// once, and turned as boxes.
    public static func rowsBothWays(on page: Raster) -> (across: [Row], stood: [Row]) {
        guard let found = marks(on: page) else { return ([], []) }
        // A clockwise quarter turn takes the pixel (x, y) of a page h tall to (h - 1 - y, x).
        let turned = found.boxes.map { box in
            Marks.Box(minX: found.height - 1 - box.maxY, minY: box.minX, maxX: found.height - 1 - box.minY, maxY: box.maxX,
                      pixels: box.pixels)
        }
        return (rows(of: letterMarks(among: found.boxes, pageHeight: found.height)),
                rows(of: letterMarks(among: turned, pageHeight: found.width)))
    }

    /// The rows of `found`'s letters, most letters first.
    private static func rows(of found: LetterMarks) -> [Row] {
        var boxes: [Int: (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int)] = [:]
        for index in found.candidates.indices where found.isLetter[index] {
            let mark = found.candidates[index]
            if let row = boxes[found.rows[index]] {
                boxes[found.rows[index]] = (min(row.minX, mark.minX), min(row.minY, mark.minY), max(row.maxX, mark.maxX),
                                            max(row.maxY, mark.maxY), row.count + 1)
            } else {
                boxes[found.rows[index]] = (mark.minX, mark.minY, mark.maxX, mark.maxY, 1)
            }
        }
        return boxes.values
            .map { Row(box: PixelRect(x: $0.minX, y: $0.minY, width: $0.maxX - $0.minX + 1, height: $0.maxY - $0.minY + 1),
                       letters: $0.count) }
            .sorted { $0.letters != $1.letters ? $0.letters > $1.letters : ($0.box.y, $0.box.x) < ($1.box.y, $1.box.x) }
    }
}

extension LetterSize {
    /// Which marks are letters of a line of text: each sits in a row of at least
    /// `fewestInARow` marks of about its height, side by side on one line, and none has a mark
    /// of its height stacked closely above or below it.
    ///
    /// The dots of a halftone shading or a dithered picture have neighbours as close above and
    /// below as beside, where the letters of consecutive lines are a line's gap apart. Without
    /// this a shaded table's thousands of dots outvote its text (a Scribe table read its dots'
    /// 4 px as the x-height). The fibres of a grey card a receipt was photographed on are
    /// sparser: two of them fall side by side by chance, but seldom a row of three, where a
    /// line of letters makes one of every word (`receipt-dm`: the card's 5 px outvoted the
    /// receipt's 20 px letters, and the page was enlarged twice over to read its texture).
    static func letters(among marks: [Marks.Box]) -> [Bool] { letterRows(among: marks).isLetter }

    /// `letters(among:)`, with the row of each mark: marks of one row share its number.
    static func letterRows(among marks: [Marks.Box]) -> (isLetter: [Bool], rows: [Int]) {
        let cell = 16
        var grid: [Int: [Int32]] = [:]
        func key(_ column: Int, _ row: Int) -> Int { row << 24 | column }
        for (index, mark) in marks.enumerated() {
            for row in (mark.minY / cell)...(mark.maxY / cell) {
                for column in (mark.minX / cell)...(mark.maxX / cell) { grid[key(column, row), default: []].append(Int32(index)) }
            }
        }
        /// Calls `body` with the index of each mark whose box meets the rectangle, other than
        /// `index` itself, until it returns true; whether one did.
        func any(near index: Int, x0: Int, y0: Int, x1: Int, y1: Int, _ body: (Int) -> Bool) -> Bool {
            for row in (max(0, y0) / cell)...(max(0, y1) / cell) {
                for column in (max(0, x0) / cell)...(max(0, x1) / cell) {
                    for other in grid[key(column, row)] ?? [] where Int(other) != index {
                        let box = marks[Int(other)]
                        if box.minX <= x1, box.maxX >= x0, box.minY <= y1, box.maxY >= y0, body(Int(other)) { return true }
                    }
                }
            }
            return false
        }
        func similar(_ other: Marks.Box, _ h: Int) -> Bool { other.height * 2 >= h && other.height <= h * 2 }
        let alone = marks.indices.map { index in
            let mark = marks[index], h = mark.height
            return !any(near: index, x0: mark.minX, y0: mark.minY - h / 2 - 1, x1: mark.maxX, y1: mark.maxY + h / 2 + 1) { other in
                let box = marks[other]
                return similar(box, h) && (box.maxY < mark.minY || box.minY > mark.maxY)
            }
        }
        // Rows: each mark joined to the marks of its height beside it on its line.
        var rows = DisjointSets(count: marks.count)
        for index in marks.indices where alone[index] {
            let mark = marks[index], h = mark.height
            _ = any(near: index, x0: mark.minX - h, y0: mark.minY, x1: mark.maxX + h, y1: mark.maxY) { other in
                let box = marks[other]
                if alone[other], similar(box, h), abs(box.maxY - mark.maxY) * 3 <= h, box.maxX < mark.minX || box.minX > mark.maxX {
                    rows.join(index, other)
                }
                return false
            }
        }
        var rowSizes = [Int](repeating: 0, count: marks.count)
        for index in marks.indices where alone[index] { rowSizes[rows.root(index)] += 1 }
        let roots = marks.indices.map { rows.root($0) }
        return (marks.indices.map { alone[$0] && rowSizes[roots[$0]] >= fewestInARow }, roots)
    }

    /// A row of fewer marks than this is not taken for letters: pairs fall together by chance in
    /// a texture, rows of three seldom.
    public static let fewestInARow = 3
}

/// The bounding boxes of the connected marks of ink (8-connected), found run by run: each
/// row's runs of ink join the runs they touch in the row above, through a union-find.
struct Marks {
    struct Box {
        var minX: Int, minY: Int, maxX: Int, maxY: Int, pixels: Int
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }

        /// A mark of a letter's shape: a few pixels tall at least, neither a rule nor a speck
        /// nor a block, and filled like a glyph: strokes, not a solid dot or square.
        func looksLikeALetter(tallest: Int) -> Bool {
            height >= 4 && height <= tallest && width * 4 >= height && width <= height * 3
                && pixels * 100 >= width * height * 15 && pixels * 100 < width * height * 90
        }
    }

    private(set) var boxes: [Box] = []

    init(in grey: Raster, threshold: UInt8, inkIsDark: Bool) {
        let width = grey.width
        var parent: [Int32] = []
        var found: [Box] = []
        // Runs of the previous row and this one: start, end (inclusive), label.
        var previous: [(Int, Int, Int32)] = [], current: [(Int, Int, Int32)] = []
        func root(_ label: Int32) -> Int32 {
            var label = label
            while parent[Int(label)] != label {
                parent[Int(label)] = parent[Int(parent[Int(label)])]
                label = parent[Int(label)]
            }
            return label
        }
        let limit = SIMD16<UInt8>(repeating: threshold)
        grey.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<grey.height {
                let row = pixels.baseAddress! + y * width
                current.removeAll(keepingCapacity: true)
                var x = 0
                var above = 0
                while x < width {
                    // Most of a page is paper: it is passed over sixteen pixels at a time.
                    while x + 16 <= width {
                        let ink = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD16<UInt8>.self) .<= limit
                        guard inkIsDark ? !any(ink) : all(ink) else { break }
                        x += 16
                    }
                    while x < width && (row[x] <= threshold) != inkIsDark { x += 1 }
                    guard x < width else { break }
                    let start = x
                    while x < width && (row[x] <= threshold) == inkIsDark { x += 1 }
                    let end = x - 1
                    var label: Int32 = -1
                    // Runs above that touch this one, diagonals included.
                    while above < previous.count && previous[above].1 < start - 1 { above += 1 }
                    var k = above
                    while k < previous.count && previous[k].0 <= end + 1 {
                        let other = root(previous[k].2)
                        if label < 0 {
                            label = other
                        } else if other != label {
                            parent[Int(other)] = label
                            let merged = found[Int(other)]
                            found[Int(label)].minX = min(found[Int(label)].minX, merged.minX)
                            found[Int(label)].minY = min(found[Int(label)].minY, merged.minY)
                            found[Int(label)].maxX = max(found[Int(label)].maxX, merged.maxX)
                            found[Int(label)].maxY = max(found[Int(label)].maxY, merged.maxY)
                            found[Int(label)].pixels += merged.pixels
                        }
                        k += 1
                    }
                    if label < 0 {
                        label = Int32(found.count)
                        parent.append(label)
                        found.append(Box(minX: start, minY: y, maxX: end, maxY: y, pixels: 0))
                    }
                    found[Int(label)].minX = min(found[Int(label)].minX, start)
                    found[Int(label)].maxX = max(found[Int(label)].maxX, end)
                    found[Int(label)].maxY = y
                    found[Int(label)].pixels += end - start + 1
                    current.append((start, end, label))
                }
                swap(&previous, &current)
            }
        }
        boxes = found.indices.filter { parent[$0] == Int32($0) }.map { found[$0] }
    }
}
