/// A reader's raw word confidence mapped onto the probability that the word is right: a
/// monotone piecewise-linear map through measured knots, flat beyond the first and the last.
/// Two readers' words are compared on this one scale, never on their own.
public struct ConfidenceScale: Sendable, Equatable {
    /// (raw confidence, probability the word is right), raw confidences strictly increasing,
    /// probabilities never decreasing.
    public let knots: [(raw: Double, probability: Double)]

    /// nil for fewer than two knots, or knots that do not rise (a map that would reorder words).
    public init?(knots: [(raw: Double, probability: Double)]) {
        guard knots.count >= 2,
              zip(knots, knots.dropFirst()).allSatisfy({ $0.raw < $1.raw && $0.probability <= $1.probability }),
              knots.allSatisfy({ (0...1).contains($0.probability) })
        else { return nil }
        self.knots = knots
    }

    /// The probability that a word read with `raw` confidence is right.
    public func probability(_ raw: Double) -> Double {
        guard let first = knots.first, let last = knots.last else { return 0 }
        if raw <= first.raw { return first.probability }
        if raw >= last.raw { return last.probability }
        let upper = knots.firstIndex { $0.raw >= raw } ?? knots.count - 1
        let (a, b) = (knots[upper - 1], knots[upper])
        return a.probability + (raw - a.raw) / (b.raw - a.raw) * (b.probability - a.probability)
    }

    public static func == (lhs: ConfidenceScale, rhs: ConfidenceScale) -> Bool {
        lhs.knots.elementsEqual(rhs.knots) { $0.raw == $1.raw && $0.probability == $1.probability }
    }
}

/// The scales of Gloss's two readers, the one place their knots are written.
///
/// UNCALIBRATED: both are placeholders until the knots are measured on the bench's pages
/// (how often a word of each raw confidence matches the truth, tuned on the `tune` half and
/// checked on `measure`). Tesseract's confidence is read as conf/100, the neural reader's
/// (its characters' mean probability, 0...100 on Gloss's scale) as it is.
public enum Calibration {
    /// Tesseract's word confidence (0...100) to a probability: UNCALIBRATED, conf/100.
    public static let uncalibratedTesseract = ConfidenceScale(knots: [(0, 0), (100, 1)])!
    /// The neural reader's word confidence (0...100) to a probability: UNCALIBRATED, conf/100.
    public static let uncalibratedNeural = ConfidenceScale(knots: [(0, 0), (100, 1)])!
}
