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
/// Fitted by `bench/reading/calibrate.py` on the bench's tune half (38 real pages of seven
/// kinds, 10,461 Tesseract and 10,598 neural words, each labelled right or wrong by aligning
/// its line to the truth; 40 bins pooled until they rise). Raw confidences are the page JSON's
/// 0...100: Tesseract's word confidence, and the neural reader's mean character probability.
/// Checked on the measure half (35 pages), Brier raw -> calibrated: neural 0.0183 -> 0.0177;
/// Tesseract 0.0289 -> 0.0321 (its low end is fitted high: words under 57 are right 28% of the
/// time on measure, the map says 58%), log loss 0.125 -> 0.112. The point of the map is that
/// the two raw scales are not one: a Tesseract 96.9 is right 99.9% of the time, a neural 99.0
/// about 70%.
public enum Calibration {
    /// Tesseract's word confidence (0...100) to the probability that the word is right.
    public static let tesseract = ConfidenceScale(knots: [
        (31.92, 0.5758), (70.2, 0.7348), (83.51, 0.8289), (89.12, 0.8826), (91.04, 0.9049),
        (91.92, 0.9545), (92.59, 0.9658), (93.69, 0.9848), (95.65, 0.9908), (96.16, 0.9954),
        (96.48, 0.9977), (96.82, 0.9989), (97.01, 0.9989),
    ])!
    /// The neural reader's word confidence (0...100) to the probability that the word is right.
    public static let neural = ConfidenceScale(knots: [
        (76.95, 0.5468), (97.83, 0.8614), (99.49, 0.9231), (99.88, 0.9634), (99.97, 0.9813),
        (99.98, 0.9872), (99.99, 0.9952), (100, 0.9985),
    ])!
    /// Raw confidence as the probability, conf/100: for tests that want the raw order.
    public static let uncalibrated = ConfidenceScale(knots: [(0, 0), (100, 1)])!
}
