import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
@testable import GlossPipeline
import GlossReading
import GlossTestSupport
import GlossTextRecognition
import Testing

/// Text Tesseract's layout dropped, read again (`--prepare auto`).
@Suite(.serialized)
struct DroppedTextTests {
    /// The cells of `fixtures/tables/sparse-numbers.png` (made by `make-table-fixture.py`).
    struct Table: Decodable {
        struct Cell: Decodable {
            var text: String
            var column: Int
            var row: Int
            var box: Fixtures.Truth.Box
        }

        var width: Int
        var height: Int
        var rows: Int
        var columns: Int
        var cells: [Cell]

        static func load() throws -> Table {
            let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("tables/sparse-numbers.json")))
            return try JSONDecoder().decode(Table.self, from: data)
        }
    }

    static func reader(_ prepare: PreparationSteps) -> Annotator {
        var settings = AnnotationSettings.readingFast()
        settings.detectFaces = false
        settings.prepare = prepare
        return Annotator(settings: settings, jobs: 1)
    }

    /// The cells read with their own number on a box over their pixels: the word's box holds
    /// the cell's centre and the cell's box holds the word's.
    static func cellsFound(_ table: Table, words: [(text: String, box: PixelRect)]) -> [Table.Cell] {
        table.cells.filter { cell in
            let box = cell.box
            return words.contains { word in
                let centre = (x: word.box.x + word.box.width / 2, y: word.box.y + word.box.height / 2)
                return word.text == cell.text
                    && word.box.x <= box.x + box.width / 2 && box.x + box.width / 2 <= word.box.maxX
                    && word.box.y <= box.y + box.height / 2 && box.y + box.height / 2 <= word.box.maxY
                    && box.x - 3 <= centre.x && centre.x <= box.x + box.width + 3
                    && box.y - 3 <= centre.y && centre.y <= box.y + box.height + 3
            }
        }
    }

    @Test func tesseractsLayoutDropsTheTablesColumnsOfShortNumbers() throws {
        let table = try Table.load()
        let page = try ImageFile(contentsOf: Fixtures.path("tables/sparse-numbers.png")).decodePage()
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        let found = Self.cellsFound(table, words: text.words.map { ($0.text, PixelRect($0.box, in: page.raster.size)) })
        // The odd columns (10 to 49) are read whole; of the even ones (1 to 150), almost nothing.
        for column in [1, 3, 5] { #expect(found.filter { $0.column == column }.count >= table.rows - 1) }
        let even = found.filter { $0.column % 2 == 0 }.count
        #expect(even <= table.rows * 3 / 10, "\(even) of \(table.rows * 3) cells of the even columns read")
    }

    @Test func preparedTheTableReadsWholeWithBoxesOnTheNumbers() async throws {
        let table = try Table.load()
        let report = try await Self.reader(.auto).read(file: Fixtures.path("tables/sparse-numbers.png"))
        let found = Self.cellsFound(table, words: report.words.map { ($0.text, $0.box) })
        #expect(found.count >= table.cells.count - 3, "\(found.count) of \(table.cells.count) cells")
        for column in [0, 2, 4] { #expect(found.filter { $0.column == column }.count >= table.rows - 1, "column \(column)") }
        // Numbers of the columns psm 3 drops, by their place: 38, 112 and 36 in row 0, 8 and 82 in row 10, 108 in row 26.
        for (row, column) in [(0, 0), (0, 2), (0, 4), (10, 0), (10, 2), (26, 4)] {
            let cell = try #require(table.cells.first { $0.row == row && $0.column == column })
            #expect(found.contains { $0.row == row && $0.column == column }, "\(cell.text) at row \(row), column \(column)")
        }
        let preparation = try #require(report.preparation)
        #expect(preparation.regionsReread >= 3)
        // The even columns hold 81 cells, of which psm 3 reads a few.
        #expect(preparation.wordsAdded >= 65)
        #expect(preparation.timings["reread"] != nil)
        // No word twice: no two words share most of their box.
        let boxes = report.words.map { NormalizedRect($0.box, in: report.size) }
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                #expect(!DroppedText.overlaps(boxes[i], boxes[j]), "\(report.words[i].text) and \(report.words[j].text)")
            }
        }
    }

    @Test func theAddedWordsAreInTheReportsLinesAndText() async throws {
        let report = try await Self.reader(.auto).read(file: Fixtures.path("tables/sparse-numbers.png"))
        // Every word belongs to a line, every line to a paragraph, every paragraph to a block.
        #expect(report.words.allSatisfy { report.lines.indices.contains($0.line) })
        #expect(report.lines.allSatisfy { report.paragraphs.indices.contains($0.paragraph) })
        #expect(report.paragraphs.allSatisfy { report.blocks.indices.contains($0.block) })
        let lineWords = report.lines.map { $0.text.split(separator: " ").count }.reduce(0, +)
        #expect(lineWords == report.words.count)
        for word in report.words { #expect(report.text.contains(word.text)) }
        // The first column, dropped by the layout, comes first: it is left of everything.
        let first = try #require(report.blocks.first)
        #expect(first.box.x < 300, "\(first.box)")
    }

    @Test(arguments: ["text/sans.png", "text/serif.png", "text/mono.png", "text/upright.jpg", "formats/page.webp"])
    func aPageReadWholeIsNotReadAgain(fixture: String) async throws {
        let prepared = try await Self.reader(.auto).read(file: Fixtures.path(fixture))
        let preparation = try #require(prepared.preparation)
        #expect(preparation.regionsReread == 0)
        #expect(preparation.wordsAdded == 0)
        let plain = try await Self.reader(.none).read(file: Fixtures.path(fixture))
        #expect(plain.preparation == nil)
        #expect(prepared.text == plain.text)
    }

    /// A page whose reading failed as a whole (upside down, on its side) comes back mostly
    /// unsure: a second reading of the same pixels would not mend it, and is not tried.
    @Test func aPageReadMostlyUnsureIsNotReadAgain() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("tables/sparse-numbers.png")).decodePage()
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        let small = InkCoverage.workingCopy(of: page.raster)
        #expect(!DroppedText.regions(in: small, text: text).isEmpty)
        var unsure = text
        for b in unsure.blocks.indices.dropFirst(unsure.blocks.count / 3) {
            for p in unsure.blocks[b].paragraphs.indices {
                for l in unsure.blocks[b].paragraphs[p].lines.indices {
                    for w in unsure.blocks[b].paragraphs[p].lines[l].words.indices {
                        unsure.blocks[b].paragraphs[p].lines[l].words[w].confidence = 20
                    }
                }
            }
        }
        let trusted = unsure.words.filter { $0.confidence >= DroppedText.trustedConfidence }.count
        #expect(Double(trusted) < DroppedText.leastTrustedShare * Double(unsure.words.count))
        #expect(DroppedText.regions(in: small, text: unsure).isEmpty)
    }

    /// The table's dropped columns lie on paper: their unsure lines are not read a second time
    /// inverted. A region on a dark ground (light lettering) is.
    @Test func regionsOnPaperSkipTheInvertedReading() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("tables/sparse-numbers.png")).decodePage()
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        let regions = DroppedText.regions(in: InkCoverage.workingCopy(of: page.raster), text: text)
        #expect(!regions.isEmpty)
        for region in regions {
            let ground = TextRecognizer.medianGrey(in: PixelRect(region.box, in: page.raster.size), of: page.raster)
            #expect(ground >= 200, "\(region)")
            #expect(DroppedText.invertedLines(onGround: ground) == .skipped)
        }
        let negative = Raster(width: page.raster.width, height: page.raster.height, layout: .gray,
                              pixels: page.raster.grayscale().pixels.map { 255 - $0 })
        let ground = TextRecognizer.medianGrey(in: PixelRect(regions[0].box, in: page.raster.size), of: negative)
        #expect(ground < 55)
        #expect(DroppedText.invertedLines(onGround: ground) == .tried)
        #expect(DroppedText.invertedLines(onGround: DroppedText.lightGround) == .skipped)
        #expect(DroppedText.invertedLines(onGround: DroppedText.lightGround - 1) == .tried)
    }

    /// Read alone, Tesseract reads again what its layout dropped; as the plan's page reader it
    /// does not (the neural reader reads those lines: `PreparationPolicy.rereadsDroppedText`).
    @Test func droppedTextIsReadAgainWhereTheModeGainsByIt() {
        var analyzer = TextAnalyzer(options: RecognitionOptions(), steps: .auto)
        #expect(analyzer.rereads)
        analyzer.mode = .accurate
        #expect(!analyzer.rereads)
        analyzer.policy.rereadsDroppedText = [.fast, .accurate]
        #expect(analyzer.rereads)
        #expect(!TextAnalyzer(options: RecognitionOptions(), steps: .none).rereads)
    }

    @Test func withoutPreparationTheTableReadsAsTesseractReadsIt() async throws {
        let table = try Table.load()
        let report = try await Self.reader(.none).read(file: Fixtures.path("tables/sparse-numbers.png"))
        #expect(report.preparation == nil)
        let found = Self.cellsFound(table, words: report.words.map { ($0.text, $0.box) })
        #expect(found.filter { $0.column % 2 == 0 }.count <= table.rows * 3 / 10)
    }

    // MARK: Finding and merging, on the table's own pixels

    @Test func theDroppedColumnsAreFoundAsBlocksAndNothingElse() throws {
        let page = try ImageFile(contentsOf: Fixtures.path("tables/sparse-numbers.png")).decodePage()
        let text = try TextRecognizer().recognize(page.raster, resolution: page.resolution)
        let small = InkCoverage.workingCopy(of: page.raster)
        let regions = DroppedText.regions(in: small, text: text)
        let table = try Table.load()
        let trusted = text.words.filter { $0.confidence >= DroppedText.trustedConfidence }.map(\.box)
        func box(_ cell: Table.Cell) -> NormalizedRect {
            NormalizedRect(PixelRect(x: cell.box.x, y: cell.box.y, width: cell.box.width, height: cell.box.height), in: page.raster.size)
        }
        // Every cell no trusted word lies on is inside a region; a region holds one column's cells.
        for cell in table.cells where !trusted.contains(where: { DroppedText.overlaps(box(cell), $0, share: 0.3) }) {
            let holding = regions.filter { DroppedText.overlaps(box(cell), $0.box, share: 0.9) }
            #expect(holding.count == 1, "\(cell.text) at row \(cell.row), column \(cell.column) in \(holding.count) regions")
        }
        for region in regions {
            let columns = Set(table.cells.filter { DroppedText.overlaps(box($0), region.box, share: 0.5) }.map(\.column))
            #expect(columns.count == 1, "\(region) holds cells of columns \(columns.sorted())")
        }
        #expect(regions.allSatisfy { $0.lines >= 1 })
        #expect(regions.count <= 12)
    }

    static func word(_ text: String, x: Double, y: Double, confidence: Double) -> RecognizedWord {
        RecognizedWord(text: text, box: NormalizedRect(x: x, y: y, width: 0.05, height: 0.02), confidence: confidence)
    }

    static func page(_ lines: [[RecognizedWord]]) -> RecognizedText {
        RecognizedText(blocks: lines.map { words in
            let box = words.dropFirst().reduce(words[0].box) { $0.union($1.box) }
            return TextBlock(box: box, paragraphs: [TextParagraph(box: box, lines: [TextLine(box: box, baseline: nil, words: words)])])
        })
    }

    @Test func mergingKeepsTrustedWordsDropsDoublesAndUnsureReadings() {
        let page = Self.page([[Self.word("Total", x: 0.1, y: 0.8, confidence: 95)]])
        let reading = Self.page([[
            Self.word("Tota1", x: 0.101, y: 0.8, confidence: 90),  // the same word again
            Self.word("42", x: 0.5, y: 0.8, confidence: 93),
            Self.word("~", x: 0.6, y: 0.8, confidence: 90),        // no letter or digit
            Self.word("i", x: 0.7, y: 0.8, confidence: 92),        // a rule's end
            Self.word("17", x: 0.8, y: 0.8, confidence: 30),       // unsure
            Self.word("AY", x: 0.85, y: 0.8, confidence: 85),      // short and not sure enough
            Self.word("Esrobi", x: 0.9, y: 0.8, confidence: 65),   // unsure
            Self.word("Grand", x: 0.5, y: 0.7, confidence: 75),
        ]])
        let (merged, added) = DroppedText.merge([reading], into: page)
        #expect(added == 2)
        #expect(merged.words.map(\.text) == ["Total", "42", "Grand"])
    }

    @Test func anUntrustedWordGivesWayToTheWordReadOnIt() {
        // A column of numbers taken for one word written downwards, read as garbage.
        let garbage = RecognizedWord(text: "OOQID", box: NormalizedRect(x: 0.2, y: 0.3, width: 0.02, height: 0.4), confidence: 15)
        let page = RecognizedText(blocks: Self.page([[Self.word("Part", x: 0.2, y: 0.8, confidence: 96)]]).blocks
            + Self.page([[garbage]]).blocks)
        let reading = Self.page([
            [RecognizedWord(text: "12", box: NormalizedRect(x: 0.2, y: 0.6, width: 0.02, height: 0.02), confidence: 91)],
            [RecognizedWord(text: "13", box: NormalizedRect(x: 0.2, y: 0.5, width: 0.02, height: 0.02), confidence: 90)],
        ])
        let (merged, added) = DroppedText.merge([reading], into: page)
        #expect(added == 2)
        #expect(merged.words.map(\.text) == ["Part", "12", "13"])
    }

    @Test func newBlocksGoWhereTheyAreRead() {
        // Two columns, each a block; a line dropped under the left one's heading, and one at the foot.
        let left = Self.word("Left", x: 0.1, y: 0.8, confidence: 95)
        let right = Self.word("Right", x: 0.6, y: 0.8, confidence: 95)
        let page = Self.page([[left], [right]])
        let underLeft = Self.page([[Self.word("under", x: 0.1, y: 0.7, confidence: 90)]])
        let foot = Self.page([[Self.word("foot", x: 0.4, y: 0.1, confidence: 90)]])
        let (merged, _) = DroppedText.merge([foot, underLeft], into: page)
        #expect(merged.blocks.map { $0.paragraphs[0].lines[0].words[0].text } == ["Left", "under", "Right", "foot"])
        let beside = Self.page([[Self.word("first", x: 0.01, y: 0.8, confidence: 90)]])
        #expect(DroppedText.merge([beside], into: page).text.words.first?.text == "first")
    }

    @Test func aWordLostFromALineShrinksIt() {
        let keep = Self.word("keep", x: 0.1, y: 0.5, confidence: 90)
        let lose = Self.word("lose", x: 0.6, y: 0.5, confidence: 90)
        let kept = Self.page([[keep, lose]]).keepingWords { $0.text == "keep" }
        #expect(kept.lines.map(\.box) == [keep.box])
        #expect(kept.blocks.map(\.box) == [keep.box])
        #expect(Self.page([[lose]]).keepingWords { $0.text == "keep" }.blocks.isEmpty)
    }

    @Test("blocks of equal area come out by their place, whatever order their lines came in")
    func blocksOfEqualAreaKeepTheirOrder() {
        // Four columns of two lines each, far apart: four blocks of one area.
        let lines = (0..<4).flatMap { column in
            (0..<2).map { row in
                DroppedText.Line(box: PixelRect(x: 300 * column, y: 100 * (column % 2) + 20 * row, width: 100, height: 12),
                                 marks: 5, typical: 10)
            }
        }
        let expected = [(0, 0), (200 * 3, 0), (300, 100), (900, 100)].map { PixelRect(x: $0.0, y: $0.1, width: 100, height: 32) }
        for shuffled in [lines, lines.reversed(), [lines[5], lines[0], lines[7], lines[2], lines[1], lines[6], lines[3], lines[4]]] {
            #expect(DroppedText.blocks(of: shuffled).map(\.box) == expected)
        }
    }
}
