/// The names people read for a batch's sources: paths relative to the folder all local inputs
/// share, and URLs as host and path, so a card says `scans/letter-03.png` rather than an
/// absolute path that wraps mid-word.
public struct SourceNames: Sendable {
    /// The folder every local source is in, as components (empty for `/`, or when no source is local).
    let root: [Substring]
    /// Sources with more than one page in the batch: their pages are numbered and grouped together.
    let multiPage: Set<String>

    /// Names for the sources of these pages (`source`, `pageIndex`).
    public init(pages: [(source: String, pageIndex: Int)]) {
        var counts: [String: Int] = [:]
        var multiPage: Set<String> = []
        for page in pages {
            counts[page.source, default: 0] += 1
            if page.pageIndex > 0 || counts[page.source]! > 1 { multiPage.insert(page.source) }
        }
        self.multiPage = multiPage
        var shared: [Substring]?
        for source in counts.keys where !Self.isURL(source) {
            let folder = Array(Self.components(of: source).dropLast())
            guard let common = shared else {
                shared = folder
                continue
            }
            shared = Array(zip(common, folder).prefix { $0.0 == $0.1 }.map(\.0))
        }
        root = shared ?? []
    }

    /// Whether `source` is numbered by page: a file with more than one page in the batch.
    public func isMultiPage(_ source: String) -> Bool { multiPage.contains(source) }

    /// The source as people read it: relative to the common folder, or a URL's host and path.
    public func name(of source: String) -> String {
        (folderComponents(of: source) + [fileName(of: source)]).joined(separator: "/")
    }

    /// The page's title: the source's name, with its page number if the file has several pages.
    public func title(source: String, pageIndex: Int) -> String {
        isMultiPage(source) ? "\(name(of: source)) · page \(pageIndex + 1)" : name(of: source)
    }

    /// The folder of `source` as people read it, ending in `/`: relative to the common folder
    /// (which is named by its own last component), or a URL's host and folder.
    public func folder(of source: String) -> String {
        let components = folderComponents(of: source)
        if components.isEmpty { return (root.last.map(String.init) ?? "") + "/" }
        return components.joined(separator: "/") + "/"
    }

    private func fileName(of source: String) -> String {
        Self.isURL(source) ? String(Self.urlComponents(of: source).last ?? "") : String(Self.components(of: source).last ?? "")
    }

    private func folderComponents(of source: String) -> [String] {
        if Self.isURL(source) { return Self.urlComponents(of: source).dropLast().map(String.init) }
        let folder = Self.components(of: source).dropLast()
        let shared = zip(root, folder).prefix { $0.0 == $0.1 }.count
        return folder.dropFirst(shared).map(String.init)
    }

    /// Whether `source` is an address Gloss fetched: the scheme in any case, as the fetcher reads it.
    static func isURL(_ source: String) -> Bool {
        let scheme = source.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// A path's non-empty components; `.` components dropped.
    static func components(of path: String) -> [Substring] {
        path.split(separator: "/").filter { $0 != "." }
    }

    /// A URL's host and path components, without scheme, query or fragment.
    static func urlComponents(of url: String) -> [Substring] {
        let rest = url.drop { $0 != ":" }.dropFirst(3)
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        return path.split(separator: "/")
    }
}
