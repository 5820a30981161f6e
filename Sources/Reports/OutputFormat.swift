import GlossContract
import Foundation

/// The files Gloss can write for a page, chosen with `--format`.
///
/// The one list of formats: `--format`'s names and help, the viewer's downloads, and what
/// `renderPage` and `renderCombined` write all come from it. Every `switch` over it is
/// exhaustive, so adding a format (a case here and a type that writes it) is refused by the
/// compiler until each place says what it does with it.
public enum OutputFormat: String, CaseIterable, Sendable, Codable {
    case html, json, hocr, alto, tsv, txt, page, pdf

    /// How a format's files are made.
    enum Writer {
        /// From the page's report alone, one file a page.
        case page(any PageDocument.Type)
        /// From the page's report alone, one file a page, and one document holding every page
        /// of a multi-page input file.
        case pages(any PagesDocument.Type)
        /// From the page's picture too, by `SearchablePDF`: one file an input file.
        case picture
    }

    var writer: Writer {
        switch self {
        case .html: .page(PageView.self)
        case .json: .page(PageJSON.self)
        case .hocr: .pages(HOCRDocument.self)
        case .alto: .pages(ALTODocument.self)
        case .tsv: .page(TSVDocument.self)
        case .txt: .page(PlainText.self)
        case .page: .page(PAGEDocument.self)
        case .pdf: .picture
        }
    }

    /// What the file name ends with, without the dot. ALTO gets `alto.xml` so it is told apart
    /// from other XML at a glance and still opens as XML.
    public var fileExtension: String {
        switch self {
        case .html, .json, .hocr, .tsv, .txt, .pdf: rawValue
        case .alto: "alto.xml"
        case .page: "page.xml"
        }
    }

    /// The name a person knows the format by, as the viewer offers its download.
    public var displayName: String {
        switch self {
        case .html: "HTML"
        case .json: "JSON"
        case .hocr: "hOCR"
        case .alto: "ALTO XML"
        case .tsv: "TSV"
        case .txt: "Plain text"
        case .page: "PAGE XML"
        case .pdf: "Searchable PDF"
        }
    }

    /// Formats that also have one combined document for a multi-page input file. A PDF has
    /// only that one: a multi-page input gets a single PDF of all its pages.
    public var combines: Bool {
        switch writer {
        case .page: false
        case .pages, .picture: true
        }
    }

    /// Formats made from the report alone, by `renderPage`; a PDF also needs the page's picture
    /// (`SearchablePDF`).
    public var isText: Bool {
        switch writer {
        case .page, .pages: true
        case .picture: false
        }
    }

    public static let defaults: Set<OutputFormat> = [.html, .json]

    /// Parses `--format`'s comma-separated list (`html,json,hocr`), failing on the first unknown name.
    public static func parseList(_ list: String) throws(UnknownFormat) -> Set<OutputFormat> {
        var formats: Set<OutputFormat> = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = OutputFormat(rawValue: trimmed) else { throw UnknownFormat(name: trimmed) }
            formats.insert(format)
        }
        return formats
    }

    public struct UnknownFormat: Error, Equatable, CustomStringConvertible {
        public var name: String
        public init(name: String) { self.name = name }
        public var description: String {
            "unknown format '\(name)'; choose from " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}

/// One rendered output: the pipeline names it `<page id>.<fileExtension>` and writes it atomically.
public struct RenderedFile: Sendable, Equatable {
    public var format: OutputFormat
    public var fileExtension: String
    public var bytes: [UInt8]

    public init(format: OutputFormat, bytes: [UInt8]) {
        self.format = format
        self.fileExtension = format.fileExtension
        self.bytes = bytes
    }
}

/// What made the documents; hOCR and ALTO name the software and the languages in their headers.
public struct ReportContext: Sendable, Equatable {
    public var softwareName: String
    public var softwareVersion: String
    /// Tesseract language codes, as given to `--lang`.
    public var languages: [String]
    /// What the searchable PDF keeps to (`--pdf-standard`).
    public var pdfStandard: PDFStandard
    /// When the documents are written, which PAGE XML records (`Created`); nil leaves it to the
    /// renderer's fixed stand-in (the Unix epoch), so the same report gives the same bytes.
    public var date: Date?

    public init(softwareName: String = "Gloss", softwareVersion: String, languages: [String], pdfStandard: PDFStandard = .default,
                date: Date? = nil) {
        self.softwareName = softwareName
        self.softwareVersion = softwareVersion
        self.languages = languages
        self.pdfStandard = pdfStandard
        self.date = date
    }
}

/// Where a page's HTML finds what it links to, all relative to that HTML file. The defaults
/// fit the batch layout: `DIR/pages/<id>.html`, `DIR/index.html`, `DIR/assets/`, `DIR/data/`.
public struct PageLinks: Sendable, Equatable {
    /// The display copy of the page; nil when there is none.
    public var imagePath: String?
    public var indexPath: String
    /// The folder holding `ReportAssets.files`, ending in a slash.
    public var assetsPath: String
    /// The folder holding `BatchData.files` (page order and search), ending in a slash.
    public var dataPath: String
    /// The original image as hOCR's `image` and ALTO's `fileName` name it; nil for the report's `source`.
    public var sourceImage: String?
    /// The page's other files by format name (`json`, `hocr`, `alto`, `tsv`, `txt`, `pdf`, as in
    /// the manifest's `outputs`), each a link relative to the HTML file; the viewer offers them
    /// as downloads.
    public var outputs: [String: String]
    /// A link to the input file the page came from: relative for a local file, the URL itself
    /// for a downloaded one; nil when the viewer should not offer it.
    public var original: String?
    /// The page's id in its batch and the version of its JSON as written (16 hex digits of the
    /// SHA-256 of the JSON's bytes, `Corrections.version(ofPageJSON:)`): the page view sends
    /// corrections against them. Nil when the page cannot be corrected (no JSON written).
    public var correction: Correction?

    /// A page as corrections name it: its id and the version of its JSON.
    public struct Correction: Sendable, Equatable {
        public var page: String
        public var version: String

        public init(page: String, version: String) {
            self.page = page
            self.version = version
        }
    }

    public init(imagePath: String? = nil, indexPath: String = "../index.html", assetsPath: String = "../assets/",
                dataPath: String = "../data/", sourceImage: String? = nil, outputs: [String: String] = [:],
                original: String? = nil, correction: Correction? = nil) {
        self.correction = correction
        self.imagePath = imagePath
        self.indexPath = indexPath
        self.assetsPath = assetsPath
        self.dataPath = dataPath
        self.sourceImage = sourceImage
        self.outputs = outputs
        self.original = original
    }

    /// The link from a page in `folder` to the input `source`: a URL stays as it is; a path
    /// becomes relative to `folder` (both made absolute against `workingDirectory` first), each
    /// part percent-encoded so that `#`, `?`, `%` and spaces in a file name reach the file.
    public static func link(to source: String, from folder: String, workingDirectory: String) -> String {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return source }
        func parts(_ path: String) -> [String] {
            let absolute = path.hasPrefix("/") ? path : workingDirectory + "/" + path
            var kept: [String] = []
            for part in absolute.split(separator: "/") {
                switch part {
                case ".": continue
                case "..": _ = kept.popLast()
                default: kept.append(String(part))
                }
            }
            return kept
        }
        let from = parts(folder), to = parts(source)
        var shared = 0
        while shared < min(from.count, to.count - 1) && from[shared] == to[shared] { shared += 1 }
        let steps = Array(repeating: "..", count: from.count - shared) + to[shared...].map(percentEncoded)
        return steps.joined(separator: "/")
    }

    /// A relative path as a URL: each segment percent-encoded, the slashes kept.
    public static func url(ofRelativePath path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { percentEncoded(String($0)) }.joined(separator: "/")
    }

    /// A path segment with everything but unreserved characters percent-encoded (UTF-8).
    public static func percentEncoded(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}

/// Renders one page in each of the text formats of `formats` (all but PDF), in
/// `OutputFormat.allCases` order. Pure: the same report gives the same bytes. A failed page
/// still gets every file, with no text in it, so the set of files a batch writes does not
/// depend on what could be read. `resolution`, the page's pixels per inch when known, is shown
/// by the page view.
public func renderPage(
    _ report: PageReport, formats: Set<OutputFormat>, context: ReportContext, links: PageLinks = PageLinks(),
    resolution: Int? = nil
) throws -> [RenderedFile] {
    let page = PageRendering(report: report, context: context, links: links, sourceImage: links.sourceImage ?? report.source,
                             resolution: resolution)
    return try OutputFormat.allCases.filter(formats.contains).compactMap { format in
        let bytes: [UInt8]
        switch format.writer {
        case .page(let document): bytes = try document.render(page)
        case .pages(let document): bytes = try document.render(page)
        case .picture: return nil
        }
        return RenderedFile(format: format, bytes: bytes)
    }
}

/// One hOCR and/or ALTO document holding every page of one input file, in page order. Other
/// formats in `formats` are ignored: they have no multi-page form, or (PDF) are written by
/// `SearchablePDF`. `sourceImage` is the input file as the documents should name it; nil for
/// the first report's `source`.
public func renderCombined(
    _ reports: [PageReport], formats: Set<OutputFormat>, context: ReportContext, sourceImage: String? = nil
) -> [RenderedFile] {
    guard let first = reports.first else { return [] }
    let source = sourceImage ?? first.source
    return OutputFormat.allCases.filter(formats.contains).compactMap { format in
        switch format.writer {
        case .pages(let document):
            RenderedFile(format: format, bytes: document.render(pages: reports, context: context, sourceImage: source))
        case .page, .picture: nil
        }
    }
}

/// What a page's file is made from: its report, and where it sits among the batch's files.
struct PageRendering {
    var report: PageReport
    var context: ReportContext
    var links: PageLinks
    /// The input file, as hOCR's `image` and ALTO's `fileName` name it.
    var sourceImage: String
    /// The page's pixels per inch when known, which the page view shows.
    var resolution: Int?
}

/// A format written for each page from its report alone (`OutputFormat.Writer.page`).
protocol PageDocument {
    static func render(_ page: PageRendering) throws -> [UInt8]
}

/// A format that also holds every page of a multi-page input in one document
/// (`OutputFormat.Writer.pages`); a page's own file is that document with one page.
protocol PagesDocument: PageDocument {
    static func render(pages: [PageReport], context: ReportContext, sourceImage: String) -> [UInt8]
}

extension PagesDocument {
    static func render(_ page: PageRendering) -> [UInt8] {
        render(pages: [page.report], context: page.context, sourceImage: page.sourceImage)
    }
}

extension PageView: PageDocument {
    static func render(_ page: PageRendering) -> [UInt8] {
        Array(PageView(report: page.report, links: page.links, languages: page.context.languages, resolution: page.resolution)
            .render().utf8)
    }
}

/// The page JSON (`--format json`).
enum PageJSON: PageDocument {
    static func render(_ page: PageRendering) throws -> [UInt8] { try JSONOutput.encode(page.report) }
}

/// The page's text alone, ending in a newline unless there is none (`--format txt`).
enum PlainText: PageDocument {
    static func render(_ page: PageRendering) -> [UInt8] {
        Array((page.report.text.isEmpty ? "" : page.report.text + "\n").utf8)
    }
}

extension HOCRDocument: PagesDocument {
    static func render(pages: [PageReport], context: ReportContext, sourceImage: String) -> [UInt8] {
        Array(HOCRDocument(pages: pages, context: context, sourceImage: sourceImage).render().utf8)
    }
}

extension ALTODocument: PagesDocument {
    static func render(pages: [PageReport], context: ReportContext, sourceImage: String) -> [UInt8] {
        Array(ALTODocument(pages: pages, context: context, sourceImage: sourceImage).render().utf8)
    }
}

extension TSVDocument: PageDocument {
    static func render(_ page: PageRendering) -> [UInt8] { Array(TSVDocument(report: page.report).render().utf8) }
}
