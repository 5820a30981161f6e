import GlossContract
import GlossGeometry
import GlossImaging

extension RecognizedText {
    /// A PDF page's own text as the text findings of the page: one block and paragraph, its
    /// lines and words as the PDF reader placed them, each word certain (confidence 100). Nil
    /// when the layer has no placed words, so the page is read as any other.
    init?(layer: PDFTextLayer) {
        let lines = layer.lines.compactMap { words -> TextLine? in
            guard !words.isEmpty else { return nil }
            let box = NormalizedRect.enclosing(words.map(\.box))
            return TextLine(box: box, baseline: nil,
                            words: words.map { RecognizedWord(text: $0.text, box: $0.box, confidence: 100) })
        }
        guard !lines.isEmpty else { return nil }
        let box = NormalizedRect.enclosing(lines.map(\.box))
        self.init(blocks: [TextBlock(box: box, paragraphs: [TextParagraph(box: box, lines: lines)])])
    }
}
