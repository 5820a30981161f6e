import GlossContract
import GlossGeometry
import GlossTemplates

/// The batch index: a thumbnail and labelled counts for every page, grouped by input folder
/// (a file of several pages is a group of its own), the pages that could not be read with their
/// reasons, links to the batch's data, and a search across the whole batch. `assets/index.js`
/// sorts and filters the cards in the browser from their `data-` attributes.
///
/// Titles are relative to the folder the batch's inputs share (`SourceNames`), the full source
/// in a tooltip; "· page N" only for a file of several pages.
///
/// The search text is not in this file: `assets/index.js` loads `BatchData`'s shards only when
/// someone searches, so the index of a 5,000-page batch opens as fast as a small one.
///
/// A group's cards come in chunks of at most `chunkSize`, each its own grid that the browser
/// lays out and paints only near the viewport (`content-visibility` on the chunk, in `gloss.css`,
/// which estimates an unpainted chunk's height from its `rows-N` class). Measured on 5,000 pages
/// in Chromium, skipping each card instead cost more than it saved: 0.8 to 1.5 s of style work at
/// load and 80 to 160 ms per frame while scrolling; skipping chunks of 100 cost 20 ms at load
/// and kept scrolling at the frame rate.
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
        /// The page's review flag (`PageReview.suspect`): text may be missing or wrong.
        public var suspect: Bool
        /// The searchable PDF of the page's whole input (`documents/`), relative to the index.
        public var documentPath: String?
        /// The page's words are unsure on a page of text (`PageReview.lowConfidence`).
        public var lowConfidence: Bool

        public init(source: String, pageIndex: Int, status: PageStatus, error: String?, wordCount: Int,
                    meanConfidence: Double?, faceCount: Int, htmlPath: String?, imagePath: String? = nil,
                    suspect: Bool = false, documentPath: String? = nil, lowConfidence: Bool = false) {
            self.source = source
            self.pageIndex = pageIndex
            self.status = status
            self.error = error
            self.wordCount = wordCount
            self.meanConfidence = meanConfidence
            self.faceCount = faceCount
            // Paths come from a batch's manifest, which a shard may have written: only links into the batch.
            self.htmlPath = htmlPath.flatMap { BatchData.isBatchLink($0) ? $0 : nil }
            self.imagePath = imagePath.flatMap { BatchData.isBatchLink($0) ? $0 : nil }
            self.suspect = suspect
            self.documentPath = documentPath.flatMap { BatchData.isDocumentLink($0) ? $0 : nil }
            self.lowConfidence = lowConfidence
        }

    }

    public var entries: [Entry]
    /// Input files a stopped run did not start: they have no entry, and the summary counts them.
    public var notStarted: Int
    /// Cards per chunk of a group.
    static let chunkSize = 100
    /// The widest grid the `rows-N` estimate assumes, in cards.
    static let columns = 6
    /// Where `ReportAssets.files` and `BatchData.files` are, relative to the index, ending in a slash.
    public var assetsPath: String
    public var dataPath: String
    /// The batch's IIIF manifest relative to the index, linked for viewers; nil when it has none.
    public var manifestPath: String?
    let names: SourceNames

    public init(entries: [Entry], notStarted: Int = 0, assetsPath: String = "assets/", dataPath: String = "data/",
                manifestPath: String? = nil) {
        self.entries = entries
        self.manifestPath = manifestPath
        self.notStarted = notStarted
        self.assetsPath = assetsPath
        self.dataPath = dataPath
        names = SourceNames(pages: entries.map { ($0.source, $0.pageIndex) })
    }

    public func render() -> String {
        let failures = entries.filter { $0.status != .ok }
        let cancelled = failures.count(where: { $0.status == .cancelled })
        let words = entries.map(\.wordCount).reduce(0, +)
        let faces = entries.map(\.faceCount).reduce(0, +)
        // Pages a stop cancelled are not pages that could not be read: the next run reads them.
        var counts = [entries.count == 1 ? "1 page" : "\(entries.count) pages", "\(failures.count - cancelled) not read"]
        if cancelled > 0 { counts.append("\(cancelled) cancelled") }
        if notStarted > 0 { counts.append(notStarted == 1 ? "1 input not started" : "\(notStarted) inputs not started") }
        let summary = (counts + [
            words == 1 ? "1 word" : "\(words) words",
            faces == 1 ? "1 face" : "\(faces) faces",
        ]).joined(separator: " · ")
        let groups = self.groups()
        let folderNumbers = Dictionary(uniqueKeysWithValues: groups.folders.enumerated().map { ($1, $0) })
        return Template(source: Templates.index).render([
            "csp": HTML(escaping: ContentPolicy.meta),
            "assets": HTML(escaping: assetsPath),
            "data": HTML(escaping: dataPath),
            "summary": HTML(escaping: summary),
            "manifest": manifestPath.map {
                HTML(trusted: " · <a href=\"\(HTML(escaping: $0))\" type=\"application/ld+json\" class=\"iiif-manifest\">IIIF manifest</a>"
                     + " (for Mirador or any IIIF viewer)")
            } ?? HTML(trusted: ""),
            "failures": failureList(failures),
            "folders": folderChoice(groups.folders),
            "pages": HTML.joined(groups.list.map { render($0, folders: folderNumbers) }),
        ])
    }

    /// Pages under one heading: a folder's single-page files, or the pages of one file.
    struct Group {
        var heading: String
        var entries: [Entry]
    }

    /// The groups in the order their first page comes, and the folders in that order.
    func groups() -> (list: [Group], folders: [String]) {
        var list: [Group] = [], position: [String: Int] = [:]
        var folders: [String] = [], seen: Set<String> = []
        for entry in entries {
            let folder = names.folder(of: entry.source)
            if seen.insert(folder).inserted { folders.append(folder) }
            let multiPage = names.isMultiPage(entry.source)
            let key = (multiPage ? "file:" : "folder:") + (multiPage ? entry.source : folder)
            if let index = position[key] {
                list[index].entries.append(entry)
            } else {
                position[key] = list.count
                list.append(Group(heading: multiPage ? names.name(of: entry.source) : folder, entries: [entry]))
            }
        }
        return (list, folders)
    }

    private func render(_ group: Group, folders: [String: Int]) -> HTML {
        let count = group.entries.count == 1 ? "1 page" : "\(group.entries.count) pages"
        let chunks = stride(from: 0, to: group.entries.count, by: Self.chunkSize).map { start in
            let slice = group.entries[start..<min(start + Self.chunkSize, group.entries.count)]
            let rows = (slice.count + Self.columns - 1) / Self.columns
            return HTML(trusted: "<ol class=\"grid chunk rows-\(rows)\">\n")
                + HTML.joined(slice.map { card($0, folders: folders) }) + HTML(trusted: "\n</ol>")
        }
        // A file's pages under one heading: the heading links the file's document.
        let document = group.entries.count > 1 && names.isMultiPage(group.entries[0].source)
            ? group.entries[0].documentPath.map { Self.documentLink($0) } : nil
        return HTML(trusted: "<section class=\"group\">\n<h3>") + HTML(escaping: group.heading)
            + HTML(trusted: " <span class=\"count\">\(count)</span>") + (document ?? HTML(trusted: "")) + HTML(trusted: "</h3>\n") + HTML.joined(chunks) + HTML(trusted: "\n</section>")
    }

    /// The folder filter, when there is more than one folder to choose from.
    private func folderChoice(_ folders: [String]) -> HTML {
        guard folders.count > 1 else { return HTML(trusted: "") }
        let options = folders.enumerated().map { index, folder in
            HTML(trusted: "<option value=\"\(index)\">") + HTML(escaping: folder) + HTML(trusted: "</option>")
        }
        return HTML(trusted: "<label>Folder <select id=\"folder\"><option value=\"\">All folders</option>")
            + HTML.joined(options, separator: "") + HTML(trusted: "</select></label>")
    }

    private func failureList(_ failures: [Entry]) -> HTML {
        guard !failures.isEmpty else { return HTML(trusted: "") }
        let items = failures.map { entry in
            HTML(trusted: "<li><span class=\"badge \(entry.status.rawValue)\">\(entry.status.rawValue)</span> <strong title=\"")
                + HTML(escaping: PageReport.title(source: entry.source, pageIndex: entry.pageIndex)) + HTML(trusted: "\">")
                + HTML(escaping: names.title(source: entry.source, pageIndex: entry.pageIndex))
                + HTML(trusted: "</strong> <span class=\"reason\">") + HTML(escaping: entry.error ?? "") + HTML(trusted: "</span></li>")
        }
        // Counted as the summary counts them: a page a stop cancelled is not a page that could not be read.
        let cancelled = failures.count(where: { $0.status == .cancelled }), failed = failures.count - cancelled
        let heading = [failed > 0 ? "Not read (\(failed))" : nil, cancelled > 0 ? "cancelled (\(cancelled))" : nil]
            .compactMap { $0 }.joined(separator: ", ")
        return HTML(trusted: "<section class=\"failures\"><h2>\(heading.prefix(1).uppercased() + heading.dropFirst())</h2><ul>")
            + HTML.joined(items) + HTML(trusted: "</ul></section>")
    }

    /// The title with a break allowed after each `/`, the folders muted: long paths wrap
    /// between folders, not inside a word.
    private func title(of entry: Entry) -> HTML {
        let title = names.title(source: entry.source, pageIndex: entry.pageIndex)
        guard let slash = title.lastIndex(of: "/") else { return HTML(escaping: title) }
        let folders = title[...slash].split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .map { HTML(escaping: String($0) + "/") + HTML(trusted: "<wbr>") }
        return HTML(trusted: "<span class=\"path\">") + HTML.joined(folders, separator: "") + HTML(trusted: "</span>")
            + HTML(escaping: String(title[title.index(after: slash)...]))
    }

    private func card(_ entry: Entry, folders: [String: Int]) -> HTML {
        let thumbnail = entry.imagePath.map {
            HTML(trusted: "<img src=\"") + HTML(escaping: $0)
                + HTML(trusted: "\" alt=\"\" width=\"320\" height=\"320\" loading=\"lazy\" decoding=\"async\">")
        } ?? HTML(trusted: "<span class=\"no-image\">\(entry.status == .ok ? "no image" : entry.status.rawValue)</span>")
        let name = HTML(trusted: "<span class=\"thumb\">") + thumbnail + HTML(trusted: "</span><span class=\"name\" title=\"")
            + HTML(escaping: PageReport.title(source: entry.source, pageIndex: entry.pageIndex)) + HTML(trusted: "\">")
            + title(of: entry) + HTML(trusted: "</span>")
        let body = entry.htmlPath.map {
            HTML(trusted: "<a href=\"") + HTML(escaping: $0) + HTML(trusted: "\">") + name + HTML(trusted: "</a>")
        } ?? name
        var counts: [String] = []
        if entry.suspect { counts.append("<span class=\"badge suspect\" title=\"Text may be missing: lines or ink without words, or readers that disagree\">suspect</span>") }
        if entry.status != .ok {
            counts.append("<span>\(entry.status.rawValue)</span>")
        } else {
            counts.append("<span>" + (entry.wordCount == 1 ? "1 word" : "\(entry.wordCount) words") + "</span>")
            if let mean = entry.meanConfidence {
                // Whole percents rounded down: a page flagged under a threshold never shows it.
                counts.append("<span>\(DecimalText.format(mean.rounded(.down), maximumFractionDigits: 0))% mean confidence</span>")
            }
            if entry.faceCount > 0 { counts.append("<span>" + (entry.faceCount == 1 ? "1 face" : "\(entry.faceCount) faces") + "</span>") }
        }
        var data = " data-w=\"\(entry.wordCount)\" data-f=\"\(entry.faceCount)\""
        if let mean = entry.meanConfidence { data += " data-c=\"\(DecimalText.format(mean, maximumFractionDigits: 2))\"" }
        if let folder = folders[names.folder(of: entry.source)] { data += " data-d=\"\(folder)\"" }
        let classes = "card \(entry.status.rawValue)" + (entry.suspect ? " suspect" : "") + (entry.lowConfidence ? " low" : "")
        // A single-page file's card links its document itself.
        let document = names.isMultiPage(entry.source) ? nil : entry.documentPath.map { Self.documentLink($0) }
        return HTML(trusted: "<li class=\"\(classes)\"\(data)>") + body
            + HTML(trusted: "<span class=\"counts\">" + counts.joined() + "</span>") + (document ?? HTML(trusted: "")) + HTML(trusted: "</li>")
    }

    /// The link to an input's searchable PDF in `documents/`.
    static func documentLink(_ path: String) -> HTML {
        HTML(trusted: " <a class=\"document\" href=\"") + HTML(escaping: PageLinks.url(ofRelativePath: path))
            + HTML(trusted: "\">searchable PDF</a>")
    }
}
