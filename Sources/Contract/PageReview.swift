/// What a reviewer should look at on a page before trusting its text: the triage's verdict
/// (`GlossReading.Triage`) and the evidence it was decided on. Every field but `suspect` and
/// `uncoveredInk` is optional, so reports written before the triage read back unchanged.
public struct PageReview: Codable, Sendable, Equatable {
    /// Text may be missing or wrong whatever the mean confidence says: lines the detector found
    /// that no reading covers, text-like ink without words (a column of a table, a caption),
    /// or readers that disagree on the lines both read.
    public var suspect: Bool
    /// The share of the page's ink, 0...1, that no word box covers.
    public var uncoveredInk: Double
    /// The words read are unsure on a page of text (not a photo with a few words on it).
    public var lowConfidence: Bool?
    /// Why the page is flagged, each a `TriageReason`'s name; nil or empty when it is not.
    public var reasons: [String]?
    /// The share of the page's ink, 0...1, in text-like rows no word covers.
    public var textInk: Double?
    /// That ink as a share of the page's area.
    public var textInkArea: Double?
    /// The share of the detector's lines, 0...1, that no kept word covers (`--text accurate`).
    public var unreadLines: Double?
    /// Of the lines both readers read, the share of characters on which their readings differ.
    public var disagreement: Double?

    public init(suspect: Bool, uncoveredInk: Double, lowConfidence: Bool? = nil, reasons: [String]? = nil,
                textInk: Double? = nil, textInkArea: Double? = nil, unreadLines: Double? = nil, disagreement: Double? = nil) {
        self.suspect = suspect
        self.uncoveredInk = uncoveredInk
        self.lowConfidence = lowConfidence
        self.reasons = reasons
        self.textInk = textInk
        self.textInkArea = textInkArea
        self.unreadLines = unreadLines
        self.disagreement = disagreement
    }
}
