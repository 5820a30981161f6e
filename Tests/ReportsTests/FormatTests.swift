import Foundation
import GlossContract
import GlossGeometry
import GlossReports
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every format of the sample page against its golden file, then each parsed back.
struct FormatTests {
    static func rendered(_ format: OutputFormat, report: PageReport = SamplePage.report()) throws -> [UInt8] {
        let files = try renderPage(report, formats: [format], context: SamplePage.context,
                                   links: PageLinks(imagePath: "sample.png"))
        try #require(files.count == 1)
        #expect(files[0].format == format)
        return files[0].bytes
    }

    @Test(arguments: OutputFormat.allCases.filter(\.isText))
    func matchesItsGoldenFile(format: OutputFormat) throws {
        try SamplePage.expectGolden(try Self.rendered(format), "sample." + format.fileExtension)
    }

    /// A page JSON damaged or edited by hand (read back by a resumed run or a correction):
    /// confidences and edges past Int64 (JSON holds no NaN) render in every format without trapping.
    @Test func aDamagedRecordRendersInEveryFormat() throws {
        let far = NormalizedRect(x: 0.1, y: -1e300, width: .infinity, height: 1e30)
        let line = TextLine(box: far, baseline: Baseline(start: NormalizedPoint(x: -1e25, y: 1e300), end: NormalizedPoint(x: 1e25, y: 0.5)),
                            words: [RecognizedWord(text: "huge", box: far, confidence: 1e19),
                                    RecognizedWord(text: "low", box: SamplePage.box(10, 10, 20, 10), confidence: -1e19)])
        let text = RecognizedText(blocks: [TextBlock(box: far, paragraphs: [TextParagraph(box: far, lines: [line])])])
        let report = PageReport(source: "damaged.png", pageIndex: 0, size: SamplePage.size, text: text, faces: [],
                                timings: StageTimings())
        for format in OutputFormat.allCases where format.isText {
            #expect(try !Self.rendered(format, report: report).isEmpty, "\(format)")
        }
        let hocr = String(decoding: try Self.rendered(.hocr, report: report), as: UTF8.self)
        #expect(hocr.contains("x_wconf 100\">huge") && hocr.contains("x_wconf 0\">low"), "\(hocr)")
    }

    @Test func combinedDocumentsMatchTheirGoldenFiles() throws {
        let pages = [SamplePage.report(source: "scans/book.tif", pageIndex: 0),
                     SamplePage.report(source: "scans/book.tif", pageIndex: 1)]
        let files = renderCombined(pages, formats: Set(OutputFormat.allCases), context: SamplePage.context)
        #expect(files.map(\.format) == [.hocr, .alto])
        for file in files { try SamplePage.expectGolden(file.bytes, "combined." + file.fileExtension) }
        #expect(renderCombined([], formats: [.hocr], context: SamplePage.context).isEmpty)
    }

    @Test func renderPageKeepsTheOrderOfAllCasesAndOnlyWhatWasAsked() throws {
        let files = try renderPage(SamplePage.report(), formats: [.txt, .hocr, .json], context: SamplePage.context)
        #expect(files.map(\.format) == [.json, .hocr, .txt])
        #expect(files.map(\.fileExtension) == ["json", "hocr", "txt"])
        #expect(OutputFormat.alto.fileExtension == "alto.xml")
    }

    @Test func formatListsAreParsed() throws {
        #expect(try OutputFormat.parseList("html, JSON,hocr") == [.html, .json, .hocr])
        #expect(try OutputFormat.parseList("json,pdf") == [.json, .pdf])
        #expect(throws: OutputFormat.UnknownFormat(name: "docx")) { try OutputFormat.parseList("html,docx") }
        #expect(throws: OutputFormat.UnknownFormat(name: "")) { try OutputFormat.parseList("") }
    }

    // MARK: hOCR

    @Test func hocrHasTheRequiredClassesAndProperties() throws {
        let hocr = try HOCRReader(Self.rendered(.hocr))
        #expect(hocr.metas["ocr-system"] == "Gloss 0.1.0")
        #expect(hocr.metas["ocr-langs"] == "eng deu")
        let capabilities = Set((hocr.metas["ocr-capabilities"] ?? "").split(separator: " ").map(String.init))
        #expect(capabilities.isSuperset(of: ["ocr_page", "ocr_carea", "ocr_par", "ocr_line", "ocrx_word", "ocrp_wconf", "ocr_photo"]))

        let page = try #require(hocr.elements(ofClass: "ocr_page").first)
        #expect(page.properties["bbox"] == "0 0 600 400")
        #expect(page.properties["image"] == "\"scans/<img src=x onerror=alert(1)>.png\"")
        #expect(hocr.elements(ofClass: "ocr_carea").count == 2)
        #expect(hocr.elements(ofClass: "ocr_par").count == 3)
        let lines = hocr.elements(ofClass: "ocr_line")
        #expect(lines.count == 4)
        // The first line's box is 40,30 to 184,50; its baseline runs from y 46 to 47.
        #expect(lines[0].properties["bbox"] == "40 30 184 50")
        #expect(lines[0].properties["baseline"] == "0.007 -4")
        let words = hocr.elements(ofClass: "ocrx_word")
        #expect(words.map(\.text) == ["Gloss", "&", "Co.", "</script><script>alert(1)</script>", "Grüße", "\"quoted\"", "Total:", "42"])
        #expect(words[0].properties["bbox"] == "40 30 110 50")
        #expect(words.map { $0.properties["x_wconf"] } == ["97", "91", "88", "42", "97", "76", "93", "100"])
        #expect(Set(words.map(\.id)).count == words.count)
        #expect(hocr.elements(ofClass: "ocr_photo").map { $0.properties["bbox"] } == ["420 200 540 340"])
    }

    /// A page read turned: its lines carry the turn (`textangle`) in place of a baseline, as
    /// Tesseract writes a block turned; a baseline in the file's pixels would run up the page.
    @Test func hocrLinesOfAPageReadTurnedCarryTheTurn() throws {
        for rotation in [90, 180, 270] {
            let file = try #require(renderPage(PageViewTests.turned(rotation), formats: [.hocr], context: SamplePage.context).first)
            let lines = try HOCRReader(file.bytes).elements(ofClass: "ocr_line")
            #expect(lines.count == 4 && lines.allSatisfy { $0.properties["textangle"] == "\(rotation)" && $0.properties["baseline"] == nil },
                    "\(lines.map(\.properties))")
        }
    }

    @Test func combinedHOCRNumbersItsPagesAndKeepsIdsUnique() throws {
        let pages = [SamplePage.report(pageIndex: 0), SamplePage.report(pageIndex: 1)]
        let file = try #require(renderCombined(pages, formats: [.hocr], context: SamplePage.context).first)
        let hocr = try HOCRReader(file.bytes)
        #expect(hocr.elements(ofClass: "ocr_page").map { $0.properties["ppageno"] } == ["0", "1"])
        #expect(hocr.metas["ocr-number-of-pages"] == "2")
        let ids = hocr.elements.map(\.id).filter { !$0.isEmpty }
        #expect(Set(ids).count == ids.count)
        #expect(hocr.elements(ofClass: "ocrx_word").count == 16)
    }

    // MARK: ALTO

    @Test func altoHasTheNamespaceUnitsAndAttributesInRange() throws {
        let alto = try ALTOReader(Self.rendered(.alto))
        #expect(alto.rootNamespace == "http://www.loc.gov/standards/alto/ns-v4#")
        #expect(alto.texts["MeasurementUnit"] == ["pixel"])
        #expect(alto.texts["softwareName"] == ["Gloss"])
        #expect(alto.texts["softwareVersion"] == ["0.1.0"])
        #expect(alto.texts["fileName"] == ["scans/<img src=x onerror=alert(1)>.png"])
        #expect(alto.order.starts(with: ["alto", "Description", "MeasurementUnit", "sourceImageInformation", "fileName", "Processing"]))

        let page = try #require(alto.elements("Page").first)
        let width = try #require(Double(page["WIDTH"] ?? "")), height = try #require(Double(page["HEIGHT"] ?? ""))
        #expect((width, height) == (600, 400))
        #expect(alto.elements("TextBlock").count == 3)
        #expect(alto.elements("TextLine").count == 4)
        let strings = alto.elements("String")
        #expect(strings.map { $0["CONTENT"] } == ["Gloss", "&", "Co.", "</script><script>alert(1)</script>", "Grüße", "\"quoted\"", "Total:", "42"])
        #expect(strings.map { $0["WC"] } == ["0.965", "0.9125", "0.88", "0.4212", "0.97", "0.755", "0.93", "0.999"])
        for element in alto.elements("String") + alto.elements("TextLine") + alto.elements("TextBlock") + alto.elements("Illustration") {
            let x = try #require(Double(element["HPOS"] ?? "")), y = try #require(Double(element["VPOS"] ?? ""))
            let w = try #require(Double(element["WIDTH"] ?? "")), h = try #require(Double(element["HEIGHT"] ?? ""))
            #expect(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height)
            #expect(element["ID"]?.isEmpty == false)
        }
        for string in strings {
            let confidence = try #require(Double(string["WC"] ?? ""))
            #expect((0...1).contains(confidence))
        }
        // SP only between the words of a line: 2 + 0 + 1 + 1.
        #expect(alto.elements("SP").count == 4)
        #expect(alto.elements("Illustration").map { $0["TYPE"] } == ["face"])
        let ids = alto.elements.compactMap { $0.attributes["ID"] }
        #expect(Set(ids).count == ids.count)
    }

    /// A page read turned: its blocks carry the turn, counter-clockwise, and its lines no
    /// baseline height (in the file's pixels it would be the line's length).
    @Test func altoBlocksOfAPageReadTurnedCarryTheTurn() throws {
        let alto = try ALTOReader(Self.rendered(.alto, report: PageViewTests.turned(270)))
        #expect(alto.elements("TextBlock").count == 3 && alto.elements("TextBlock").allSatisfy { $0["ROTATION"] == "270" })
        #expect(alto.elements("TextLine").allSatisfy { $0["BASELINE"] == nil })
        #expect(try ALTOReader(Self.rendered(.alto)).elements("TextBlock").allSatisfy { $0["ROTATION"] == nil })
    }

    @Test func altoIsWellFormedForXmllint() throws {
        let tool = "/usr/bin/xmllint"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "xmllint is not installed (libxml2-utils)")
        let path = NSTemporaryDirectory() + "gloss-alto-\(UUID().uuidString).xml"
        try Data(try Self.rendered(.alto)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--noout", "--nonet", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    // MARK: TSV, text

    @Test func tsvRowsFollowTesseractsNumbering() throws {
        let rows = String(decoding: try Self.rendered(.tsv), as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows[0] == ["level", "page_num", "block_num", "par_num", "line_num", "word_num", "left", "top",
                            "width", "height", "conf", "text"])
        #expect(rows.allSatisfy { $0.count == 12 })
        #expect(rows[1] == ["1", "1", "0", "0", "0", "0", "0", "0", "600", "400", "-1", ""])
        let numbering = rows.dropFirst().map { $0[0...5].joined(separator: " ") }
        #expect(numbering == [
            "1 1 0 0 0 0",
            "2 1 1 0 0 0", "3 1 1 1 0 0",
            "4 1 1 1 1 0", "5 1 1 1 1 1", "5 1 1 1 1 2", "5 1 1 1 1 3",
            "4 1 1 1 2 0", "5 1 1 1 2 1",
            "3 1 1 2 0 0", "4 1 1 2 1 0", "5 1 1 2 1 1", "5 1 1 2 1 2",
            "2 1 2 0 0 0", "3 1 2 1 0 0", "4 1 2 1 1 0", "5 1 2 1 1 1", "5 1 2 1 1 2",
        ])
    }

    @Test func aFailedPageStillRendersEveryFormat() throws {
        let failed = PageReport(source: "bad.png", pageIndex: 0, status: .failed, error: "bad.png: file is empty")
        let files = try renderPage(failed, formats: Set(OutputFormat.allCases), context: SamplePage.context)
        #expect(files.count == OutputFormat.allCases.filter(\.isText).count)
        let tsv = try #require(files.first { $0.format == .tsv })
        #expect(String(decoding: tsv.bytes, as: UTF8.self).split(separator: "\n").count == 2)
        #expect(try #require(files.first { $0.format == .txt }).bytes.isEmpty)
        _ = try HOCRReader(try #require(files.first { $0.format == .hocr }).bytes)
        _ = try ALTOReader(try #require(files.first { $0.format == .alto }).bytes)
    }

    /// JSON written before the hierarchy existed still reads, and still renders as one block.
    @Test func reportsWithoutTheHierarchyStillRender() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.encode(SamplePage.report()))) as? [String: Any])
        object["blocks"] = nil
        object["paragraphs"] = nil
        object["words"] = (object["words"] as? [[String: Any]])?.map { var word = $0; word["line"] = nil; return word }
        object["lines"] = (object["lines"] as? [[String: Any]])?.map { var line = $0; line["paragraph"] = nil; return line }
        let old = try JSONOutput.decode(PageReport.self, from: Array(try JSONSerialization.data(withJSONObject: object)))
        #expect(old.blocks.isEmpty && old.words.count == 8)
        let hocr = try HOCRReader(try #require(try renderPage(old, formats: [.hocr], context: SamplePage.context).first).bytes)
        #expect(hocr.elements(ofClass: "ocr_carea").count == 1)
        #expect(hocr.elements(ofClass: "ocrx_word").count == 8)
    }
}

// MARK: readers used by the tests

/// The hOCR elements with their classes, ids, `title` properties and text.
final class HOCRReader: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var classes: [String]
        var id: String
        var properties: [String: String]
        var text: String
    }

    private(set) var elements: [Element] = []
    private(set) var metas: [String: String] = [:]
    private var open: [Int] = []

    init(_ bytes: [UInt8]) throws {
        super.init()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func elements(ofClass name: String) -> [Element] { elements.filter { $0.classes.contains(name) } }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]) {
        if name == "meta", let key = attributes["name"] { metas[key] = attributes["content"] }
        var properties: [String: String] = [:]
        for property in (attributes["title"] ?? "").split(separator: ";") {
            let trimmed = property.trimmingCharacters(in: .whitespaces)
            guard let space = trimmed.firstIndex(of: " ") else { continue }
            properties[String(trimmed[..<space])] = String(trimmed[trimmed.index(after: space)...])
        }
        elements.append(Element(name: name, classes: (attributes["class"] ?? "").split(separator: " ").map(String.init),
                                id: attributes["id"] ?? "", properties: properties, text: ""))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let last = open.last { elements[last].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }
}

/// ALTO's elements in document order, with their attributes and the text of leaf elements.
final class ALTOReader: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        subscript(key: String) -> String? { attributes[key] }
    }

    private(set) var elements: [Element] = []
    private(set) var texts: [String: [String]] = [:]
    private(set) var rootNamespace: String?
    private var characters = ""

    var order: [String] { elements.map(\.name) }

    init(_ bytes: [UInt8]) throws {
        super.init()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func elements(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]) {
        if elements.isEmpty { rootNamespace = namespaceURI }
        elements.append(Element(name: name, attributes: attributes))
        characters = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { characters += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let text = characters.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { texts[name, default: []].append(text) }
        characters = ""
    }
}
