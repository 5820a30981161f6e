import Foundation
import GlossContract
import GlossImaging
import GlossPDFGraft
import GlossReports

/// Where each input's document goes: `documents/<the input's path below the inputs' common
/// folder>`, with `.pdf` for its searchable PDF and `.txt` for its whole text. A PDF input's
/// name loses its `.pdf` (`scans/a.pdf` gives `documents/scans/a.pdf` and `a.txt`); any other
/// input keeps its extension (`b.tif` gives `b.tif.pdf`), so that `b.tif` and `b.png` stay two
/// documents. A URL's document is named after its page identifier.
struct DocumentNames: Sendable {
    /// The folder every local input lies below, standardised, with a trailing `/`.
    let commonFolder: String
    /// Each source's name where it is not its plain name (`plainName`) or was given before.
    private var given: [String: String] = [:]

    /// The names of `sources` (the whole collection, in its order) in a batch whose earlier
    /// pages are `earlier`. One name is one input's: a name the batch already gives keeps its
    /// source, the first to hold it; an input whose plain name another input holds (`x.pdf` and
    /// `x.PDF`; `box1/page001.png` read in one run and `box2/page001.png` in the next, each
    /// below its own common folder) takes that name and the hash of its path, as its page ids
    /// do. The same collection in the same batch is named the same in every run and shard.
    init(sources: [String], earlier: [ManifestEntry] = []) {
        let folders = sources.filter { !RemoteFetcher.isRemote($0) }.map { source in
            Array(URL(fileURLWithPath: source).standardizedFileURL.deletingLastPathComponent().pathComponents)
        }
        var common = folders.first ?? ["/"]
        for folder in folders.dropFirst() {
            common = Array(zip(common, folder).prefix { $0 == $1 }.map(\.0))
        }
        let joined = NSString.path(withComponents: common.isEmpty ? ["/"] : common)
        commonFolder = joined.hasSuffix("/") ? joined : joined + "/"

        var owner: [String: String] = [:]
        for entry in earlier {
            guard let name = Self.recordedName(of: entry), owner[name] == nil || owner[name] == entry.source else { continue }
            owner[name] = entry.source
            given[entry.source] = name
        }
        for source in sources where given[source] == nil {
            var name = plainName(for: source)
            if let holder = owner[name], holder != source {
                name += "-" + pageIdentifier(source: source, pageIndex: 0, pageCount: 1).suffix(16)
            }
            owner[name] = source
            given[source] = name
        }
    }

    /// The document's name in `documents/`, without the extension each of its files adds.
    func name(for source: String) -> String { given[source] ?? plainName(for: source) }

    /// The name an input's document has by its path alone: its path below the common folder,
    /// without a `.pdf` ending (a URL's: its page id).
    func plainName(for source: String) -> String {
        guard !RemoteFetcher.isRemote(source) else { return pageIdentifier(source: source, pageIndex: 0, pageCount: 1) }
        let path = URL(fileURLWithPath: source).standardizedFileURL.path
        let relative = path.hasPrefix(commonFolder) ? String(path.dropFirst(commonFolder.count)) : (path as NSString).lastPathComponent
        return relative.lowercased().hasSuffix(".pdf") ? String(relative.dropLast(4)) : relative
    }

    /// The name an earlier run gave the entry's document, from the files it links.
    static func recordedName(of entry: ManifestEntry) -> String? {
        for (key, ending) in [("document", ".pdf"), ("documentText", ".txt")] {
            if let path = entry.outputs[key], path.hasPrefix("documents/"), path.hasSuffix(ending) {
                return String(path.dropFirst("documents/".count).dropLast(ending.count))
            }
        }
        return nil
    }
}

/// The document of one input in `documents/`: its searchable PDF (with `--format pdf`) and its
/// whole text, pages separated by form feeds as OCRmyPDF's `--sidecar` has them (with
/// `--format txt`). A PDF input's PDF is the input with Gloss's text layer grafted on
/// (`GlossPDFGraft`), and `pages/<id>.pdf` is another name for it; an image's is the PDF Gloss
/// writes in `pages/`, and the document another name for that. Each file is written atomically,
/// and named in every page's manifest entry (`document`, `documentText`), which is how the batch
/// knows it wrote them and may remove them.
struct DocumentFiles {
    let layout: OutputLayout
    let settings: AnnotationSettings

    /// The manifest keys of a document's files: the only files of a page kept outside `pages/`.
    static let keys: Set<String> = ["document", "documentText"]

    /// The document's files, as paths relative to the batch folder, by manifest key.
    static func links(name: String, formats: Set<OutputFormat>) -> [String: String] {
        var links: [String: String] = [:]
        if formats.contains(.pdf) { links["document"] = "documents/" + name + ".pdf" }
        if formats.contains(.txt) { links["documentText"] = "documents/" + name + ".txt" }
        return links
    }

    /// Writes the files `links` names for the file's pages. With `isCurrent` (no page was read
    /// in this run), files that are there already stay.
    func write(_ reports: [PageReport], of file: PageGraph.OpenedFile, id: String, links: [String: String], isCurrent: Bool) throws {
        let pagesPDF = layout.pagesFolder + "/" + id + "." + OutputFormat.pdf.fileExtension
        if let document = links["document"] {
            let path = layout.folder + "/" + document
            let present = FileManager.default.fileExists(atPath: path) && FileManager.default.fileExists(atPath: pagesPDF)
            if !(isCurrent && present) {
                try AtomicFile.createDirectory((path as NSString).deletingLastPathComponent)
                if let graft = file.graft {
                    try self.graft(reports, onto: file.image.path, inspected: graft.get(), to: path)
                    try AtomicFile.share(path, as: pagesPDF)
                } else {
                    try AtomicFile.share(pagesPDF, as: path)
                }
            }
        }
        if let text = links["documentText"] {
            let path = layout.folder + "/" + text
            try AtomicFile.createDirectory((path as NSString).deletingLastPathComponent)
            try AtomicFile.write(Self.sidecar(reports), to: path)
        }
    }

    /// libqpdf's view of the PDF at `path` for its graft under `settings`: with why it cannot be
    /// PDF/A-2b when a searchable PDF of that standard is asked. The run that reads the file
    /// and a correction grafting it again both inspect it so.
    static func inspection(of path: String, settings: AnnotationSettings) -> Result<PDFGraft.Document, PDFGraftError> {
        PDFGraft.inspection(of: path, archival: settings.formats.contains(.pdf) && settings.reportContext.pdfStandard != .none)
    }

    /// Every page's text, each ending in a newline, pages separated by form feeds. A form feed
    /// in a page's own text (a correction can type one) becomes a space: a reader splitting the
    /// file into pages would see another page there.
    static func sidecar(_ reports: [PageReport]) -> String {
        reports.map { report in
            report.text.isEmpty ? "" : report.text.replacingOccurrences(of: "\u{0C}", with: " ") + "\n"
        }.joined(separator: "\u{0C}")
    }

    /// The input at `input` with a layer page over each page Gloss read and found words on,
    /// written to `path`; the old invisible text of the pages `--pdf-mode` replaces removed.
    private func graft(_ reports: [PageReport], onto input: String, inspected document: PDFGraft.Document, to path: String) throws {
        var covered: [(page: Int, report: PageReport)] = []
        var stripping: [Int] = []
        for report in reports.sorted(by: { $0.pageIndex < $1.pageIndex })
        where report.status == .ok && document.pages.indices.contains(report.pageIndex) {
            let text = document.text[report.pageIndex]
            let kept = settings.pdfMode.keepsText(hasTextLayer: report.existingText.map { !$0.isEmpty } ?? false, text: text)
            if settings.pdfMode.stripsInvisibleText(text, kept: kept) { stripping.append(report.pageIndex) }
            if !kept, report.words.contains(where: { !$0.text.isEmpty }) { covered.append((report.pageIndex, report)) }
        }
        let layer = TemporaryName.beside(path, kind: "tmp-layer")
        defer { unlink(layer) }
        if !covered.isEmpty {
            try AtomicFile.write(to: layer) { append in
                var pdf = try SearchablePDF(context: settings.reportContext, title: (input as NSString).lastPathComponent, sink: append)
                for (page, report) in covered {
                    let frame = document.pages[page].textLayerFrame(pixelWidth: report.width)
                    try pdf.addTextLayer(report, frame: (frame.width, frame.height, frame.pointsPerPixel, frame.pictureLeft, frame.pictureTop))
                }
                try pdf.finish()
            }
        }
        let covers = covered.map { PDFGraft.Cover(page: $0.page, placement: document.pages[$0.page].shownToUserSpace) }
        let archive = Self.archive(for: input, document: document, context: settings.reportContext)
        try AtomicFile.produce(path) { temporary in
            try PDFGraft.graft(input: input, layer: covered.isEmpty ? nil : layer, covers: covers, stripping: stripping,
                               archive: archive, output: temporary)
        }
    }

    /// What makes the grafted `input` PDF/A-2b under `context`'s standard, or nil: for
    /// `--pdf-standard none`, or for an input that cannot conform (`document.archiveRefusal`,
    /// which the pages' reports carry), whose document is written without the claim. The
    /// input's title, author, subject, keywords, creator and dates are kept, in its
    /// information dictionary and in the XMP alike; Gloss is the producer.
    static func archive(for input: String, document: PDFGraft.Document, context: ReportContext) -> PDFGraft.Archive? {
        guard context.pdfStandard != .none, document.archiveRefusal == nil else { return nil }
        let information = document.information
        let producer = context.softwareName + " " + context.softwareVersion
        let description = PDFArchive.Description(
            title: information["Title"] ?? (input as NSString).lastPathComponent, producer: producer,
            creator: information["Creator"] ?? producer, author: information["Author"], subject: information["Subject"],
            keywords: information["Keywords"], created: information["CreationDate"], modified: information["ModDate"])
        return PDFGraft.Archive(metadata: PDFArchive.metadata(description), profile: PDFArchive.sRGBProfile,
                                information: description.information)
    }
}
