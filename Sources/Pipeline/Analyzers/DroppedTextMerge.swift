import GlossContract
import GlossGeometry
import GlossImaging
import GlossTextRecognition

extension DroppedText {
    /// What reading the dropped text again did to a page.
    struct Outcome: Equatable {
        var text: RecognizedText
        var regionsReread: Int
        var wordsAdded: Int
    }

    /// Finds the regions of `text`'s page no trusted word covers on `small` (the page's grey
    /// working copy, whose ink is `ink` when measured already), reads each from `page` (the
    /// copy Tesseract read) with `engine`, and merges what they hold into `text`.
    static func reread(
        _ text: RecognizedText, page: Raster, small: Raster, ink: [UInt8]? = nil, engine: TextRecognizer, resolution: Int?,
        cancellation: CancellationFlag
    ) throws -> Outcome {
        let found = regions(in: small, text: text, ink: ink)
        guard !found.isEmpty else { return Outcome(text: text, regionsReread: 0, wordsAdded: 0) }
        let readings = try found.map { region in
            let box = PixelRect(region.box, in: page.size)
            let ground = TextRecognizer.medianGrey(in: box, of: page)
            return try engine.recognize(box, of: page, layout: region.layout, invertedLines: invertedLines(onGround: ground),
                                        resolution: resolution, cancellation: cancellation)
        }
        let (merged, added) = merge(readings, into: text)
        return Outcome(text: merged, regionsReread: found.count, wordsAdded: added)
    }

    /// `text` with the words of `readings` added: each reading's lines as new blocks, placed in
    /// reading order. A word read again is dropped when it is unsure, holds no letter or digit,
    /// or lies on a trusted word already there; an untrusted word it lies on gives way to it.
    static func merge(_ readings: [RecognizedText], into text: RecognizedText) -> (text: RecognizedText, added: Int) {
        let trusted = text.words.filter { $0.confidence >= trustedConfidence }.map(\.box)
        var accepted: [NormalizedRect] = []
        var added: [TextBlock] = []
        for reading in readings {
            let kept = reading.keepingWords { word in
                guard isSure(word), isText(word.text),
                      !trusted.contains(where: { overlaps(word.box, $0) }),
                      !accepted.contains(where: { overlaps(word.box, $0) }) else { return false }
                accepted.append(word.box)
                return true
            }
            added += kept.blocks
        }
        guard !accepted.isEmpty else { return (text, 0) }
        var merged = text.keepingWords { word in
            word.confidence >= trustedConfidence || !accepted.contains { overlaps(word.box, $0, share: 0.3) }
        }
        for block in added { merged.blocks.insert(block, at: readingPosition(of: block.box, among: merged.blocks)) }
        return (merged, accepted.count)
    }

    /// Whether a word read again reads as text: it holds a letter or a digit, and a word of
    /// one character is a digit or a capital other than I (the end of a rule or a graphic's
    /// stroke reads as `i`, `l`, `I` or `|`).
    static func isText(_ text: String) -> Bool {
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return false }
        guard text.count == 1, let only = text.first else { return true }
        return only.isNumber || (only.isUppercase && only != "I")
    }

    /// Whether `a` and `b` share at least `share` of the smaller one's area.
    static func overlaps(_ a: NormalizedRect, _ b: NormalizedRect, share: Double = 0.5) -> Bool {
        let width = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let height = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        guard width > 0, height > 0 else { return false }
        let smaller = min(a.width * a.height, b.width * b.height)
        return smaller > 0 && width * height >= share * smaller
    }

    /// Where a new block at `box` goes among `blocks` (in reading order): after the lowest block
    /// above it in the same column; failing that, before the first block beside it on the
    /// right or wholly below it; failing that, last.
    static func readingPosition(of box: NormalizedRect, among blocks: [TextBlock]) -> Int {
        let sameColumn = { (other: NormalizedRect) in min(box.maxX, other.maxX) > max(box.minX, other.minX) }
        let above = blocks.indices.filter { i in
            let other = blocks[i].box
            return sameColumn(other) && other.midY > box.maxY
        }
        if let lowest = above.min(by: { blocks[$0].box.minY < blocks[$1].box.minY }) { return lowest + 1 }
        if let next = blocks.firstIndex(where: { other in
            let beside = min(box.maxY, other.box.maxY) > max(box.minY, other.box.minY) && other.box.minX >= box.midX
            return beside || other.box.maxY <= box.minY
        }) { return next }
        return blocks.count
    }
}

extension NormalizedRect {
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }
}

extension RecognizedText {
    /// The text with only the words `keep` accepts, in order; lines, paragraphs and blocks left
    /// empty are dropped, and those that lost words are shrunk to the words they keep.
    func keepingWords(_ keep: (RecognizedWord) -> Bool) -> RecognizedText {
        var kept = RecognizedText()
        for block in blocks {
            var paragraphs: [TextParagraph] = []
            for paragraph in block.paragraphs {
                var lines: [TextLine] = []
                for line in paragraph.lines {
                    let words = line.words.filter(keep)
                    guard !words.isEmpty else { continue }
                    var trimmed = line
                    if words.count < line.words.count {
                        trimmed.words = words
                        trimmed.box = .enclosing(words.map(\.box))
                    }
                    lines.append(trimmed)
                }
                guard !lines.isEmpty else { continue }
                var trimmed = paragraph
                if lines != paragraph.lines {
                    trimmed.lines = lines
                    trimmed.box = .enclosing(lines.map(\.box))
                }
                paragraphs.append(trimmed)
            }
            guard !paragraphs.isEmpty else { continue }
            var trimmed = block
            if paragraphs != block.paragraphs {
                trimmed.paragraphs = paragraphs
                trimmed.box = .enclosing(paragraphs.map(\.box))
            }
            kept.blocks.append(trimmed)
        }
        return kept
    }
}
