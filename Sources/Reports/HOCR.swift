import GlossContract
import GlossGeometry

/// hOCR 1.2: XHTML whose `title` attributes carry boxes and confidences, as Tesseract writes it.
///
/// Pages are `ocr_page`, Tesseract's blocks `ocr_carea`, then `ocr_par`, `ocr_line` (with its
/// baseline) and `ocrx_word` (with `x_wconf`); faces are `ocr_photo`. Element ids carry the page
/// number, so pages combined into one document stay unique.
struct HOCRDocument {
    var pages: [PageReport]
    var context: ReportContext
    /// The input file, named by every page's `image` property.
    var sourceImage: String

    func render() -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
                "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
            <head>
            <title>\(escape(sourceImage))</title>
            <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
            <meta name="ocr-system" content="\(escape(context.softwareName + " " + context.softwareVersion))"/>
            <meta name="ocr-capabilities" content="ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf ocr_photo"/>
            <meta name="ocr-langs" content="\(escape(context.languages.joined(separator: " ")))"/>
            <meta name="ocr-number-of-pages" content="\(pages.count)"/>
            </head>
            <body>

            """
        for (number, page) in zip(1..., pages) { render(page, number: number, into: &out) }
        out += "</body>\n</html>\n"
        return out
    }

    private func render(_ page: PageReport, number: Int, into out: inout String) {
        let image = "image \"" + sourceImage.replacingBackslashesAndQuotes() + "\""
        out += "<div class=\"ocr_page\" id=\"page_\(number)\" title=\"\(escape(image)); \(bbox(PixelRect(x: 0, y: 0, width: page.width, height: page.height))); ppageno \(page.pageIndex)\">\n"
        let language = escape(context.languages.first ?? "")
        var counts = (block: 0, paragraph: 0, line: 0, word: 0)
        let rotation = page.preparation?.rotation ?? 0
        for block in PageLayout(page).blocks {
            counts.block += 1
            out += "<div class=\"ocr_carea\" id=\"block_\(number)_\(counts.block)\" title=\"\(bbox(block.box))\">\n"
            for paragraph in block.paragraphs {
                counts.paragraph += 1
                out += "<p class=\"ocr_par\" id=\"par_\(number)_\(counts.paragraph)\" lang=\"\(language)\" title=\"\(bbox(paragraph.box))\">\n"
                for line in paragraph.lines {
                    counts.line += 1
                    // A page read turned: its lines run up, down or upside down in the file, and
                    // carry the turn in place of a baseline, as Tesseract writes them.
                    let baseline = rotation != 0 ? "; textangle \(rotation)"
                        : line.line.baseline.map { "; " + Self.baseline($0, of: line.line.box) } ?? ""
                    out += "<span class=\"ocr_line\" id=\"line_\(number)_\(counts.line)\" title=\"\(bbox(line.line.box))\(baseline)\">"
                    for word in line.words {
                        counts.word += 1
                        // hOCR's x_wconf is a whole percentage; a damaged record's is cut to one.
                        let confidence = word.confidence.isNaN ? 0 : Int(min(max(word.confidence, 0), 100).rounded())
                        out += "\n<span class=\"ocrx_word\" id=\"word_\(number)_\(counts.word)\" title=\"\(bbox(word.box)); x_wconf \(confidence)\">"
                            + escape(word.text) + "</span>"
                    }
                    out += "\n</span>\n"
                }
                out += "</p>\n"
            }
            out += "</div>\n"
        }
        for (index, face) in zip(1..., page.faces) {
            out += "<div class=\"ocr_photo\" id=\"photo_\(number)_\(index)\" title=\"\(bbox(face.box))\"></div>\n"
        }
        out += "</div>\n"
    }

    /// hOCR's `bbox x0 y0 x1 y1`: corners, not a size.
    private func bbox(_ box: PixelRect) -> String { "bbox \(box.x) \(box.y) \(box.maxX) \(box.maxY)" }

    /// hOCR's `baseline slope offset`: the offset is the baseline's height above the line box's
    /// bottom-left corner, negative upward, as Tesseract writes it.
    static func baseline(_ baseline: PageReport.PixelBaseline, of box: PixelRect) -> String {
        "baseline " + DecimalText.format(baseline.slope, maximumFractionDigits: 3) + " "
            + DecimalText.format(baseline.y(atX: Double(box.x)) - Double(box.maxY), maximumFractionDigits: 0)
    }

    private func escape(_ text: String) -> String { HTML(escaping: text).rendered }
}

extension String {
    /// Escapes a value for a double-quoted string inside an hOCR property (`image "…"`).
    func replacingBackslashesAndQuotes() -> String {
        var out = ""
        for character in self {
            if character == "\\" || character == "\"" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
