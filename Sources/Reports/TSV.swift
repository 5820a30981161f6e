import GlossContract
import GlossGeometry

/// Tesseract's TSV: a header, then one row per page, block, paragraph, line and word, with the
/// same twelve columns and numbering (`tesseract IMAGE - tsv`), so scripts written for
/// Tesseract read Gloss's output unchanged.
///
/// Numbers are 1-based; paragraphs count within their block, lines within their paragraph,
/// words within their line. Rows above words have confidence -1 and no text.
struct TSVDocument {
    static let header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"

    var report: PageReport

    func render() -> String {
        let page = report.pageIndex + 1
        var rows = [Self.header]
        rows.append(row(1, page, 0, 0, 0, 0, PixelRect(x: 0, y: 0, width: report.width, height: report.height)))
        for (blockNumber, block) in zip(1..., PageLayout(report).blocks) {
            rows.append(row(2, page, blockNumber, 0, 0, 0, block.box))
            for (paragraphNumber, paragraph) in zip(1..., block.paragraphs) {
                rows.append(row(3, page, blockNumber, paragraphNumber, 0, 0, paragraph.box))
                for (lineNumber, line) in zip(1..., paragraph.lines) {
                    rows.append(row(4, page, blockNumber, paragraphNumber, lineNumber, 0, line.line.box))
                    for (wordNumber, word) in zip(1..., line.words) {
                        rows.append(row(5, page, blockNumber, paragraphNumber, lineNumber, wordNumber, word.box,
                                        confidence: DecimalText.format(word.confidence, maximumFractionDigits: 6),
                                        text: word.text))
                    }
                }
            }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    private func row(
        _ level: Int, _ page: Int, _ block: Int, _ paragraph: Int, _ line: Int, _ word: Int, _ box: PixelRect,
        confidence: String = "-1", text: String = ""
    ) -> String {
        "\(level)\t\(page)\t\(block)\t\(paragraph)\t\(line)\t\(word)\t\(box.x)\t\(box.y)\t\(box.width)\t\(box.height)\t\(confidence)\t"
            + Self.field(text)
    }

    /// A tab or line break inside a word would split the row; Tesseract never emits one, and
    /// Gloss turns any into a space.
    static func field(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
