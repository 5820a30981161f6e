import GlossContract
import GlossGeometry
import GlossReading
import Testing

/// The fused page's order: the page reader's layout, or the lines' geometry.
@Suite struct FusedOrderTests {
    /// A table of 18 rows of two cells, a wide gutter between: the geometry reads it as two
    /// columns (each has the 15 lines a column needs), the page reader read it row by row.
    static let rows = 18
    static func cell(_ row: Int, right: Bool) -> RecognizedWord {
        let box = NormalizedRect(x: right ? 0.6 : 0.1, y: 0.95 - 0.05 * Double(row), width: 0.2, height: 0.025)
        return RecognizedWord(text: (right ? "R" : "L") + "\(row)", box: box, confidence: 95)
    }

    /// The page reader's reading: one block, a paragraph a row.
    static let pageReading: RecognizedText = {
        let paragraphs = (0..<rows).map { row in
            let words = [cell(row, right: false), cell(row, right: true)]
            return TextParagraph(box: .enclosing(words.map(\.box)), lines: [Page.line(words)])
        }
        return RecognizedText(blocks: [TextBlock(box: .enclosing(paragraphs.map(\.box)), paragraphs: paragraphs)])
    }()

    /// The fused lines, a cell each, with their places in `pageReading`; `unread` cells have
    /// no place (the page reader put no word on them).
    static func placed(unread: Set<String> = []) -> [PlacedLine] {
        var rank = 0
        var lines: [PlacedLine] = []
        for row in 0..<rows {
            for right in [false, true] {
                let word = cell(row, right: right)
                let place = unread.contains(word.text) ? nil : PageReaderPlace(rank: rank, block: 0, paragraph: row)
                lines.append(PlacedLine(line: Page.line([word]), pageReaderPlace: place))
                rank += 1
            }
        }
        return lines.reversed()
    }

    @Test func theGeometryReadsTheTableByColumnsAndThePageReaderByRows() {
        let geometry = FusedOrder.geometry.text(Self.placed(), page: Page.signals.size).lines.map(\.text)
        #expect(geometry == (0..<Self.rows).map { "L\($0)" } + (0..<Self.rows).map { "R\($0)" })
        let reader = FusedOrder.pageReader.text(Self.placed(), page: Page.signals.size)
        #expect(reader.lines.map(\.text) == (0..<Self.rows).flatMap { ["L\($0)", "R\($0)"] })
        // Its blocks and paragraphs are the page reader's: one block, a paragraph a row.
        #expect(reader.blocks.count == 1)
        #expect(reader.blocks[0].paragraphs.map { $0.lines.count } == Array(repeating: 2, count: Self.rows))
    }

    @Test func aLineThePageReaderDidNotReadFollowsTheLineBeforeItInTheGeometry() {
        // R17, last of the right column, follows R16, the line before it in the geometry; L5
        // follows L4.
        let text = FusedOrder.pageReader.text(Self.placed(unread: ["R17", "L5"]), page: Page.signals.size)
        let order = text.lines.map(\.text)
        #expect(order.count == 2 * Self.rows)
        #expect(order.firstIndex(of: "R17") == order.firstIndex(of: "R16")! + 1)
        #expect(order.firstIndex(of: "L5") == order.firstIndex(of: "L4")! + 1)
    }

    @Test func thePageReadersOrderIsChosenWhereItKeptMostOfTheLines() {
        var policy = FusionPolicy()
        policy.pageReaderOrderFrom = 0.6
        #expect(FusedOrder.chosen(keptShare: 0.6, policy: policy) == .pageReader)
        #expect(FusedOrder.chosen(keptShare: 0.59, policy: policy) == .geometry)
        #expect(FusedOrder.pageReader.rule == .pageReaderOrder)
        #expect(FusedOrder.geometry.rule == .geometricOrder)
    }

    @Test func thePlanRecordsTheOrderItChose() throws {
        // Every detected row read surely by the page reader: all kept, its order.
        var page = FakePage([Page.line([Page.word("One", row: 0, from: 0.1, to: 0.3, confidence: 96)]),
                             Page.line([Page.word("Two", row: 1, from: 0.1, to: 0.3, confidence: 96)])])
        var lines = FakeLines(lines: [LineSignals(box: Page.row(0)), LineSignals(box: Page.row(1))], readings: [:])
        var policy = FusionPolicy()
        policy.pageReaderOrderFrom = 0.9
        let sure = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &page, lines: &lines,
                                          cancellation: CancellationFlag())
        #expect(sure.rules.contains(.pageReaderOrder))
        // Half of them unread by it: the geometry.
        var half = FakePage([Page.line([Page.word("One", row: 0, from: 0.1, to: 0.3, confidence: 96)])])
        lines.readings = [1: Page.line([Page.word("Two", row: 1, from: 0.1, to: 0.3, confidence: 99.99)])]
        let unsure = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: policy, page: &half, lines: &lines,
                                            cancellation: CancellationFlag())
        #expect(unsure.rules.contains(.geometricOrder))
        #expect(unsure.text.lines.map(\.text) == ["One", "Two"])
    }
}
