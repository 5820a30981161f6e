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
    /// Tesseract's languages for the page (`--lang`), shown in the info panel.
    public var languages: [String]
    /// The page's pixels per inch as its file states them; nil when unknown.
    public var resolution: Int?

    public init(report: PageReport, links: PageLinks, languages: [String] = [], resolution: Int? = nil) {
        self.report = report
        self.links = links
        self.languages = languages
        self.resolution = resolution
    }

    public init(report: PageReport, imagePath: String?, indexPath: String = "../index.html") {
        self.init(report: report, links: PageLinks(imagePath: imagePath, indexPath: indexPath))
    }

    public func render() -> String {
        let title = report.title
        return Template(source: Templates.page).render([
            "csp": HTML(escaping: ContentPolicy.meta),
            "correction": correctionData,
            "title": HTML(escaping: title),
            "assets": HTML(escaping: links.assetsPath),
            "data": HTML(escaping: links.dataPath),
            "index": HTML(escaping: links.indexPath),
            "heading": HTML(escaping: title),
            "summary": HTML(escaping: summary),
            "error": errorNote,
            "notice": suspectNotice,
            "reviewed": reviewedNote,
            "overlay": overlay(),
            "text": textPanel(),
            "faces": faceList(),
            "info": info(),
        ])
    }

    /// The page's id and version for the page view's proofreading, as `data-` attributes of
    /// the body (no inline script under the content policy); nothing when it cannot be corrected.
    private var correctionData: HTML {
        guard let correction = links.correction else { return HTML(trusted: "") }
        return HTML(trusted: " data-page=\"") + HTML(escaping: correction.page) + HTML(trusted: "\" data-version=\"")
            + HTML(escaping: correction.version) + HTML(trusted: "\"")
    }

    /// Who marked the page reviewed, and when ([corrections](corrections.md)).
    private var reviewedNote: HTML {
        guard let reviewed = report.reviewed else { return HTML(trusted: "") }
        return HTML(trusted: "<p class=\"reviewed\" id=\"reviewed\">") + HTML(escaping: "Reviewed by \(reviewed.by), \(reviewed.at)")
            + HTML(trusted: "</p>")
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

    /// A suspect page says why before its text is trusted: the triage's reasons, or for a
    /// report written before the triage, the ink without words.
    private var suspectNotice: HTML {
        guard let review = report.review, review.suspect else { return HTML(trusted: "") }
        let share = DecimalText.format(review.uncoveredInk * 100, maximumFractionDigits: 0)
        let ink = "inked areas without words (\(share)% of ink)"
        let reasons = (review.reasons ?? ["ink-without-words"]).compactMap { reason -> String? in
            switch reason {
            case "unread-lines":
                let lines = DecimalText.format((review.unreadLines ?? 0) * 100, maximumFractionDigits: 0)
                return "lines of text no reading covers (\(lines)% of the lines found)"
            case "ink-without-words": return ink
            case "readers-disagree": return "the two readers read the same lines differently"
            default: return nil
            }
        }
        let text = (reasons.isEmpty ? ink : reasons.joined(separator: "; ")) + ". Text may be missing."
        return HTML(trusted: "<p class=\"suspect\" role=\"status\"><strong>Suspect:</strong> ")
            + HTML(escaping: String(text.prefix(1).uppercased() + text.dropFirst())) + HTML(trusted: "</p>")
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
            // Exact in data-c, which the review threshold compares; rounded where it is read.
            let exact = DecimalText.format(word.confidence, maximumFractionDigits: 2)
            let focus = index == 0 ? "0" : "-1"
            parts.append(
                HTML(trusted: "<rect class=\"word \(Self.confidenceClass(word.confidence))\(word.correction == nil ? "" : " corrected")\" id=\"w\(index)\" data-i=\"\(index)\" data-c=\"\(exact)\" \(geometry(word.box)) tabindex=\"\(focus)\" aria-label=\"")
                    + HTML(escaping: "\(word.text), \(confidence)%") + HTML(trusted: "\"/>"))
        }
        parts.append(HTML(trusted: "</g><g class=\"layer faces\">"))
        for (index, face) in report.faces.enumerated() { parts.append(faceShape(face, index: index)) }
        // Regions from other analyzers share one layer, written only when there are any, so a
        // page of text and faces alone is unchanged.
        if !report.regions.isEmpty {
            parts.append(HTML(trusted: "</g><g class=\"layer regions\">"))
            for region in report.regions { parts.append(regionShape(region)) }
        }
        parts.append(HTML(trusted: "</g>"))
        parts.append(textLayer())
        parts.append(HTML(trusted: "</svg>"))
        return HTML.joined(parts)
    }

    /// Invisible text over the scan, one `<text>` per line and a `<tspan>` per word stretched
    /// to its box, so a drag over the image selects words and a copy gives them in reading
    /// order, a line to a line. Sized from the line (one size per line reads evenly) and set
    /// on its baseline when Tesseract gave one. Hidden from assistive technology: the text
    /// panel holds the same words.
    ///
    /// A page read turned (`preparation.rotation`) shows its file as it came, its lines running
    /// up, down or upside down: the text is set on the page as it was read, upright, and the
    /// layer turned onto the picture, so each word's glyphs run along its line.
    private func textLayer() -> HTML {
        guard !report.words.isEmpty else { return HTML(trusted: "") }
        let turn = PageTransform(quarterTurns: (report.preparation?.rotation ?? 0) / 90,
                                 inputSize: PixelSize(width: report.width, height: report.height))
        // A box of the page as it came, on the page as it was read.
        let upright = { (box: PixelRect) in
            PixelRect(turn.preparedRect(ofInput: NormalizedRect(box, in: turn.inputSize)), in: turn.preparedSize)
        }
        var parts: [HTML] = [HTML(trusted: "<g class=\"layer text\" aria-hidden=\"true\"\(Self.drawing(turn))>")]
        var line = -1
        for (index, word) in report.words.enumerated() {
            let lineBox = report.lines.indices.contains(word.line) ? report.lines[word.line] : nil
            if word.line != line || index == 0 {
                if index > 0 { parts.append(HTML(trusted: "\n</text>")) }
                parts.append(HTML(trusted: "<text class=\"tl\">"))
                line = word.line
            } else {
                parts.append(HTML(trusted: " "))
            }
            let box = upright(word.box), lineRect = lineBox.map { upright($0.box) }
            let height = Double(lineRect?.height ?? box.height)
            let size = max(1, height * 0.8)
            let middle = Double(box.x) + Double(box.width) / 2
            let baseline = lineBox?.baseline.map { baseline in
                PageReport.PixelBaseline(from: turn.preparedPixel(ofInput: baseline.from), to: turn.preparedPixel(ofInput: baseline.to))
                    .y(atX: middle)
            } ?? (Double(lineRect?.maxY ?? box.maxY) - height * 0.2)
            parts.append(HTML(trusted: "<tspan class=\"tw\" data-i=\"\(index)\" x=\"\(box.x)\" y=\"\(number(baseline))\" font-size=\"\(number(size))\" textLength=\"\(max(1, box.width))\" lengthAdjust=\"spacingAndGlyphs\">")
                + HTML(escaping: word.text) + HTML(trusted: "</tspan>"))
        }
        parts.append(HTML(trusted: "\n</text></g>"))
        return HTML.joined(parts, separator: "")
    }

    /// The SVG `transform` attribute that draws the upright page onto the page as it came:
    /// the affine map through three points. Nothing for a page read as it came.
    static func drawing(_ turn: PageTransform) -> String {
        guard turn.quarterTurns != 0 else { return "" }
        let origin = turn.inputPixel(ofPrepared: PixelPoint(x: 0, y: 0))
        let right = turn.inputPixel(ofPrepared: PixelPoint(x: 1, y: 0)), down = turn.inputPixel(ofPrepared: PixelPoint(x: 0, y: 1))
        let values = [right.x - origin.x, right.y - origin.y, down.x - origin.x, down.y - origin.y, origin.x, origin.y]
        return " transform=\"matrix(" + values.map { DecimalText.format($0, maximumFractionDigits: 3) }.joined(separator: " ") + ")\""
    }

    private func faceShape(_ face: FaceReport, index: Int) -> HTML {
        let label = "Face \(index + 1), confidence \(Self.percent(face.confidence))%"
        var shape = "<g class=\"face\" id=\"f\(index)\" data-f=\"\(index)\" data-c=\"\(Self.percent(face.confidence))\" tabindex=\"0\" aria-label=\"\(HTML(escaping: label))\">"
            + rect(face.box, class: "face-box").rendered
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
                parts.append(HTML(trusted: "<span class=\"ln\" dir=\"auto\">"))
                line = word.line
            } else {
                parts.append(HTML(trusted: " "))
            }
            parts.append(HTML(trusted: "<span class=\"w\(word.correction == nil ? "" : " corrected")\" data-i=\"\(index)\">") + HTML(escaping: word.text) + HTML(trusted: "</span>"))
        }
        parts.append(HTML(trusted: "</span></p>"))
        return HTML.joined(parts, separator: "")
    }

    /// A face's confidence (0...1) in percent, as the words' confidences are written.
    static func percent(_ confidence: Double) -> String { DecimalText.format(confidence * 100, maximumFractionDigits: 1) }

    /// The faces as a list: a crop of each drawn from the display image (an SVG whose view box
    /// is the face's box, so no file is made), its confidence and its landmarks.
    private func faceList() -> HTML {
        guard !report.faces.isEmpty else { return HTML(trusted: "<p class=\"empty\">No faces were found.</p>") }
        var items: [HTML] = []
        for (index, face) in report.faces.enumerated() {
            let confidence = Self.percent(face.confidence)
            let landmarks = Self.landmarkSummary(face)
            var item = "<li class=\"face-item\" data-f=\"\(index)\" data-c=\"\(confidence)\">"
                + "<button type=\"button\" class=\"face-button\" data-f=\"\(index)\" aria-label=\""
                + HTML(escaping: "Face \(index + 1), confidence \(confidence)%, \(landmarks)").rendered + "\">"
            if let imagePath = links.imagePath, face.box.width > 0, face.box.height > 0 {
                let box = face.box
                item += "<svg class=\"crop\" viewBox=\"\(box.x) \(box.y) \(box.width) \(box.height)\" aria-hidden=\"true\">"
                    + "<image href=\"" + HTML(escaping: imagePath).rendered
                    + "\" x=\"0\" y=\"0\" width=\"\(report.width)\" height=\"\(report.height)\" preserveAspectRatio=\"none\"/>"
                for landmark in [face.leftEye, face.rightEye, face.nose, face.mouth, face.mouthLeft, face.mouthRight] {
                    guard let landmark else { continue }
                    item += "<circle class=\"landmark\" cx=\"\(number(landmark.x))\" cy=\"\(number(landmark.y))\" r=\"\(number(max(1.5, Double(box.width) * 0.03)))\"/>"
                }
                item += "</svg>"
            }
            item += "<span class=\"face-name\">Face \(index + 1)</span><span class=\"face-c\">\(confidence)%</span>"
                + "<span class=\"face-marks\">" + HTML(escaping: landmarks).rendered + "</span></button></li>"
            items.append(HTML(trusted: item))
        }
        return HTML(trusted: "<ul class=\"face-list\" id=\"face-list\">") + HTML.joined(items, separator: "") + HTML(trusted: "</ul>")
    }

    /// Which landmarks a face has, and how they were placed: "eyes, nose, mouth (detected)".
    static func landmarkSummary(_ face: FaceReport) -> String {
        var names: [String] = []
        if face.leftEye != nil || face.rightEye != nil { names.append(face.leftEye != nil && face.rightEye != nil ? "eyes" : "one eye") }
        if face.nose != nil { names.append("nose") }
        if face.mouth != nil || face.mouthLeft != nil || face.mouthRight != nil { names.append("mouth") }
        guard !names.isEmpty else { return "no landmarks" }
        let all = [face.leftEye, face.rightEye, face.nose, face.mouth, face.mouthLeft, face.mouthRight].compactMap { $0 }
        let sources = Set(all.map(\.source))
        let how = sources == ["detected"] ? "detected" : sources.contains("detected") ? "detected and estimated" : "estimated"
        return names.joined(separator: ", ") + " (" + how + ")"
    }

    /// What the page is and what came of it: the source, size, resolution, language, the
    /// files to take, and the timings folded away (they are for developers).
    private func info() -> HTML {
        var rows: [HTML] = []
        func row(_ name: String, _ value: HTML) {
            rows.append(HTML(trusted: "<div><dt>") + HTML(escaping: name) + HTML(trusted: "</dt><dd>") + value + HTML(trusted: "</dd></div>"))
        }
        let sourceName = HTML(escaping: report.source)
        if let original = links.original {
            row("Source", HTML(trusted: "<a class=\"original\" href=\"") + HTML(escaping: original) + HTML(trusted: "\">") + sourceName
                + HTML(trusted: "</a>"))
        } else {
            row("Source", sourceName)
        }
        row("Page", HTML(escaping: String(report.pageIndex + 1)))
        if report.width > 0 { row("Size", HTML(escaping: "\(report.width) × \(report.height) px")) }
        if let resolution { row("Resolution", HTML(escaping: "\(resolution) ppi")) }
        if !languages.isEmpty { row("Language", HTML(escaping: languages.joined(separator: "+"))) }
        row("Words", HTML(escaping: String(report.words.count)))
        if let mean = report.meanConfidence {
            row("Mean confidence", HTML(escaping: DecimalText.format(mean, maximumFractionDigits: 1) + "%"))
        }
        let downloads = Self.downloadOrder.compactMap { format, name in
            links.outputs[format].map { path in
                HTML(trusted: "<li><a href=\"") + HTML(escaping: path) + HTML(trusted: "\" data-format=\"\(format)\" download>")
                    + HTML(escaping: name) + HTML(trusted: "</a></li>")
            }
        }
        if !downloads.isEmpty {
            row("Outputs", HTML(trusted: "<ul class=\"downloads\">") + HTML.joined(downloads, separator: "") + HTML(trusted: "</ul>"))
        }
        return HTML(trusted: "<dl class=\"info\">") + HTML.joined(rows, separator: "") + HTML(trusted: "</dl>")
            + preparation()
            + HTML(trusted: "<details class=\"timing-details\"><summary>Timings</summary>") + timings() + HTML(trusted: "</details>")
    }

    /// What was done to the page before it was read, a step a line with its time; nothing for
    /// a page without the record (read with `--prepare none`, or from an older report).
    private func preparation() -> HTML {
        guard let record = report.preparation else { return HTML(trusted: "") }
        let summary = PreparationSummary(record)
        var parts: [HTML] = [
            HTML(trusted: "<section class=\"preparation\" id=\"preparation\" aria-labelledby=\"preparation-heading\"><h3 id=\"preparation-heading\">Preparation</h3>")
        ]
        if summary.readAsItCame {
            parts.append(HTML(trusted: "<p class=\"as-it-came\">") + HTML(escaping: "Read as it came: nothing was changed.") + HTML(trusted: "</p>"))
        }
        var steps = summary.steps.map { step in
            HTML(trusted: "<li data-step=\"") + HTML(escaping: step.name) + HTML(trusted: "\" class=\"\(step.changed ? "changed" : "kept")\"><span class=\"step\">")
                + HTML(escaping: step.text) + HTML(trusted: "</span><span class=\"ms\">")
                + HTML(escaping: step.milliseconds.map { DecimalText.format($0, maximumFractionDigits: 1) + " ms" } ?? "")
                + HTML(trusted: "</span></li>")
        }
        if summary.steps.count > 1 {
            steps.append(HTML(trusted: "<li class=\"total\"><span class=\"step\">Preparation in all</span><span class=\"ms\">")
                + HTML(escaping: DecimalText.format(summary.totalMilliseconds, maximumFractionDigits: 1) + " ms") + HTML(trusted: "</span></li>"))
        }
        if !steps.isEmpty {
            parts.append(HTML(trusted: "<ol class=\"preparation-steps\">") + HTML.joined(steps, separator: "") + HTML(trusted: "</ol>"))
        }
        parts.append(HTML(trusted: "</section>"))
        return HTML.joined(parts, separator: "")
    }

    /// The outputs offered for download, in this order, with the names a person knows them by.
    /// The input's whole document (`documents/`) comes last.
    static let downloadOrder: [(String, String)] = OutputFormat.allCases.filter { $0 != .html }.map { ($0.rawValue, $0.displayName) }
        + [("document", "Document (searchable PDF)"), ("documentText", "Document text")]

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
/// report's own files (no inline code or handlers, nothing remote), requests only to the
/// report's own origin (the page view's corrections under `gloss serve`), nothing else at all.
enum ContentPolicy {
    static let meta = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'"
}
