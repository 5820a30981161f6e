import GlossContract

/// One reading of a page whose way up is in doubt: the turn it was read at (degrees clockwise
/// from the input page) and what Tesseract made of it.
public struct TurnedReading: Sendable, Equatable {
    public var rotation: Int
    public var text: RecognizedText

    public init(rotation: Int, text: RecognizedText) {
        self.rotation = rotation
        self.text = text
    }
}

/// A turn to read the page at next, levelled by `skew` degrees (counter-clockwise).
public struct NextTurn: Sendable, Equatable {
    public var rotation: Int
    public var skew: Double

    public init(rotation: Int, skew: Double) {
        self.rotation = rotation
        self.skew = skew
    }
}

/// Tesseract's second readings of a page as pure decisions: from the readings made so far and
/// the policy, whether another is made, and which is kept. The analyzer that reads runs them
/// in a loop; the tests give them readings made up.
public enum SecondReadings {
    /// The next turn to read a page whose way up is in doubt at, after `readings` (the first
    /// at `doubt.applied`, as the page was given); nil when the readings made settle it.
    ///
    /// - A page the detectors were sure of is read turned over only when its reading looks
    ///   garbled (both can be sure of a table of figures upside down).
    /// - Otherwise a confident first reading is the page the right way up (one the wrong way
    ///   up is garbage Tesseract is unsure of), except on a page that may lie on its side,
    ///   which Tesseract reads confidently by turning the lines it finds standing, though worse
    ///   than turned.
    /// - A page on its side may lie on either: when neither the side proposed nor the page as
    ///   it came reads surely, with words enough to tell, the other side is read too (a table
    ///   of figures the detector turned the wrong way read at 46 on that side, 73 as it came
    ///   and 75 on the side it needed).
    public static func nextTurn(after readings: [TurnedReading], doubt: DoubtfulOrientation,
                                policy: PreparationPolicy) -> NextTurn? {
        guard let first = readings.first else { return NextTurn(rotation: doubt.applied, skew: 0) }
        let sideways = doubt.quarterTurns % 2 == 1
        switch readings.count {
        case 1:
            if doubt.appliedIsSure {
                return policy.isGarbled(first.text) ? NextTurn(rotation: doubt.other, skew: doubt.otherSkew) : nil
            }
            let mayLieOnItsSide = doubt.applied == 0 && sideways
            return mayLieOnItsSide || policy.isUnsure(first.text) ? NextTurn(rotation: doubt.other, skew: doubt.otherSkew) : nil
        case 2:
            let kept = chosen(readings).kept.text
            guard sideways, policy.isUnsure(kept), kept.words.count >= policy.wordsToTell else { return nil }
            let side = doubt.applied == 0 ? doubt.other : doubt.applied
            // The page as given is levelled already when the preparer turned it.
            return NextTurn(rotation: (side + 180) % 360, skew: doubt.applied == 0 ? doubt.otherSkew : 0)
        default:
            return nil
        }
    }

    /// The reading kept (the most confident, the first of equals) and the most confident of the
    /// others, set aside; nil when there was one reading.
    public static func chosen(_ readings: [TurnedReading]) -> (kept: TurnedReading, setAside: TurnedReading?) {
        precondition(!readings.isEmpty, "a choice among no readings")
        var kept = readings[0]
        var setAside: TurnedReading?
        for reading in readings.dropFirst() {
            if reading.text.isMoreConfident(than: kept.text) {
                setAside = kept
                kept = reading
            } else if setAside.map({ reading.text.isMoreConfident(than: $0.text) }) ?? true {
                setAside = reading
            }
        }
        return (kept, setAside)
    }

    /// Whether a scaled page is read as it came too, from its first reading: always when its
    /// letters were enlarged (small letters read better enlarged on most pages and worse on
    /// some, and the more confident reading was the better on all 11 such bench pages), and
    /// when it was told another resolution than its file states (a placeholder 72 or 96) and
    /// Tesseract is unsure of the reading told 300.
    public static func readsAsItCameToo(enlarged: Bool, resolutionDoubted: Bool, first: RecognizedText,
                                        policy: PreparationPolicy) -> Bool {
        enlarged || (resolutionDoubted && policy.isUnsure(first))
    }
}
