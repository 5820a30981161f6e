import GlossPDFGraft

/// What becomes of a PDF page that already holds text (`--pdf-mode`), as OCRmyPDF's options of
/// these names mean it. Gloss grafts its text layer onto the input's pages, so a page's own
/// content, visible text included, is kept in every mode; what changes is which pages are read
/// and whether their old invisible text (rendering mode 3, an OCR tool's layer) stays.
public enum PDFMode: String, Sendable, Codable, Hashable, CaseIterable {
    /// A page with a text layer keeps it and is not read (`--skip-text`): its words are the
    /// page's, and no layer is grafted on it.
    case skip
    /// A page showing visible text is kept as it is and not read; any other page is read, its
    /// old invisible text removed and Gloss's layer grafted on.
    case redo
    /// Every page is read; the old invisible text of each is removed and Gloss's layer grafted on.
    case force

    /// Whether the mode needs to know what a page's content shows (visible or invisible text)
    /// to decide whether to read it.
    public var readsContent: Bool {
        switch self {
        case .redo: true
        case .skip, .force: false
        }
    }

    /// Whether a page keeps its text and is not read: `hasTextLayer` says Poppler finds words
    /// on it, `text` what its content shows (nil when not known, as for an image).
    public func keepsText(hasTextLayer: Bool, text: PDFGraft.PageText?) -> Bool {
        switch self {
        case .skip: hasTextLayer
        case .redo: hasTextLayer && (text?.contains(.visible) ?? true)
        case .force: false
        }
    }

    /// Whether a page read by Gloss loses its old invisible text before the layer goes on.
    public func stripsInvisibleText(_ text: PDFGraft.PageText?, kept: Bool) -> Bool {
        self != .skip && !kept && (text?.contains(.invisible) ?? false)
    }
}
