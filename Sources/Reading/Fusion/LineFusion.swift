import GlossContract
import GlossGeometry

/// One detected line's text, from the page reader's words on it, the line reader's reading
/// of it, and the plan's action: the choice of readings is made here, on calibrated
/// probabilities.
public enum LineFusion {
    /// The line as kept, with its reader named; nil when neither reader has words for it.
    /// `pageWords` are the page reader's words on the line, `lineReading` the line reader's
    /// (nil when it did not read it, or its reading was dropped).
    public static func fused(_ line: LineSignals, action: LineAction, pageWords: [RecognizedWord], lineReading: TextLine?,
                             plan: ReadingPlan, policy: FusionPolicy) -> TextLine? {
        let pageLine = pageWords.isEmpty ? nil : self.line(line, words: pageWords, reader: plan.pageReader)
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

    /// The page reader's words on a detected line as one line: left to right along the line
    /// (its baseline's direction), on the detector's baseline. A line the classifier turned
    /// over is not turned for them: the page reader read the page as it stands, so its words
    /// run left to right as the page stands, on the bottom of their boxes (the classifier's
    /// 0/180 call swings on long lines: a clean page's heading came out word for word reversed).
    static func line(_ line: LineSignals, words: [RecognizedWord], reader: LineReader) -> TextLine {
        let box = NormalizedRect.enclosing(words.map(\.box))
        let baseline = line.isTurnedOver
            ? Baseline(start: NormalizedPoint(x: box.minX, y: box.minY), end: NormalizedPoint(x: box.maxX, y: box.minY))
            : line.baseline
        let (dx, dy) = (baseline.end.x - baseline.start.x, baseline.end.y - baseline.start.y)
        let along = { (word: RecognizedWord) in (word.box.minX + word.box.width / 2) * dx + (word.box.minY + word.box.height / 2) * dy }
        let ordered = words.enumerated().sorted { (along($0.element), $0.offset) < (along($1.element), $1.offset) }.map(\.element)
        return TextLine(box: box, baseline: baseline, words: ordered, reader: reader)
    }
}
