import GlossContract
import GlossGeometry

/// The page reader's words shared out among the detected lines: each word goes to the line
/// whose box holds the largest share of its own, when that share is at least the policy's.
public struct WordAssignment: Sendable, Equatable {
    /// Per detected line, the words it holds, in the page reader's order.
    public var byLine: [[RecognizedWord]]
    /// Per detected line, the page reader's line each of its words came from (an index into
    /// the page reader's lines), alongside `byLine`.
    public var sources: [[Int]]
    /// The page reader's lines cut down to their words in no detected line; a line left with
    /// none is dropped.
    public var outside: [TextLine]

    public init(text: RecognizedText, lines: [NormalizedRect], minimumShare: Double) {
        var byLine = [[RecognizedWord]](repeating: [], count: lines.count)
        var sources = [[Int]](repeating: [], count: lines.count)
        var outside: [TextLine] = []
        for (source, line) in text.lines.enumerated() {
            var left: [RecognizedWord] = []
            for word in line.words {
                if let index = Self.line(holding: word.box, among: lines, minimumShare: minimumShare) {
                    byLine[index].append(word)
                    sources[index].append(source)
                } else {
                    left.append(word)
                }
            }
            if !left.isEmpty {
                var kept = line
                kept.words = left
                kept.box = .enclosing(left.map(\.box))
                outside.append(kept)
            }
        }
        self.byLine = byLine
        self.sources = sources
        self.outside = outside
    }

    /// The index of the line holding the largest share of `box`, if at least `minimumShare`;
    /// ties go to the first. A box of no area is held by a line that contains its centre.
    static func line(holding box: NormalizedRect, among lines: [NormalizedRect], minimumShare: Double) -> Int? {
        var best: (index: Int, share: Double)?
        for (index, line) in lines.enumerated() {
            let share = self.share(of: box, in: line)
            if share >= minimumShare, share > (best?.share ?? -1) { best = (index, share) }
        }
        return best?.index
    }

    /// The fraction of `box`'s area inside `line`, 0...1.
    static func share(of box: NormalizedRect, in line: NormalizedRect) -> Double {
        let width = min(box.maxX, line.maxX) - max(box.minX, line.minX)
        let height = min(box.maxY, line.maxY) - max(box.minY, line.minY)
        let area = box.width * box.height
        guard area > 0 else {
            let (x, y) = (box.minX + box.width / 2, box.minY + box.height / 2)
            return (line.minX...line.maxX).contains(x) && (line.minY...line.maxY).contains(y) ? 1 : 0
        }
        guard width > 0, height > 0 else { return 0 }
        return width * height / area
    }
}
