import GlossGeometry
import GlossTemplates

/// The HTML page for one scanned page: the display image under an SVG overlay of word boxes.
///
/// The overlay's `viewBox` is in page pixels, so boxes stay exact at any zoom or window size;
/// hovering a box shows its text and confidence through SVG `<title>`, with no script at all.
public struct PageView {
    public var report: PageReport
    /// The display copy of the page, relative to the HTML file; nil when there is none.
    public var imagePath: String?
    /// The batch index, relative to the HTML file.
    public var indexPath: String

    public init(report: PageReport, imagePath: String?, indexPath: String = "../index.html") {
        self.report = report
        self.imagePath = imagePath
        self.indexPath = indexPath
    }

    public func render() -> String {
        let title = "\(report.source) — page \(report.pageIndex + 1)"
        return Template(source: Templates.page).render([
            "title": HTML(escaping: title),
            "style": HTML(trusted: Templates.stylesheet),
            "index": HTML(escaping: indexPath),
            "heading": HTML(escaping: title),
            "summary": HTML(escaping: summary),
            "error": report.error.map { HTML(trusted: "<p class=\"error\">") + HTML(escaping: $0) + HTML(trusted: "</p>") }
                ?? HTML(trusted: ""),
            "overlay": overlay(),
            "text": HTML(escaping: report.text),
        ])
    }

    private var summary: String {
        let words = report.words.count
        let mean = words == 0 ? 0 : report.words.map(\.confidence).reduce(0, +) / Double(words)
        return "\(report.width) × \(report.height) px · \(words) words · mean confidence "
            + DecimalText.format(mean, maximumFractionDigits: 1) + " · \(report.faces.count) faces"
    }

    private func overlay() -> HTML {
        guard report.width > 0, report.height > 0 else { return HTML(trusted: "") }
        var parts: [HTML] = [
            HTML(trusted: "<svg class=\"page\" viewBox=\"0 0 \(report.width) \(report.height)\" role=\"img\">")
        ]
        if let imagePath {
            parts.append(HTML(trusted: "<image href=\"") + HTML(escaping: imagePath)
                + HTML(trusted: "\" x=\"0\" y=\"0\" width=\"\(report.width)\" height=\"\(report.height)\"/>"))
        }
        parts.append(HTML(trusted: "<g class=\"lines\">"))
        for line in report.lines { parts.append(rect(line.box, class: "line", title: nil)) }
        parts.append(HTML(trusted: "</g><g class=\"words\">"))
        for word in report.words {
            let confidence = DecimalText.format(word.confidence, maximumFractionDigits: 1)
            parts.append(rect(word.box, class: "word \(Self.confidenceClass(word.confidence))",
                              title: "\(word.text) (\(confidence)%)"))
        }
        parts.append(HTML(trusted: "</g><g class=\"faces\">"))
        for face in report.faces {
            parts.append(rect(face.box, class: "face", title: "face (\(DecimalText.format(face.confidence)))"))
        }
        parts.append(HTML(trusted: "</g></svg>"))
        return HTML.joined(parts)
    }

    private func rect(_ box: PixelRect, class name: String, title: String?) -> HTML {
        let shape = "<rect class=\"\(name)\" x=\"\(box.x)\" y=\"\(box.y)\" width=\"\(box.width)\" height=\"\(box.height)\""
        guard let title else { return HTML(trusted: shape + "/>") }
        return HTML(trusted: shape + "><title>") + HTML(escaping: title) + HTML(trusted: "</title></rect>")
    }

    /// Words are coloured by confidence band, so weak recognition stands out at a glance.
    static func confidenceClass(_ confidence: Double) -> String {
        confidence >= 90 ? "high" : confidence >= 70 ? "medium" : "low"
    }
}
