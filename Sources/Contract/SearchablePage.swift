/// A page the batch search can find: its indexed text and the index's own tokens of it.
public struct SearchablePage: Sendable, Equatable {
    /// The page's HTML relative to the batch folder, or nil when the batch writes no HTML.
    public var htmlPath: String?
    public var title: String
    /// The text the full-text index holds: words joined by a space, lines by a newline.
    public var text: String
    /// FTS5's tokens of `text`, in order (lower case, diacritics removed).
    public var terms: [String]

    public init(htmlPath: String?, title: String, text: String, terms: [String]) {
        self.htmlPath = htmlPath
        self.title = title
        self.text = text
        self.terms = terms
    }
}
