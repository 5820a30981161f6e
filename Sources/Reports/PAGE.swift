import Foundation
import GlossContract
import GlossGeometry

/// PAGE XML 2019 (PRImA's `pagecontent` schema of 2019-07-15), the format Transkribus,
/// eScriptorium and OCR-D read and write: one document a page.
///
/// A paragraph is a `TextRegion` (as in ALTO, where it is a `TextBlock`), holding `TextLine`s
/// with their `Baseline` when known, and `Word`s; every level has its `Coords` (a box's four
/// corners, clockwise from the top left) and a `TextEquiv` with `conf` in 0...1, a line's and a
/// region's being the mean of their words'. The regions are listed in `ReadingOrder` in the order
/// the page was read; faces are `ImageRegion`s outside it.
struct PAGEDocument {
    static let namespace = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"

    var page: PageRendering

    func render() -> String {
        let report = page.report
        let context = page.context
        // `Created` is when the page was written; `LastChange` its latest correction, if later.
        let created = context.date ?? Date(timeIntervalSince1970: 0)
        let changed = report.words.compactMap(\.correction?.date).max().map { max($0, created) } ?? created
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <PcGts xmlns="\(Self.namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="\(Self.namespace) \(Self.namespace)/pagecontent.xsd">
            <Metadata>
            <Creator>\(escape(context.softwareName + " " + context.softwareVersion))</Creator>
            <Created>\(Self.timestamp(created))</Created>
            <LastChange>\(Self.timestamp(changed))</LastChange>
            <Comments>\(escape("languages: " + context.languages.joined(separator: "+")))</Comments>
            </Metadata>
            <Page imageFilename="\(escape(page.sourceImage))" imageWidth="\(report.width)" imageHeight="\(report.height)"
            """
        if let resolution = page.resolution {
            out += " imageXResolution=\"\(resolution)\" imageYResolution=\"\(resolution)\" imageResolutionUnit=\"PPI\""
        }
        out += ">\n"
        let paragraphs = PageLayout(report).blocks.flatMap(\.paragraphs).filter { !$0.lines.isEmpty }
        if !paragraphs.isEmpty {
            out += "<ReadingOrder>\n<OrderedGroup id=\"reading_order\">\n"
            for index in paragraphs.indices {
                out += "<RegionRefIndexed index=\"\(index)\" regionRef=\"region_\(index + 1)\"/>\n"
            }
            out += "</OrderedGroup>\n</ReadingOrder>\n"
        }
        var lineCount = 0, wordCount = 0
        // A page read turned: the regions say how far they turn clockwise to stand upright
        // (`orientation`, -179.999 to 180); their baselines run along their lines as they are.
        let rotation = report.preparation?.rotation ?? 0
        let orientation = rotation == 0 ? "" : " orientation=\"\(rotation > 180 ? rotation - 360 : rotation)\""
        for (number, paragraph) in zip(1..., paragraphs) {
            out += "<TextRegion id=\"region_\(number)\" type=\"paragraph\"\(orientation)>\n\(coords(paragraph.box))"
            for line in paragraph.lines {
                lineCount += 1
                out += "<TextLine id=\"line_\(lineCount)\">\n\(coords(line.line.box))"
                if let baseline = line.line.baseline {
                    out += "<Baseline points=\"\(point(baseline.from.x, baseline.from.y)) \(point(baseline.to.x, baseline.to.y))\"/>\n"
                }
                for word in line.words {
                    wordCount += 1
                    out += "<Word id=\"word_\(wordCount)\">\n\(coords(word.box))"
                    out += textEquiv(word.text, confidence: word.confidence, comments: word.correction.map(Self.comment))
                    out += "</Word>\n"
                }
                out += textEquiv(line.words.map(\.text).joined(separator: " "),
                                 confidence: RecognizedText.mean(of: line.words.map(\.confidence)))
                out += "</TextLine>\n"
            }
            let words = paragraph.lines.flatMap(\.words)
            out += textEquiv(paragraph.lines.map { $0.words.map(\.text).joined(separator: " ") }.joined(separator: "\n"),
                             confidence: RecognizedText.mean(of: words.map(\.confidence)))
            out += "</TextRegion>\n"
        }
        for (number, face) in zip(1..., report.faces) {
            out += "<ImageRegion id=\"face_\(number)\" custom=\"type:face;\">\n\(coords(face.box))</ImageRegion>\n"
        }
        out += "</Page>\n</PcGts>\n"
        return out
    }

    /// A box as PAGE's points: its four corners, clockwise from the top left, never negative.
    private func coords(_ box: PixelRect) -> String {
        let left = max(0, box.x), top = max(0, box.y), right = max(left, box.maxX), bottom = max(top, box.maxY)
        return "<Coords points=\"\(left),\(top) \(right),\(top) \(right),\(bottom) \(left),\(bottom)\"/>\n"
    }

    /// PAGE's points are whole, non-negative pixels (a damaged record's cut to a billion).
    private func point(_ x: Double, _ y: Double) -> String {
        func whole(_ value: Double) -> Int { value.isNaN ? 0 : Int(min(max(value, 0), 1e9).rounded()) }
        return "\(whole(x)),\(whole(y))"
    }

    private func textEquiv(_ text: String, confidence: Double?, comments: String? = nil) -> String {
        let conf = confidence.map { " conf=\"" + DecimalText.format(min(max($0 / 100, 0), 1), maximumFractionDigits: 4) + "\"" } ?? ""
        let note = comments.map { " comments=\"" + escape($0) + "\"" } ?? ""
        return "<TextEquiv\(conf)\(note)>\n<Unicode>\(escape(text))</Unicode>\n</TextEquiv>\n"
    }

    /// How a corrected word says so: who corrected it and when.
    static func comment(_ correction: PageReport.Attribution) -> String {
        "corrected by \(correction.by) at \(correction.at)"
    }

    /// `xsd:dateTime` in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).format(date)
    }

    private func escape(_ text: String) -> String { HTML(escaping: text).rendered }
}

extension PAGEDocument: PageDocument {
    static func render(_ page: PageRendering) -> [UInt8] { Array(PAGEDocument(page: page).render().utf8) }
}
