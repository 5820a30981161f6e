import GlossContract
import GlossGeometry
import GlossTemplates

/// The batch index: a thumbnail and counts for every page, the pages that could not be read
/// with their reasons, and a search across the whole batch.
///
/// The search text is not in this file: `assets/index.js` loads `BatchData`'s shards only when
/// someone searches, so the index of a 5,000-page batch opens as fast as a small one.
///
/// The cards come in groups of `groupSize`, each its own grid that the browser lays out and
/// paints only near the viewport (`content-visibility` on the group, in `gloss.css`). Measured
/// on 5,000 pages in Chromium, skipping each card instead cost more than it saved: 0.8 to 1.5 s of
/// style work at load and 80 to 160 ms per frame while scrolling; skipping groups of 100 cost
/// 20 ms at load and kept scrolling at the frame rate.
public struct BatchIndexView {
    public struct Entry: Sendable {
        public var source: String
        public var pageIndex: Int
        public var status: PageStatus
        public var error: String?
        public var wordCount: Int
        public var meanConfidence: Double?
        public var faceCount: Int
        /// The page's HTML relative to the index; nil for pages without one.
        public var htmlPath: String?
        /// The picture shown as the thumbnail (the display copy, or a smaller one), relative to the index.
        public var imagePath: String?
        /// The page's review flag (`PageReview.suspect`): inked areas without words.
        public var suspect: Bool

        public init(source: String, pageIndex: Int, status: PageStatus, error: String?, wordCount: Int,
                    meanConfidence: Double?, faceCount: Int, htmlPath: String?, imagePath: String? = nil,
                    suspect: Bool = false) {
            self.source = source
            self.pageIndex = pageIndex
            self.status = status
            self.error = error
            self.wordCount = wordCount
            self.meanConfidence = meanConfidence
            self.faceCount = faceCount
            self.htmlPath = htmlPath
            self.imagePath = imagePath
            self.suspect = suspect
        }

        var title: String { "\(source) · page \(pageIndex + 1)" }
    }

    public var entries: [Entry]
    /// Cards per group; a batch of more than one group heads each with the range of its pages.
    static let groupSize = 100
    /// Where `ReportAssets.files` and `BatchData.files` are, relative to the index, ending in a slash.
    public var assetsPath: String
    public var dataPath: String

    public init(entries: [Entry], assetsPath: String = "assets/", dataPath: String = "data/") {
        self.entries = entries
        self.assetsPath = assetsPath
        self.dataPath = dataPath
    }

    public func render() -> String {
        let failures = entries.filter { $0.status != .ok }
        let words = entries.map(\.wordCount).reduce(0, +)
        let faces = entries.map(\.faceCount).reduce(0, +)
        let summary = [
            entries.count == 1 ? "1 page" : "\(entries.count) pages",
            "\(failures.count) not read",
            words == 1 ? "1 word" : "\(words) words",
            faces == 1 ? "1 face" : "\(faces) faces",
        ].joined(separator: " · ")
        return Template(source: Templates.index).render([
            "csp": HTML(escaping: ContentPolicy.meta),
            "assets": HTML(escaping: assetsPath),
            "data": HTML(escaping: dataPath),
            "summary": HTML(escaping: summary),
            "failures": failureList(failures),
            "pages": pageGroups(),
        ])
    }

    private func pageGroups() -> HTML {
        let starts = Array(stride(from: 0, to: entries.count, by: Self.groupSize))
        let groups = starts.map { start in
            let end = min(start + Self.groupSize, entries.count)
            let heading = starts.count > 1 ? "<h3>Pages \(start + 1)–\(end)</h3>\n" : ""
            return HTML(trusted: "<div class=\"group\">\n\(heading)<ol class=\"grid\">\n")
                + HTML.joined(entries[start..<end].map(card)) + HTML(trusted: "\n</ol>\n</div>")
        }
        return HTML.joined(groups)
    }

    private func failureList(_ failures: [Entry]) -> HTML {
        guard !failures.isEmpty else { return HTML(trusted: "") }
        let items = failures.map { entry in
            HTML(trusted: "<li><span class=\"badge \(entry.status.rawValue)\">\(entry.status.rawValue)</span> <strong>")
                + HTML(escaping: entry.title) + HTML(trusted: "</strong> <span class=\"reason\">")
                + HTML(escaping: entry.error ?? "") + HTML(trusted: "</span></li>")
        }
        return HTML(trusted: "<section class=\"failures\"><h2>Not read (\(failures.count))</h2><ul>")
            + HTML.joined(items) + HTML(trusted: "</ul></section>")
    }

    private func card(_ entry: Entry) -> HTML {
        let thumbnail = entry.imagePath.map {
            HTML(trusted: "<img src=\"") + HTML(escaping: $0) + HTML(trusted: "\" alt=\"\" loading=\"lazy\" decoding=\"async\">")
        } ?? HTML(trusted: "<span class=\"no-image\">\(entry.status == .ok ? "no image" : entry.status.rawValue)</span>")
        let name = HTML(trusted: "<span class=\"thumb\">") + thumbnail + HTML(trusted: "</span><span class=\"name\">")
            + HTML(escaping: entry.title) + HTML(trusted: "</span>")
        let body = entry.htmlPath.map {
            HTML(trusted: "<a href=\"") + HTML(escaping: $0) + HTML(trusted: "\">") + name + HTML(trusted: "</a>")
        } ?? name
        var counts = [entry.wordCount == 1 ? "1 word" : "\(entry.wordCount) words"]
        if let mean = entry.meanConfidence { counts.append(DecimalText.format(mean, maximumFractionDigits: 1) + "%") }
        if entry.faceCount > 0 { counts.append(entry.faceCount == 1 ? "1 face" : "\(entry.faceCount) faces") }
        if entry.status != .ok { counts = [entry.status.rawValue] }
        let countList = HTML.joined(counts.map { HTML(trusted: "<span>") + HTML(escaping: $0) + HTML(trusted: "</span>") }, separator: "")
        return HTML(trusted: "<li class=\"card \(entry.status.rawValue)\">") + body
            + HTML(trusted: "<span class=\"counts\">") + countList + HTML(trusted: "</span></li>")
    }
}
