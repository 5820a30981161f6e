import GlossTemplates

/// The stylesheet and scripts every report page links to, written once per batch under
/// `assets/`. Separate files rather than inline code, so the pages' Content-Security-Policy
/// can forbid inline scripts and handlers outright.
public enum ReportAssets {
    public static let folder = "assets"

    public static var files: [BatchFile] {
        [
            BatchFile(path: folder + "/gloss.css", bytes: Array(Templates.stylesheet.utf8)),
            BatchFile(path: folder + "/page.js", bytes: Array(Templates.pageScript.utf8)),
            BatchFile(path: folder + "/index.js", bytes: Array(Templates.indexScript.utf8)),
        ]
    }
}
