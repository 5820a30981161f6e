import GlossGeometry
import GlossTemplates

/// The batch index: every page with its status, counts and a link, failures with their reason.
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

        public init(source: String, pageIndex: Int, status: PageStatus, error: String?, wordCount: Int,
                    meanConfidence: Double?, faceCount: Int, htmlPath: String?) {
            self.source = source
            self.pageIndex = pageIndex
            self.status = status
            self.error = error
            self.wordCount = wordCount
            self.meanConfidence = meanConfidence
            self.faceCount = faceCount
            self.htmlPath = htmlPath
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public func render() -> String {
        let failed = entries.filter { $0.status != .ok }.count
        let rows = entries.map { entry -> HTML in
            let name = HTML(escaping: "\(entry.source) · page \(entry.pageIndex + 1)")
            let link = entry.htmlPath.map {
                HTML(trusted: "<a href=\"") + HTML(escaping: $0) + HTML(trusted: "\">") + name + HTML(trusted: "</a>")
            } ?? name
            let confidence = entry.meanConfidence.map { DecimalText.format($0, maximumFractionDigits: 1) } ?? "–"
            return HTML(trusted: "<tr class=\"\(entry.status.rawValue)\"><td>") + link
                + HTML(trusted: "</td><td>\(entry.status.rawValue)</td><td>\(entry.wordCount)</td><td>")
                + HTML(escaping: confidence)
                + HTML(trusted: "</td><td>\(entry.faceCount)</td><td>") + HTML(escaping: entry.error ?? "")
                + HTML(trusted: "</td></tr>")
        }
        return Template(source: Templates.index).render([
            "style": HTML(trusted: Templates.stylesheet),
            "summary": HTML(escaping: "\(entries.count) pages · \(failed) not read"),
            "rows": HTML.joined(rows),
        ])
    }
}
