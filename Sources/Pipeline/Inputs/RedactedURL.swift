/// A URL input as a batch may show and store it: reports are made to be published, and a URL
/// can carry a password (`user:pw@host`) or a token in its query (`?token=…`).
///
/// The shown form has no user information, every query value replaced by `REDACTED` (the
/// names kept, so `?page=REDACTED&token=REDACTED` still says what the server was asked), and
/// no fragment. When anything was hidden it ends in `#hidden-` and 16 hexadecimal digits of the
/// full URL's SHA-256: the same URL gives the same source on every run (so resume skips its
/// pages), two URLs that differ only in what was hidden stay two sources with two page ids,
/// and a fragment is never sent to a server, so the form cannot be mistaken for another URL's.
/// The full URL lives only in memory, long enough to fetch it. A URL with nothing to hide is
/// shown as it is.
public enum RedactedURL {
    public static let placeholder = "REDACTED"

    /// `url` as reports show it (see the type).
    public static func shown(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.upperBound]
        var rest = url[schemeEnd.upperBound...]
        var hidden = false
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            rest = rest[rest.index(after: at)...]
            hidden = true
        }
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
            hidden = true
        }
        var shown = String(scheme)
        if let question = rest.firstIndex(of: "?") {
            shown += rest[..<question]
            let query = rest[rest.index(after: question)...]
            let fields = query.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
                // A field without `=` may be a bare token: it is hidden whole.
                guard let equals = field.firstIndex(of: "=") else { return field.isEmpty ? "" : placeholder }
                return field[..<equals] + "=" + placeholder
            }
            shown += "?" + fields.joined(separator: "&")
            hidden = hidden || !query.isEmpty
        } else {
            shown += rest
        }
        guard hidden else { return url }
        return shown + "#hidden-" + SHA256.hex(of: Array(url.utf8)).prefix(16)
    }
}
