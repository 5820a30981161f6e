import GlossContract
import GlossGeometry

/// A page's words nested in lines, paragraphs and blocks, as hOCR, ALTO and TSV write them.
///
/// The report keeps flat arrays joined by indices (simple JSON); the nested view is rebuilt
/// here once. A page read from older JSON, without paragraphs or blocks, becomes one block of
/// one paragraph, and an index out of range is clamped, so a renderer never traps on input.
struct PageLayout {
    struct Block {
        var box: PixelRect
        var paragraphs: [Paragraph]
    }

    struct Paragraph {
        var box: PixelRect
        var lines: [Line]
    }

    struct Line {
        var line: PageReport.Line
        var words: [PageReport.Word]
    }

    var blocks: [Block]

    init(_ report: PageReport) {
        var lines = report.lines.map { Line(line: $0, words: []) }
        if lines.isEmpty && !report.words.isEmpty {
            let box = PixelRect.union(report.words.map(\.box))
            lines = [Line(line: PageReport.Line(text: "", box: box, baseline: nil, paragraph: 0), words: [])]
        }
        for word in report.words {
            lines[Self.clamp(word.line, lines.count)].words.append(word)
        }

        var paragraphs = report.paragraphs.map { Paragraph(box: $0.box, lines: []) }
        if paragraphs.isEmpty && !lines.isEmpty {
            paragraphs = [Paragraph(box: PixelRect.union(lines.map(\.line.box)), lines: [])]
        }
        for line in lines {
            paragraphs[Self.clamp(line.line.paragraph, paragraphs.count)].lines.append(line)
        }

        var blocks = report.blocks.map { Block(box: $0.box, paragraphs: []) }
        if blocks.isEmpty && !paragraphs.isEmpty {
            blocks = [Block(box: PixelRect.union(paragraphs.map(\.box)), paragraphs: [])]
        }
        for (index, paragraph) in paragraphs.enumerated() {
            let block = report.paragraphs.indices.contains(index) ? report.paragraphs[index].block : 0
            blocks[Self.clamp(block, blocks.count)].paragraphs.append(paragraph)
        }
        self.blocks = blocks
    }

    private static func clamp(_ index: Int, _ count: Int) -> Int { min(max(index, 0), count - 1) }
}

extension PixelRect {
    /// The smallest rectangle holding all of `rects`; empty at the origin for none.
    static func union(_ rects: [PixelRect]) -> PixelRect {
        guard let first = rects.first else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        var minX = first.x, minY = first.y, maxX = first.maxX, maxY = first.maxY
        for rect in rects.dropFirst() {
            minX = min(minX, rect.x)
            minY = min(minY, rect.y)
            maxX = max(maxX, rect.maxX)
            maxY = max(maxY, rect.maxY)
        }
        return PixelRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
