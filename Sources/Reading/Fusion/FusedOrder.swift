import GlossContract
import GlossGeometry
import GlossNeuralReading

/// A fused line, with where the page reader read it: the place of its first word in the page
/// reader's own order (block, paragraph, word), nil when the page reader put no word on it.
public struct PlacedLine: Sendable, Equatable {
    public var line: TextLine
    public var pageReaderPlace: PageReaderPlace?

    public init(line: TextLine, pageReaderPlace: PageReaderPlace?) {
        self.line = line
        self.pageReaderPlace = pageReaderPlace
    }
}

/// Where a word stands in the page reader's reading.
public struct PageReaderPlace: Sendable, Equatable {
    /// The word's place among all the page reader's words, in its order.
    public var rank: Int
    public var block: Int
    public var paragraph: Int

    public init(rank: Int, block: Int, paragraph: Int) {
        self.rank = rank
        self.block = block
        self.paragraph = paragraph
    }

    /// Every word of `text` by its box, in order: the places the fused lines are keyed by.
    static func places(in text: RecognizedText) -> [NormalizedRect: PageReaderPlace] {
        var places: [NormalizedRect: PageReaderPlace] = [:]
        var rank = 0
        for (b, block) in text.blocks.enumerated() {
            for (p, paragraph) in block.paragraphs.enumerated() {
                for word in paragraph.lines.flatMap(\.words) {
                    if places[word.box] == nil { places[word.box] = PageReaderPlace(rank: rank, block: b, paragraph: p) }
                    rank += 1
                }
            }
        }
        return places
    }
}

/// The order the fused page's lines are given in, from how much of the page the page reader's
/// own layout saw: a pure choice, tested with fakes.
public enum FusedOrder: Sendable, Equatable {
    /// `ReadingOrder`'s XY-cut over the fused lines' boxes.
    case geometry
    /// The page reader's own order (its layout's blocks and paragraphs); a line it put no word
    /// on follows the line before it in the geometric order.
    case pageReader

    /// The rule the page JSON records for this order.
    public var rule: PlanRule {
        switch self {
        case .geometry: .geometricOrder
        case .pageReader: .pageReaderOrder
        }
    }

    /// The order for a page whose fused lines are the page reader's own in a share of
    /// `keptShare` (0...1): its layout where it read most of the page, the geometry where it
    /// did not.
    public static func chosen(keptShare: Double, policy: FusionPolicy) -> FusedOrder {
        keptShare >= policy.pageReaderOrderFrom ? .pageReader : .geometry
    }

    /// `lines` as the page's text in this order, on a page of `size` pixels.
    public func text(_ lines: [PlacedLine], page size: PixelSize) -> RecognizedText {
        switch self {
        case .geometry:
            return ReadingOrder.text(lines.map(\.line), page: size)
        case .pageReader:
            guard !lines.isEmpty else { return RecognizedText() }
            let (levelled, lineHeight) = ReadingOrder.level(lines.map(\.line), page: size)
            let geometric = ReadingOrder.layout(levelled, lineHeight: lineHeight).flatMap { $0.flatMap { $0 } }
            // Each line by its own place or, without one, right after the line before it in
            // the geometric order (whose block and paragraph it joins).
            var keyed: [(place: PageReaderPlace, step: Int, index: Int)] = []
            var last = PageReaderPlace(rank: -1, block: -1, paragraph: 0)
            var step = 0
            for index in geometric {
                if let place = lines[index].pageReaderPlace {
                    (last, step) = (place, 0)
                } else {
                    step += 1
                }
                keyed.append((last, step, index))
            }
            keyed.sort { ($0.place.rank, $0.step, $0.index) < ($1.place.rank, $1.step, $1.index) }
            var blocks: [TextBlock] = []
            var previous: PageReaderPlace?
            for entry in keyed {
                let line = lines[entry.index].line
                if let previous, previous.block == entry.place.block, var block = blocks.popLast() {
                    if previous.paragraph == entry.place.paragraph, var paragraph = block.paragraphs.popLast() {
                        paragraph.lines.append(line)
                        paragraph.box = .enclosing([paragraph.box, line.box])
                        block.paragraphs.append(paragraph)
                    } else {
                        block.paragraphs.append(TextParagraph(box: line.box, lines: [line]))
                    }
                    block.box = .enclosing([block.box, line.box])
                    blocks.append(block)
                } else {
                    blocks.append(TextBlock(box: line.box, paragraphs: [TextParagraph(box: line.box, lines: [line])]))
                }
                previous = entry.place
            }
            return RecognizedText(blocks: blocks)
        }
    }
}
