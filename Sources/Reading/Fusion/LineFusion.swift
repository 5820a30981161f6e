import GlossContract
import GlossGeometry

/// One detected line's text, from the page reader's words on it, the line reader's reading
/// of it, and the plan's action: the choice of readings is made here, on calibrated
/// probabilities.
public enum LineFusion {
    /// The line as kept, with its reader named; nil when neither reader has words for it.
    /// `pageWords` are the page reader's words on the line, `lineReading` the line reader's
    /// (nil when it did not read it, or its reading was dropped); `sources` the page reader's
    /// line each of `pageWords` came from (`WordAssignment.sources`; nil: one line).
    public static func fused(_ line: LineSignals, action: LineAction, pageWords: [RecognizedWord], sources: [Int]? = nil,
                             lineReading: TextLine?, plan: ReadingPlan, policy: FusionPolicy) -> TextLine? {
        let pageLine = pageWords.isEmpty ? nil : self.line(line, words: pageWords, sources: sources, reader: plan.pageReader)
        let lineReader = plan.lines?.lineReader ?? plan.pageReader
        let secondLine = lineReading.map { reading -> TextLine in
            var reading = reading
            reading.reader = lineReader
            return reading
        }
        switch action {
        case .keep: return pageLine
        case .readInstead: return secondLine ?? pageLine
        case .readAlso:
            guard let pageLine else { return secondLine }
            guard let secondLine else { return pageLine }
            let pageProbability = probability(of: pageLine, on: policy.scale(of: plan.pageReader))
            let secondProbability = probability(of: secondLine, on: policy.scale(of: lineReader))
            return secondProbability > pageProbability ? secondLine : pageLine
        }
    }

    /// The mean calibrated probability of a line's words; 0 for none.
    public static func probability(of line: TextLine, on scale: ConfidenceScale) -> Double {
        RecognizedText.mean(of: line.words.map { scale.probability($0.confidence) }) ?? 0
    }

    /// The page reader's words on a detected line as one line, ordered along the line the way
    /// the page reader reads it. `words` come in the page reader's order, which within one of
    /// its lines (`sources`) says the way: the detector's baseline is taken as it runs, or
    /// reversed when the page reader's words run against it (its lines' own order says
    /// nothing: a line split in two may come right half first). The line classifier's 0/180
    /// call swings on long lines (a clean page's heading came out word for word reversed),
    /// while a page Tesseract read turned over has its words run right to left on the page,
    /// as its detected lines do.
    static func line(_ line: LineSignals, words: [RecognizedWord], sources: [Int]?, reader: LineReader) -> TextLine {
        let box = NormalizedRect.enclosing(words.map(\.box))
        let centre = { (word: RecognizedWord) in (x: word.box.minX + word.box.width / 2, y: word.box.minY + word.box.height / 2) }
        let detected = line.baseline
        let (dx, dy) = (detected.end.x - detected.start.x, detected.end.y - detected.start.y)
        let along = { (word: RecognizedWord) in centre(word).x * dx + centre(word).y * dy }
        // How far the page reader's words run along the detector's baseline, word to word
        // within each of its lines.
        let sources = sources ?? Array(repeating: 0, count: words.count)
        let run = words.indices.dropFirst().reduce(0.0) { sum, index in
            sources[index] == sources[index - 1] ? sum + along(words[index]) - along(words[index - 1]) : sum
        }
        var baseline = detected
        if run < 0 {
            if abs(dx) >= abs(dy) {
                // A level line read the other way: on the bottom of its words as that way stands.
                baseline = dx < 0
                    ? Baseline(start: NormalizedPoint(x: box.minX, y: box.minY), end: NormalizedPoint(x: box.maxX, y: box.minY))
                    : Baseline(start: NormalizedPoint(x: box.maxX, y: box.maxY), end: NormalizedPoint(x: box.minX, y: box.maxY))
            } else {
                baseline = Baseline(start: detected.end, end: detected.start)
            }
        }
        let sign = run < 0 ? -1.0 : 1.0
        let ordered = words.enumerated().sorted { (sign * along($0.element), $0.offset) < (sign * along($1.element), $1.offset) }
            .map(\.element)
        return TextLine(box: box, baseline: baseline, words: ordered, reader: reader)
    }
}
