import GlossContract
import GlossGeometry
import GlossImaging

extension RecognizedText {
    /// A PDF page's own text as the text findings of the page: one block and paragraph, its
    /// lines and words as the PDF reader placed them, each word certain (confidence 100). Nil
    /// when the layer has no placed words, so the page is read as any other.
    init?(layer: PDFTextLayer) {
        let lines = layer.lines.compactMap { words -> TextLine? in
            guard let first = words.first else { return nil }
            let box = words.dropFirst().reduce(first.box) { $0.union($1.box) }
            return TextLine(box: box, baseline: nil,
                            words: words.map { RecognizedWord(text: $0.text, box: $0.box, confidence: 100) })
        }
        guard let first = lines.first else { return nil }
        let box = lines.dropFirst().reduce(first.box) { $0.union($1.box) }
        self.init(blocks: [TextBlock(box: box, paragraphs: [TextParagraph(box: box, lines: lines)])])
    }
}
