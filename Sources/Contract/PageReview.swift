/// What a reviewer should look at on a page before trusting its text.
public struct PageReview: Codable, Sendable, Equatable {
    /// A large inked area has no recognised words: the layout may have dropped text (a column
    /// of a table, a caption), whatever the mean confidence of the words it did read.
    public var suspect: Bool
    /// The share of the page's ink, 0...1, that no word box covers.
    public var uncoveredInk: Double

    public init(suspect: Bool, uncoveredInk: Double) {
        self.suspect = suspect
        self.uncoveredInk = uncoveredInk
    }
}
