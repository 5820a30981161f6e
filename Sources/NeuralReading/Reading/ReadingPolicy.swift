/// The neural reader's decisions, each with where it comes from: RapidOCR 3.10's defaults
/// (`rapidocr/config.yaml`), whose text Gloss's reading is to equal.
public struct ReadingPolicy: Sendable, Equatable {
    /// Lines whose mean character probability is lower are dropped (RapidOCR's `text_score`).
    public var minimumLineConfidence = 0.5
    /// A line is turned over when the classifier gives 180 degrees more than this (`cls_thresh`).
    public var turnOverProbability: Float = 0.9
    /// Lines whose first corners lie within this many page pixels of height are one row, read
    /// left to right (RapidOCR's `sorted_boxes`).
    public var sameRow = 10.0

    public init() {}
}

/// Lines in reading order, as RapidOCR orders them: by their top-left corner, top to bottom,
/// then a line that starts left of its predecessor on the same row moved before it.
enum LineOrder {
    static func sorted(_ lines: [LineQuad], sameRow: Double) -> [LineQuad] {
        var sorted = lines.enumerated().sorted { left, right in
            let a = left.element.corners[0], b = right.element.corners[0]
            return a.y != b.y ? a.y < b.y : a.x != b.x ? a.x < b.x : left.offset < right.offset
        }.map(\.element)
        guard sorted.count > 1 else { return sorted }
        for index in 0..<(sorted.count - 1) {
            var j = index
            while j >= 0 {
                let next = sorted[j + 1].corners[0], current = sorted[j].corners[0]
                guard abs(next.y - current.y) < sameRow, next.x < current.x else { break }
                sorted.swapAt(j, j + 1)
                j -= 1
            }
        }
        return sorted
    }
}
