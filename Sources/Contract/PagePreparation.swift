/// What was done to a page before its text was read (`--prepare auto`), and what each step
/// cost: the reader of a report can tell a page Gloss turned, straightened or read twice from
/// one it read as it came. Absent from pages read with `--prepare none` and from older reports.
///
/// Geometry is undone before anything is reported: boxes are always in the input's pixels.
public struct PagePreparation: Codable, Sendable, Equatable {
    /// Degrees the page was turned clockwise to stand upright: 0, 90, 180 or 270.
    public var rotation: Int = 0
    /// The orientation detector's confidence in `rotation`, on its own scale; nil when the
    /// orientation was not asked (the page read well as it came).
    public var orientationConfidence: Double?
    /// How many rows of letters the line classifier read when they settled `rotation` without
    /// the orientation detector (`LetterRows`); nil when they did not.
    public var rowsRead: Int?
    /// A turn that was read and set aside: the orientation detector was unsure, the page was
    /// read both ways, and `rotation` read the more confidently. nil when read one way only.
    public var rotationSetAside: Int?
    /// Degrees the page was turned to level its lines (counter-clockwise positive); 0 when level.
    public var skew: Double = 0
    /// The factor the text copy was scaled by, so its letters reach the size Tesseract reads best.
    public var scale: Double = 1
    /// The height of a lower-case letter (the most common letter height), in pixels of the copy
    /// Tesseract was handed before scaling (the page at up to 300 ppi); nil when not measured.
    public var xHeight: Double?
    /// An enlargement that was read and set aside, the page at its own size having read more
    /// confidently; nil when no enlargement was tried or it was kept (`scale`).
    public var enlargementSetAside: Double?
    /// A resolution Tesseract was told (300 ppi, in place of a file's placeholder 72 or 96) and
    /// set aside: the page read more confidently at the file's own; nil when the resolution
    /// told was kept or not doubted.
    public var resolutionSetAside: Int?
    /// How the text copy was turned to black and white before Tesseract: `tesseract` (its own
    /// Otsu threshold), `sauvola` (local threshold, for uneven light) or another recipe's name.
    public var binarization: String = "tesseract"
    /// Regions whose ink no recognised word covered, read again on their own.
    public var regionsReread: Int = 0
    /// Words those second readings added to the page.
    public var wordsAdded: Int = 0
    /// The names of the reading plan's rules that fired on the page, in the order they first
    /// did (`--text accurate`, docs/reading.md); nil when no plan was made.
    public var rules: [String]?
    /// Milliseconds of each step that ran, in order.
    public var timings: StageTimings = StageTimings()

    public init() {}

    /// Whether anything at all was changed: a page prepared and left as it came says so.
    public var changedPage: Bool {
        rotation != 0 || skew != 0 || scale != 1 || binarization != "tesseract" || wordsAdded > 0
    }

    /// Both records in one: the geometric steps of the page and the text copy's own, each
    /// filled by the stage that did them.
    public func merged(with other: PagePreparation) -> PagePreparation {
        var merged = self
        if other.rotation != 0 { merged.rotation = other.rotation }
        if let setAside = other.rotationSetAside {
            // The text analyzer read the page both ways: its choice is the page's turn.
            merged.rotation = other.rotation
            merged.rotationSetAside = setAside
        }
        merged.orientationConfidence = orientationConfidence ?? other.orientationConfidence
        merged.rowsRead = rowsRead ?? other.rowsRead
        if other.skew != 0 { merged.skew = other.skew }
        if other.scale != 1 { merged.scale = other.scale }
        merged.xHeight = xHeight ?? other.xHeight
        merged.enlargementSetAside = enlargementSetAside ?? other.enlargementSetAside
        merged.resolutionSetAside = resolutionSetAside ?? other.resolutionSetAside
        if other.binarization != "tesseract" { merged.binarization = other.binarization }
        merged.regionsReread += other.regionsReread
        merged.wordsAdded += other.wordsAdded
        if let rules = other.rules {
            let known = merged.rules ?? []
            merged.rules = known + rules.filter { !known.contains($0) }
        }
        for stage in other.timings.stages { merged.timings.record(stage.name, milliseconds: stage.milliseconds) }
        return merged
    }
}

/// Two ways a page may stand, when the orientation detector was unsure which: the text is read
/// both ways and the more confident reading kept. Degrees clockwise from the input page.
public struct DoubtfulOrientation: Sendable, Equatable {
    /// The turn the page was given before its analyzers read it.
    public var applied: Int
    /// The other turn it may need.
    public var other: Int
    /// Degrees counter-clockwise that level the page once turned the other way, for a page
    /// that may lie on its side: its lines stand as it came, so no skew was measured on it.
    public var otherSkew: Double
    /// Whether the detectors were sure of `applied`: the other way is then read only when the
    /// first reading looks garbled, not merely unsure (both detectors can be sure of a table of
    /// figures upside down).
    public var appliedIsSure: Bool

    public init(applied: Int, other: Int, otherSkew: Double = 0, appliedIsSure: Bool = false) {
        self.applied = applied
        self.other = other
        self.otherSkew = otherSkew
        self.appliedIsSure = appliedIsSure
    }

    /// The page turned over from the way the detectors were sure of.
    public static func overturned(from applied: Int) -> DoubtfulOrientation {
        DoubtfulOrientation(applied: applied, other: (applied + 180) % 360, appliedIsSure: true)
    }

    /// Clockwise quarter turns from the page as turned to the other way.
    public var quarterTurns: Int { (((other - applied) / 90) % 4 + 4) % 4 }
}
