import CEmbeddedFiles

/// The HTML templates, stylesheet and scripts of the report, compiled into the binary so an
/// installed `gloss` needs no files beside it (`Sources/CEmbeddedFiles`).
public enum Templates {
    public static var page: String { text(gloss_embedded_page_html) }
    public static var index: String { text(gloss_embedded_index_html) }
    public static var stylesheet: String { text(gloss_embedded_gloss_css) }
    public static var pageScript: String { text(gloss_embedded_page_js) }
    public static var indexScript: String { text(gloss_embedded_index_js) }

    private static func text(_ file: (UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>?) -> String {
        var count = 0
        guard let start = file(&count) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }
}
