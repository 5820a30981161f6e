import GlossContract
import GlossGeometry

/// ALTO 4 XML, the layout format of library digitisation: pixels as the unit, one `TextBlock`
/// per paragraph, `String` per word with `WC` (confidence 0...1), `SP` between words, faces
/// as `Illustration`.
///
/// ALTO has no paragraph level inside a block, and converters commonly map a paragraph to a
/// `TextBlock`; the block structure stays in hOCR and TSV.
struct ALTODocument {
    static let namespace = "http://www.loc.gov/standards/alto/ns-v4#"

    var pages: [PageReport]
    var context: ReportContext
    var sourceImage: String

    func render() -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <alto xmlns="\(Self.namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="\(Self.namespace) http://www.loc.gov/alto/v4/alto-4-2.xsd">
            <Description>
            <MeasurementUnit>pixel</MeasurementUnit>
            <sourceImageInformation>
            <fileName>\(escape(sourceImage))</fileName>
            </sourceImageInformation>
            <Processing ID="processing_1">
            <processingCategory>contentGeneration</processingCategory>
            <processingStepSettings>languages: \(escape(context.languages.joined(separator: "+")))</processingStepSettings>
            <processingSoftware>
            <softwareName>\(escape(context.softwareName))</softwareName>
            <softwareVersion>\(escape(context.softwareVersion))</softwareVersion>
            </processingSoftware>
            </Processing>
            </Description>
            <Layout>

            """
        for (number, page) in zip(1..., pages) { render(page, number: number, into: &out) }
        out += "</Layout>\n</alto>\n"
        return out
    }

    private func render(_ page: PageReport, number: Int, into out: inout String) {
        let whole = PixelRect(x: 0, y: 0, width: page.width, height: page.height)
        out += "<Page ID=\"page_\(number)\" PHYSICAL_IMG_NR=\"\(page.pageIndex + 1)\" WIDTH=\"\(page.width)\" HEIGHT=\"\(page.height)\" PROCESSING=\"processing_1\">\n"
        out += "<PrintSpace \(position(whole))>\n"
        var counts = (block: 0, line: 0, word: 0)
        // A page read turned: its text runs up, down or upside down in the file. The blocks say
        // by how much (`ROTATION`, counter-clockwise), and its lines have no baseline height.
        let rotation = page.preparation?.rotation ?? 0
        let turned = rotation == 0 ? "" : " ROTATION=\"\(rotation)\""
        for paragraph in PageLayout(page).blocks.flatMap(\.paragraphs) {
            counts.block += 1
            out += "<TextBlock ID=\"block_\(number)_\(counts.block)\" \(position(paragraph.box))\(turned)>\n"
            for line in paragraph.lines {
                counts.line += 1
                let baseline = rotation != 0 ? ""
                    : line.line.baseline.map { " BASELINE=\"" + Self.baselineHeight($0, of: line.line.box) + "\"" } ?? ""
                out += "<TextLine ID=\"line_\(number)_\(counts.line)\" \(position(line.line.box))\(baseline)>\n"
                for (index, word) in line.words.enumerated() {
                    if index > 0 { out += space(between: line.words[index - 1].box, and: word.box) }
                    counts.word += 1
                    let confidence = DecimalText.format(min(max(word.confidence / 100, 0), 1), maximumFractionDigits: 4)
                    out += "<String ID=\"word_\(number)_\(counts.word)\" \(position(word.box)) WC=\"\(confidence)\" CONTENT=\"\(escape(word.text))\"/>\n"
                }
                out += "</TextLine>\n"
            }
            out += "</TextBlock>\n"
        }
        for (index, face) in zip(1..., page.faces) {
            out += "<Illustration ID=\"face_\(number)_\(index)\" TYPE=\"face\" \(position(face.box))/>\n"
        }
        out += "</PrintSpace>\n</Page>\n"
    }

    private func position(_ box: PixelRect) -> String {
        "HPOS=\"\(box.x)\" VPOS=\"\(box.y)\" WIDTH=\"\(box.width)\" HEIGHT=\"\(box.height)\""
    }

    /// The gap between two words on a line; zero wide when they touch or overlap.
    private func space(between left: PixelRect, and right: PixelRect) -> String {
        "<SP HPOS=\"\(left.maxX)\" VPOS=\"\(min(left.y, right.y))\" WIDTH=\"\(max(0, right.x - left.maxX))\"/>\n"
    }

    /// ALTO 4.0/4.1 read `BASELINE` as one vertical position (4.2 also accepts points); the
    /// baseline's height at the middle of the line is valid in every 4.x.
    static func baselineHeight(_ baseline: PageReport.PixelBaseline, of box: PixelRect) -> String {
        DecimalText.format(baseline.y(atX: Double(box.x) + Double(box.width) / 2), maximumFractionDigits: 1)
    }

    private func escape(_ text: String) -> String { HTML(escaping: text).rendered }
}
