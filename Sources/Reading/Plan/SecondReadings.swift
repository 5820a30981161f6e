import GlossContract
import GlossGeometry

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

    /// Whether the first reading of a page read as it came, before any orientation detector was
    /// asked, settles that the page stands upright: Tesseract is sure of it (a reading the wrong
    /// way up is garbage it is unsure of: `confidentReading`), with words enough to tell, and
    /// its words lie level (`levelWords`; a page on its side is read confidently from its
    /// standing lines, whose words stand). `size` is the page's in pixels, on which the
    /// words' boxes are measured.
    public static func settlesWayUp(_ first: RecognizedText, size: PixelSize, policy: PreparationPolicy) -> Bool {
        settlesWayUp(first, size: size, policy: policy, from: policy.confidentReading)
    }

    /// The same, sure of it from a mean word confidence of `confidence`: `fast`'s first reading,
    /// before the orientation detector it may spare, from `PreparationPolicy.settlingReading`.
    public static func settlesWayUp(_ first: RecognizedText, size: PixelSize, policy: PreparationPolicy,
                                    from confidence: Double) -> Bool {
        let long = first.words.filter { $0.text.count >= 3 }
        guard long.count >= policy.wordsToTell, (first.meanConfidence ?? 0) >= confidence else { return false }
        let level = long.count { $0.box.width * Double(size.width) > $0.box.height * Double(size.height) }
        return Double(level) >= policy.levelWords * Double(long.count)
    }

    /// Whether a page whose way up is `doubt` is read at its own size too when it is scaled
    /// (`readsAsItCameToo`): only when the detectors were unsure of it, so that the readings of
    /// its turns are set against each other at the size each reads best. A page they were sure
    /// of (`DoubtfulOrientation.overturned`: every page with letters) is read another way only
    /// when its reading looks garbled, and its turns are then compared at one scale; reading it
    /// at its own size too cost 8.7 s of the 46 s `fast` spent on the 23 pages of `bench/
    /// pipeline.sh --real` (a table told 96 ppi: 7.2 s), for the F1 and CER given in
    /// `PreparationPolicy.comparesSurePages`.
    public static func comparesAtOwnSize(_ doubt: DoubtfulOrientation, policy: PreparationPolicy) -> Bool {
        !doubt.appliedIsSure || policy.comparesSurePages
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
