import Foundation
import GlossContract
import GlossGeometry
@testable import GlossNeuralReading
import GlossTestSupport
import Testing

/// Reading order and paragraphs from lines placed by hand on a 1000 x 1000 page, 20 px high,
/// 30 px apart from top to top unless said otherwise; a column has 16 lines, enough to be one
/// (`LayoutPolicy.minimumColumnLines`).
@Suite struct ReadingOrderTests {
    static let page = PixelSize(width: 1000, height: 1000)

    /// A line named `name` (its one word) of `width` x `height` pixels whose top-left corner is
    /// at (`left`, `top`) before it is turned by `angle` radians (clockwise on the page, as y
    /// runs down) about `pivot`.
    static func line(_ name: String, left: Double, top: Double, width: Double, height: Double = 20,
                     angle: Double = 0, pivot: PixelPoint = PixelPoint(x: 500, y: 500)) -> TextLine {
        let (c, s) = (cos(angle), sin(angle))
        func turned(_ x: Double, _ y: Double) -> PixelPoint {
            let (dx, dy) = (x - pivot.x, y - pivot.y)
            return PixelPoint(x: pivot.x + dx * c - dy * s, y: pivot.y + dx * s + dy * c)
        }
        let corners = [turned(left, top), turned(left + width, top), turned(left + width, top + height), turned(left, top + height)]
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let box = NormalizedRect(PixelRect(x: Int(xs.min()!.rounded()), y: Int(ys.min()!.rounded()),
                                           width: Int((xs.max()! - xs.min()!).rounded()), height: Int((ys.max()! - ys.min()!).rounded())),
                                 in: page)
        let baseline = Baseline(start: NormalizedPoint(corners[3], in: page), end: NormalizedPoint(corners[2], in: page))
        return TextLine(box: box, baseline: baseline, words: [RecognizedWord(text: name, box: box, confidence: 90)])
    }

    /// A column of `count` lines named `prefix`1, 2, ... from `top`, `pitch` apart.
    static func column(_ prefix: String, left: Double, top: Double, width: Double = 400, count: Int = 16, pitch: Double = 30,
                       angle: Double = 0) -> [TextLine] {
        (0..<count).map { line("\(prefix)\($0 + 1)", left: left, top: top + Double($0) * pitch, width: width, angle: angle) }
    }

    /// The names `prefix`1 to `prefix``count`.
    static func names(_ prefix: String, _ count: Int = 16) -> [String] { (1...count).map { "\(prefix)\($0)" } }

    /// The lines' names as read, and the blocks' and paragraphs' lines' names.
    func read(_ lines: [TextLine], policy: LayoutPolicy = LayoutPolicy()) -> (order: [String], blocks: [[String]], paragraphs: [[String]]) {
        var generator = SplitMix(seed: 28)
        let text = ReadingOrder.text(lines.shuffled(using: &generator), page: Self.page, policy: policy)
        return (text.lines.map(\.text), text.blocks.map { $0.paragraphs.flatMap(\.lines).map(\.text) },
                text.paragraphs.map { $0.lines.map(\.text) })
    }

    @Test func twoColumnsReadTheLeftOneFirst() {
        // Rows aligned across a 100 px gutter: RapidOCR's order would go L1 R1 L2 R2 ...
        let lines = Self.column("L", left: 50, top: 100) + Self.column("R", left: 550, top: 100)
        let (order, blocks, paragraphs) = read(lines)
        #expect(order == Self.names("L") + Self.names("R"))
        #expect(blocks.count == 2 && paragraphs.count == 2)
        // Columns of a few lines are a table's: read row by row.
        let short = Self.column("L", left: 50, top: 100, count: 2) + Self.column("R", left: 550, top: 100, count: 2)
        #expect(read(short).order == ["L1", "R1", "L2", "R2"])
    }

    @Test func threeColumnsReadLeftToRight() {
        let lines = Self.column("A", left: 40, top: 100, width: 280) + Self.column("B", left: 360, top: 110, width: 280, count: 17)
            + Self.column("C", left: 680, top: 95, width: 280, count: 15)
        #expect(read(lines).order == Self.names("A") + Self.names("B", 17) + Self.names("C", 15))
    }

    @Test func aHeadingAcrossBothColumnsComesFirst() {
        // The heading sits as close above the columns as their lines sit to each other.
        let heading = Self.line("H", left: 100, top: 70, width: 800)
        let lines = [heading] + Self.column("L", left: 50, top: 100) + Self.column("R", left: 550, top: 100)
        #expect(read(lines).order == ["H"] + Self.names("L") + Self.names("R"))
        // A footer across both columns, below a larger space, comes last.
        let footer = Self.line("F", left: 50, top: 100 + 16 * 30 + 20, width: 900)
        #expect(read(lines + [footer]).order == ["H"] + Self.names("L") + Self.names("R") + ["F"])
    }

    @Test func aShortTableIsReadRowByRow() {
        // Three rows of a label and two figures.
        var cells: [TextLine] = []
        for row in 1...3 {
            let top = 100 + Double(row) * 30
            cells += [Self.line("a\(row)", left: 50, top: top, width: 300), Self.line("b\(row)", left: 500, top: top, width: 100),
                      Self.line("c\(row)", left: 800, top: top, width: 100)]
        }
        #expect(read(cells).order == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"])
        var columns = LayoutPolicy()
        columns.minimumColumnLines = 3
        #expect(read(cells, policy: columns).order == ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"])
        // The cells of one row alone, side by side, read left to right.
        #expect(read(Array(cells[3..<6])).order == ["a2", "b2", "c2"])
        // Rows set so close that each box overlaps the next (a receipt): rows by their middles.
        let receipt = (0..<6).flatMap { row in
            [Self.line("item\(row)", left: 20, top: 100 + Double(row) * 17, width: 300),
             Self.line("price\(row)", left: 700, top: 101 + Double(row) * 17, width: 80)]
        }
        #expect(read(receipt).order == (0..<6).flatMap { ["item\($0)", "price\($0)"] })
    }

    @Test func aLargerSpaceOrAnIndentStartsAParagraph() {
        // Four lines 30 apart, then 50 (a space of 30 px, 1.5 line heights against 10), then two.
        var lines = Self.column("P", left: 100, top: 100, width: 700, count: 4)
        lines += Self.column("Q", left: 100, top: 240, width: 700, count: 2)
        // Then a line indented by 40 px (2 line heights), and one flush.
        lines += [Self.line("R1", left: 140, top: 300, width: 660), Self.line("R2", left: 100, top: 330, width: 700)]
        let (order, blocks, paragraphs) = read(lines)
        #expect(order == ["P1", "P2", "P3", "P4", "Q1", "Q2", "R1", "R2"])
        #expect(blocks.count == 1)
        #expect(paragraphs == [["P1", "P2", "P3", "P4"], ["Q1", "Q2"], ["R1", "R2"]])
        // The text has a blank line between paragraphs only.
        let text = ReadingOrder.text(lines, page: Self.page).text
        #expect(text == "P1\nP2\nP3\nP4\n\nQ1\nQ2\n\nR1\nR2")
    }

    @Test func aTiltedPageIsLevelledByItsLinesAngle() {
        // Two columns turned by 4 degrees: each line's box is 48 px high for a 30 px pitch, so
        // boxes alone overlap from row to row and across the gutter.
        let angle = 4 * Double.pi / 180
        let lines = Self.column("L", left: 50, top: 260, angle: angle) + Self.column("R", left: 550, top: 260, angle: angle)
        #expect(lines[0].box.height * 1000 > 45)
        let (order, _, paragraphs) = read(lines)
        #expect(order == Self.names("L") + Self.names("R"))
        #expect(paragraphs.count == 2)
        let (levelled, height) = ReadingOrder.level(lines, page: Self.page)
        #expect(abs(height - 20) < 1, "the line height is measured across the line: \(height)")
        #expect(abs(levelled[0].left - levelled[1].left) < 1.5 && abs(levelled[1].top - levelled[0].top - 30) < 1.5)
    }

    @Test func oneLineIsOneBlockAndNoLineIsNone() {
        let one = Self.line("only", left: 100, top: 100, width: 300)
        let text = ReadingOrder.text([one], page: Self.page)
        #expect(text.blocks.count == 1 && text.paragraphs.count == 1 && text.lines == [one])
        #expect(text.blocks[0].box == one.box)
        #expect(ReadingOrder.text([], page: Self.page) == RecognizedText())
        #expect(ReadingOrder.layout([], lineHeight: 20).isEmpty)
    }

    @Test func everyLineIsReadOnce() {
        // A jumble: lines of many sizes anywhere on the page.
        var generator = SplitMix(seed: 3)
        let lines = (0..<200).map { index in
            Self.line("w\(index)", left: Double.random(in: 0...800, using: &generator), top: Double.random(in: 0...950, using: &generator),
                      width: Double.random(in: 10...400, using: &generator), height: Double.random(in: 8...40, using: &generator))
        }
        let order = read(lines).order
        #expect(order.count == 200 && Set(order).count == 200)
    }
}
