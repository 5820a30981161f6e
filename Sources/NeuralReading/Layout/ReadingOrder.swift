import Foundation
import GlossContract
import GlossGeometry

/// A line as the layout sees it: its extent in page pixels (y downwards), turned level by the
/// page's tilt, so that a column's lines share their left edge and a row's their height.
public struct LayoutLine: Sendable, Equatable {
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    public var height: Double { bottom - top }
}

/// The page's lines in the order a person reads them: blocks (columns, table cells, stretches
/// between large gaps) of paragraphs of lines, from the lines' boxes alone.
///
/// The method is the recursive XY-cut (Nagy and Seth, 1984) on the gaps between lines: a region
/// whose lines sit one under the other is a block, read top to bottom; otherwise it is cut at a
/// gutter running its whole height (columns, left first), else at its widest gap between rows
/// (top first). A region whose rows all overlap is cut into rows by the lines' middles, else
/// between the lines of its one row (left first). Tilt is
/// taken out first: each line is levelled by its own baseline's angle about the page turned by
/// the median angle of its long lines' axis (a line read turned over counts as its axis). Paragraphs split a block where the space between two
/// lines is larger than the page's usual one, or where a line is indented. Every threshold is
/// a `LayoutPolicy` value in line heights. Knows nothing of the engine that found the lines.
public enum ReadingOrder {
    /// The page's text from `lines` in any order, each box in the one currency, on a page of
    /// `page` pixels: blocks of paragraphs in reading order. No line gives no block.
    public static func text(_ lines: [TextLine], page: PixelSize, policy: LayoutPolicy = LayoutPolicy()) -> RecognizedText {
        guard !lines.isEmpty else { return RecognizedText() }
        let (levelled, lineHeight) = level(lines, page: page, policy: policy)
        let blocks = layout(levelled, lineHeight: lineHeight, policy: policy).map { block in
            let paragraphs = block.map { indices in
                let members = indices.map { lines[$0] }
                return TextParagraph(box: .enclosing(members.map(\.box)), lines: members)
            }
            return TextBlock(box: .enclosing(paragraphs.map(\.box)), paragraphs: paragraphs)
        }
        return RecognizedText(blocks: blocks)
    }

    /// Blocks of paragraphs of indices into `lines`, in reading order; each index once.
    /// `lineHeight` is the unit of the policy's thresholds (`level` measures it).
    public static func layout(_ lines: [LayoutLine], lineHeight: Double, policy: LayoutPolicy = LayoutPolicy()) -> [[[Int]]] {
        guard !lines.isEmpty else { return [] }
        let cutter = Cutter(lines: lines, unit: max(lineHeight, 1e-9), policy: policy)
        let blocks = cutter.regions(Array(lines.indices))
        // The usual space between a line and the next in a block: the median over the page.
        let spaces = blocks.flatMap { block in zip(block, block.dropFirst()).map { lines[$1].top - lines[$0].bottom } }
        let usual = median(spaces) ?? 0
        return blocks.map { cutter.paragraphs($0, usualSpace: usual) }
    }

    /// `lines` levelled: each one's extent along and across its baseline, placed at its centre
    /// turned about the page's centre by the page's tilt; and the median line height.
    public static func level(_ lines: [TextLine], page: PixelSize, policy: LayoutPolicy = LayoutPolicy()) -> (lines: [LayoutLine], lineHeight: Double) {
        let (width, height) = (Double(page.width), Double(page.height))
        struct Measured { var centre: PixelPoint; var angle: Double; var length: Double; var thickness: Double }
        let measured = lines.map { line -> Measured in
            let box = line.box
            let (boxWidth, boxHeight) = (box.width * width, box.height * height)
            let centre = PixelPoint(x: (box.minX + box.width / 2) * width, y: (1 - box.minY - box.height / 2) * height)
            guard let baseline = line.baseline else {
                return Measured(centre: centre, angle: 0, length: boxWidth, thickness: boxHeight)
            }
            // y downwards, as the page's pixels run.
            let dx = (baseline.end.x - baseline.start.x) * width, dy = (baseline.start.y - baseline.end.y) * height
            let angle = dx == 0 && dy == 0 ? 0 : atan2(dy, dx)
            // A rectangle of length l and thickness t at `angle` has a box of l|cos| + t|sin| by
            // l|sin| + t|cos|; solved for l and t where that is well posed (within 30 degrees
            // of an axis).
            let (c, s) = (abs(cos(angle)), abs(sin(angle)))
            let determinant = c * c - s * s
            if abs(determinant) > 0.5 {
                let length = (boxWidth * c - boxHeight * s) / determinant
                let thickness = (boxHeight * c - boxWidth * s) / determinant
                if length > 0, thickness > 0 {
                    return Measured(centre: centre, angle: angle, length: length, thickness: thickness)
                }
            }
            return Measured(centre: centre, angle: angle, length: boxWidth, thickness: boxHeight)
        }
        let lineHeight = median(measured.map(\.thickness)) ?? 1
        let voters = measured.filter { $0.length >= policy.tiltVoterLength * lineHeight }
        // The tilt of the lines' axis: a line the classifier turned over runs at 180 degrees
        // along the same axis, and the page is read as it stands.
        let axis = { (angle: Double) in angle > Double.pi / 2 ? angle - Double.pi : angle <= -Double.pi / 2 ? angle + Double.pi : angle }
        let tilt = median((voters.isEmpty ? measured : voters).map { axis($0.angle) }) ?? 0
        let (c, s) = (cos(-tilt), sin(-tilt))
        let middle = PixelPoint(x: width / 2, y: height / 2)
        let levelled = measured.map { line -> LayoutLine in
            let (x, y) = (line.centre.x - middle.x, line.centre.y - middle.y)
            let centre = PixelPoint(x: middle.x + x * c - y * s, y: middle.y + x * s + y * c)
            return LayoutLine(left: centre.x - line.length / 2, top: centre.y - line.thickness / 2,
                              right: centre.x + line.length / 2, bottom: centre.y + line.thickness / 2)
        }
        return (levelled, lineHeight)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The XY-cut over one page's levelled lines.
struct Cutter {
    let lines: [LayoutLine]
    /// One line height, in pixels.
    let unit: Double
    let policy: LayoutPolicy

    /// How far a line may reach into the next row and still leave a gap, in pixels.
    private var overlap: Double { policy.rowOverlap * unit }

    /// `region`'s blocks in reading order, each its lines top to bottom.
    func regions(_ region: [Int]) -> [[Int]] {
        if region.count <= 1 || isStacked(region) {
            return [region.sorted { lines[$0].top < lines[$1].top }]
        }
        let columns = sideBySide(region, gap: policy.columnGap * unit, minimumLines: policy.minimumColumnLines)
        if columns.count > 1 { return columns.flatMap(regions) }
        if let (upper, lower) = rowSplit(region) { return regions(upper) + regions(lower) }
        // Rows overlap from top to bottom (set close, or a photographed page's warp): rows by
        // the lines' middles.
        let rows = rowsByMiddles(region)
        if rows.count > 1 { return rows.flatMap(regions) }
        let cells = sideBySide(region, gap: 0, minimumLines: 1)
        if cells.count > 1 { return cells.flatMap(regions) }
        return [region.sorted { (lines[$0].top, lines[$0].left) < (lines[$1].top, lines[$1].left) }]
    }

    /// Whether no two of `region`'s lines are side by side: each starts below every line above it
    /// ends (within `overlap`).
    func isStacked(_ region: [Int]) -> Bool {
        var lowest = -Double.infinity
        for index in region.sorted(by: { lines[$0].top < lines[$1].top }) {
            if lines[index].top + overlap < lowest - overlap { return false }
            lowest = max(lowest, lines[index].bottom)
        }
        return true
    }

    /// `region` cut at its widest gap between rows (the topmost of equals): the lines above and
    /// below; nil when every row overlaps the next.
    func rowSplit(_ region: [Int]) -> ([Int], [Int])? {
        let sorted = region.sorted { lines[$0].top < lines[$1].top }
        var lowest = lines[sorted[0]].bottom - overlap
        var best: (width: Double, at: Int)?
        for position in sorted.indices.dropFirst() {
            let line = lines[sorted[position]]
            let gap = line.top + overlap - lowest
            // Equal gaps (within rounding): the topmost.
            if gap > 0, gap > (best?.width ?? 0) + 1e-9 * unit { best = (gap, position) }
            lowest = max(lowest, line.bottom - overlap)
        }
        guard let best else { return nil }
        return (Array(sorted[..<best.at]), Array(sorted[best.at...]))
    }

    /// `region`'s lines in rows, top to bottom: taken by their middles, a line more than
    /// `rowPitch` line heights below the one before starts a row.
    func rowsByMiddles(_ region: [Int]) -> [[Int]] {
        let middle = { (index: Int) in (lines[index].top + lines[index].bottom) / 2 }
        let sorted = region.sorted { middle($0) < middle($1) }
        var rows: [[Int]] = [[sorted[0]]]
        for (above, index) in zip(sorted, sorted.dropFirst()) {
            if middle(index) - middle(above) > policy.rowPitch * unit {
                rows.append([index])
            } else {
                rows[rows.count - 1].append(index)
            }
        }
        return rows
    }

    /// `region`'s lines in vertical strips, left to right, split at every gap wider than `gap`
    /// that no line crosses and that leaves at least `minimumLines` lines on each side.
    func sideBySide(_ region: [Int], gap: Double, minimumLines: Int) -> [[Int]] {
        let sorted = region.sorted { lines[$0].left < lines[$1].left }
        var strips: [[Int]] = [[sorted[0]]]
        var rightmost = lines[sorted[0]].right
        for (position, index) in sorted.enumerated().dropFirst() {
            let line = lines[index]
            let linesLeft = sorted.count - position
            if line.left - rightmost > gap, strips[strips.count - 1].count >= minimumLines, linesLeft >= minimumLines {
                strips.append([index])
            } else {
                strips[strips.count - 1].append(index)
            }
            rightmost = max(rightmost, line.right)
        }
        return strips
    }

    /// A block's lines (top to bottom) in paragraphs: a new one after a space larger than
    /// `usualSpace` by `paragraphGap` line heights, or at a line indented from the block's
    /// left edge after one that is not.
    func paragraphs(_ block: [Int], usualSpace: Double) -> [[Int]] {
        guard let first = block.first else { return [] }
        let edge = block.map { lines[$0].left }.min()!
        let indent = policy.indent * unit
        var paragraphs: [[Int]] = [[first]]
        for (above, line) in zip(block, block.dropFirst()) {
            let space = lines[line].top - lines[above].bottom
            let indented = lines[line].left - edge >= indent && lines[above].left - edge < indent
            if space > usualSpace + policy.paragraphGap * unit || indented {
                paragraphs.append([line])
            } else {
                paragraphs[paragraphs.count - 1].append(line)
            }
        }
        return paragraphs
    }
}
