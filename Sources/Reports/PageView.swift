import GlossContract
import GlossGeometry
import GlossTemplates

/// The HTML page for one scanned page: the display image under an SVG overlay, the page text
/// beside it with each word linked to its box.
///
/// The overlay's `viewBox` is in page pixels and the image is stretched to exactly that box,
/// so boxes stay exact at any zoom or window size. Everything interactive lives in
/// `assets/page.js`; the markup works as a plain picture without it. Previous/next links come
/// from the batch's `data/pages.js`, so a page written early needs no rewrite when the batch
/// order is known.
public struct PageView {
    public var report: PageReport
    public var links: PageLinks

    public init(report: PageReport, links: PageLinks) {
        self.report = report
        self.links = links
    }

    public init(report: PageReport, imagePath: String?, indexPath: String = "../index.html") {
        self.init(report: report, links: PageLinks(imagePath: imagePath, indexPath: indexPath))
    }

    public func render() -> String {
        let title = report.title
        return Template(source: Templates.page).render([
            "csp": HTML(escaping: ContentPolicy.meta),
            "title": HTML(escaping: title),
            "assets": HTML(escaping: links.assetsPath),
            "data": HTML(escaping: links.dataPath),
            "index": HTML(escaping: links.indexPath),
            "heading": HTML(escaping: title),
            "summary": HTML(escaping: summary),
            "error": errorNote,
            "overlay": overlay(),
            "text": textPanel(),
            "timings": timings(),
        ])
    }

    private var summary: String {
        var parts = ["\(report.width) × \(report.height) px", "\(report.words.count) words"]
        if let mean = report.meanConfidence {
            parts.append("mean confidence " + DecimalText.format(mean, maximumFractionDigits: 1))
        }
        parts.append(report.faces.count == 1 ? "1 face" : "\(report.faces.count) faces")
        return parts.joined(separator: " · ")
    }

    private var errorNote: HTML {
        guard report.status != .ok || report.error != nil else { return HTML(trusted: "") }
        return HTML(trusted: "<p class=\"error\" role=\"alert\"><strong>\(report.status.rawValue)</strong> ")
            + HTML(escaping: report.error ?? "") + HTML(trusted: "</p>")
    }

    private func overlay() -> HTML {
        guard report.width > 0, report.height > 0 else { return HTML(trusted: "<p class=\"empty\">No image.</p>") }
        let size = "width=\"\(report.width)\" height=\"\(report.height)\""
        var parts: [HTML] = [
            HTML(trusted: "<svg class=\"page\" id=\"page-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(report.width) \(report.height)\" \(size) role=\"group\">")
        ]
        if let imagePath = links.imagePath {
            // Stretched, never letterboxed: the display copy's rounding must not shift boxes.
            parts.append(HTML(trusted: "<image href=\"") + HTML(escaping: imagePath)
                + HTML(trusted: "\" x=\"0\" y=\"0\" \(size) preserveAspectRatio=\"none\"/>"))
        }
        parts.append(HTML(trusted: "<g class=\"layer blocks\">"))
        for block in report.blocks { parts.append(rect(block.box, class: "block")) }
        for paragraph in report.paragraphs { parts.append(rect(paragraph.box, class: "paragraph")) }
        parts.append(HTML(trusted: "</g><g class=\"layer lines\">"))
        for line in report.lines {
            parts.append(rect(line.box, class: "line"))
            if let baseline = line.baseline {
                parts.append(HTML(trusted: "<line class=\"baseline\" x1=\"\(number(baseline.from.x))\" y1=\"\(number(baseline.from.y))\" x2=\"\(number(baseline.to.x))\" y2=\"\(number(baseline.to.y))\"/>"))
            }
        }
        parts.append(HTML(trusted: "</g><g class=\"layer words\">"))
        for (index, word) in report.words.enumerated() {
            let confidence = DecimalText.format(word.confidence, maximumFractionDigits: 1)
            let focus = index == 0 ? "0" : "-1"
            parts.append(
                HTML(trusted: "<rect class=\"word \(Self.confidenceClass(word.confidence))\" id=\"w\(index)\" data-i=\"\(index)\" data-c=\"\(confidence)\" \(geometry(word.box)) tabindex=\"\(focus)\" aria-label=\"")
                    + HTML(escaping: "\(word.text), \(confidence)%") + HTML(trusted: "\"/>"))
        }
        parts.append(HTML(trusted: "</g><g class=\"layer faces\">"))
        for face in report.faces { parts.append(faceShape(face)) }
        // Regions from other analyzers share one layer, written only when there are any, so a
        // page of text and faces alone is unchanged.
        if !report.regions.isEmpty {
            parts.append(HTML(trusted: "</g><g class=\"layer regions\">"))
            for region in report.regions { parts.append(regionShape(region)) }
        }
        parts.append(HTML(trusted: "</g></svg>"))
        return HTML.joined(parts)
    }

    private func faceShape(_ face: FaceReport) -> HTML {
        let label = "face, confidence " + DecimalText.format(face.confidence)
        var shape = "<g class=\"face\" tabindex=\"-1\" aria-label=\"\(HTML(escaping: label))\">" + rect(face.box, class: "face-box").rendered
        let radius = number(max(2, Double(face.box.width) * 0.035))
        let landmarks = [("eye", face.leftEye), ("eye", face.rightEye), ("mouth", face.mouth), ("nose", face.nose),
                         ("mouth-corner", face.mouthLeft), ("mouth-corner", face.mouthRight)]
        for (name, landmark) in landmarks {
            guard let landmark else { continue }
            let source = landmark.source == "detected" ? "detected" : "estimated"
            shape += "<circle class=\"landmark \(name) \(source)\" cx=\"\(number(landmark.x))\" cy=\"\(number(landmark.y))\" r=\"\(radius)\"/>"
        }
        return HTML(trusted: shape + "</g>")
    }

    private func regionShape(_ region: RegionReport) -> HTML {
        var label = region.label.map { region.kind + ": " + $0 } ?? region.kind
        if let confidence = region.confidence { label += ", confidence " + DecimalText.format(confidence) }
        return HTML(trusted: "<rect class=\"region\" data-kind=\"") + HTML(escaping: region.kind)
            + HTML(trusted: "\" \(geometry(region.box)) aria-label=\"") + HTML(escaping: label) + HTML(trusted: "\"><title>")
            + HTML(escaping: label) + HTML(trusted: "</title></rect>")
    }

    /// The page text, one element per word, so selecting text and hovering words reach the boxes.
    private func textPanel() -> HTML {
        guard !report.words.isEmpty else { return HTML(trusted: "<p class=\"empty\">No text was found.</p>") }
        var parts: [HTML] = []
        var paragraph = -1, line = -1
        for (index, word) in report.words.enumerated() {
            if word.line != line {
                let nextParagraph = report.lines.indices.contains(word.line) ? report.lines[word.line].paragraph : paragraph
                if line >= 0 { parts.append(HTML(trusted: "</span>")) }
                if nextParagraph != paragraph || line < 0 {
                    if line >= 0 { parts.append(HTML(trusted: "</p>")) }
                    parts.append(HTML(trusted: "<p>"))
                    paragraph = nextParagraph
                }
                parts.append(HTML(trusted: "<span class=\"ln\">"))
                line = word.line
            } else {
                parts.append(HTML(trusted: " "))
            }
            parts.append(HTML(trusted: "<span class=\"w\" data-i=\"\(index)\">") + HTML(escaping: word.text) + HTML(trusted: "</span>"))
        }
        parts.append(HTML(trusted: "</span></p>"))
        return HTML.joined(parts, separator: "")
    }

    private func timings() -> HTML {
        let stages = report.timings.stages
        guard !stages.isEmpty else { return HTML(trusted: "<p class=\"empty\">None recorded.</p>") }
        var rows = stages.map { stage in
            HTML(trusted: "<div><dt>") + HTML(escaping: stage.name) + HTML(trusted: "</dt><dd>")
                + HTML(escaping: DecimalText.format(stage.milliseconds, maximumFractionDigits: 1) + " ms")
                + HTML(trusted: "</dd></div>")
        }
        // Text and faces run at once, so the page's wall time is where its timeline ends, not the sum.
        let total = report.timeline.map(\.end).max() ?? stages.map(\.milliseconds).reduce(0, +)
        rows.append(HTML(trusted: "<div class=\"total\"><dt>total</dt><dd>")
            + HTML(escaping: DecimalText.format(total, maximumFractionDigits: 1) + " ms") + HTML(trusted: "</dd></div>"))
        return HTML(trusted: "<dl class=\"timings\">") + HTML.joined(rows, separator: "") + HTML(trusted: "</dl>")
    }

    private func rect(_ box: PixelRect, class name: String) -> HTML {
        HTML(trusted: "<rect class=\"\(name)\" \(geometry(box))/>")
    }

    private func geometry(_ box: PixelRect) -> String {
        "x=\"\(box.x)\" y=\"\(box.y)\" width=\"\(box.width)\" height=\"\(box.height)\""
    }

    private func number(_ value: Double) -> String { DecimalText.format(value, maximumFractionDigits: 1) }

    /// Words are coloured by confidence band, so weak recognition stands out at a glance.
    static func confidenceClass(_ confidence: Double) -> String {
        confidence >= 90 ? "high" : confidence >= 70 ? "medium" : "low"
    }
}

/// The Content-Security-Policy of every report page: scripts, styles and images only from the
/// report's own files (no inline code or handlers, nothing remote), nothing else at all.
enum ContentPolicy {
    static let meta = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"
}
