import Foundation
import GlossContract
import GlossImaging
import GlossReports

/// The files of one page in the batch folder: `pages/<id>.<format>`, the display copy
/// (`<id>.png` for a document, `<id>.jpg` for a photo) and its thumbnail (`<id>.thumb.jpg`).
struct PageFiles {
    let layout: OutputLayout
    let settings: AnnotationSettings

    /// Writes every requested format, and the display copy when there is one, each atomically;
    /// returns the files written by format, relative to the batch folder. The PDF of a page of a
    /// multi-page file is only named here: it is written once all the file's pages are done.
    /// `resolution` (pixels per inch, when the file states it) is shown by the page view.
    /// `documents` names the input's document (`DocumentFiles.links`), which the page view links.
    func write(_ report: PageReport, display: PageDisplay?, id: String, pdf: PagePDF, resolution: Int? = nil,
               documents: [String: String] = [:]) throws -> [String: String] {
        var outputs: [String: String] = [:]
        var imageName: String?
        if let display {
            let (picture, small) = switch display {
            case .copy(let raster): (try DisplayPicture(showing: raster), raster)
            case .original(let picture, let thumbnail): (picture, thumbnail)
            }
            let name = id + "." + picture.fileExtension
            try AtomicFile.write(picture.bytes, to: layout.pagesFolder + "/" + name)
            outputs["image"] = "pages/" + name
            imageName = name
            let thumbnail = id + ".thumb.jpg"
            try AtomicFile.write(try DisplayPicture(thumbnailOf: small).bytes, to: layout.pagesFolder + "/" + thumbnail)
            outputs["thumbnail"] = "pages/" + thumbnail
        }
        let linked = Self.viewLinks(id: id, formats: settings.formats, pdf: pdf, documents: documents)
        // The page's JSON is encoded once: it is written, and the page view sends corrections
        // against its version (a page that was not read takes none).
        let json = settings.formats.contains(.json) ? try JSONOutput.encode(report) : nil
        let correction = json.flatMap { json in
            settings.formats.contains(.html) && report.status == .ok
                ? PageLinks.Correction(page: id, version: Corrections.version(ofPageJSON: json)) : nil
        }
        let links = PageLinks(imagePath: imageName, outputs: linked,
                              original: PageLinks.link(to: report.source, from: layout.pagesFolder,
                                                       workingDirectory: FileManager.default.currentDirectoryPath),
                              correction: correction)
        var files = try renderPage(report, formats: settings.formats.subtracting([.json]), context: settings.reportContext,
                                   links: links, resolution: resolution)
        if let json { files.append(RenderedFile(format: .json, bytes: json)) }
        for file in files {
            let name = id + "." + file.fileExtension
            try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + name)
            outputs[file.format.rawValue] = "pages/" + name
        }
        if settings.formats.contains(.pdf) {
            switch pdf {
            case .single(let source):
                let name = id + "." + OutputFormat.pdf.fileExtension
                try PagePDF.write(to: layout.pagesFolder + "/" + name, title: Self.fileName(report.source),
                                  context: settings.reportContext, count: 1) { _ in SearchablePDFPage(report, source: source) }
                outputs["pdf"] = "pages/" + name
            case .combined(let combinedID):
                outputs["pdf"] = "pages/" + combinedID + "." + OutputFormat.pdf.fileExtension
            }
        }
        return outputs
    }

    /// What the page view links, by format: the page's own files (`outputLinks`) and its input's
    /// documents (`documents`, relative to the batch folder, by manifest key).
    static func viewLinks(id: String, formats: Set<OutputFormat>, pdf: PagePDF, documents: [String: String]) -> [String: String] {
        outputLinks(id: id, formats: formats, pdf: pdf).merging(documents.mapValues { "../" + PageLinks.url(ofRelativePath: $0) }) { own, _ in own }
    }

    /// The files `write` makes beside the page's HTML, by format, as links from that HTML.
    static func outputLinks(id: String, formats: Set<OutputFormat>, pdf: PagePDF) -> [String: String] {
        var links: [String: String] = [:]
        for format in formats where format != .html && format.isText { links[format.rawValue] = id + "." + format.fileExtension }
        if formats.contains(.pdf) {
            switch pdf {
            case .single: links["pdf"] = id + "." + OutputFormat.pdf.fileExtension
            case .combined(let combinedID): links["pdf"] = combinedID + "." + OutputFormat.pdf.fileExtension
            }
        }
        return links
    }

    /// The last part of a path or URL, as a PDF's title.
    static func fileName(_ source: String) -> String {
        source.split(separator: "/").last.map(String.init) ?? source
    }
}
