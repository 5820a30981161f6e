import Foundation
import GlossContract
import GlossReports

/// The batch's IIIF documents, built from its page JSON files (the record every run and merge
/// keeps): what `annotate` writes into `iiif/` when it knows the URL the batch is published
/// under (`--iiif-base`), and what `gloss serve` answers under the URL it serves.
///
/// A manifest's ids must be absolute HTTP(S) URLs (Presentation 3.0, and iiif-prezi3 refuses
/// any other), so without a base URL there is no manifest to build.
public enum IIIFBatch {
    /// The manifest, the context document, and each page's annotation pages, for `pages` of
    /// the batch in `folder` (the ones read, in order). `base` ends with a slash.
    public static func documents(of pages: [ManifestEntry], in folder: String, base: String, label: String,
                                 languages: [String], search: (service: String, autocomplete: String)? = nil) throws -> [BatchFile] {
        var files: [BatchFile] = []
        try documents(of: pages, in: folder, base: base, label: label, languages: languages, search: search) { files.append($0) }
        return files
    }

    /// The same, each handed to `each` as it is made (a page's annotation pages, then the
    /// manifest), so that a batch's are written without all of them in memory at once.
    public static func documents(of pages: [ManifestEntry], in folder: String, base: String, label: String,
                                 languages: [String], search: (service: String, autocomplete: String)? = nil,
                                 each: (BatchFile) throws -> Void) throws {
        var presentation = IIIFPresentation(base: base, label: label, languages: languages)
        presentation.search = search
        var canvases: [IIIFPresentation.Canvas] = []
        for entry in pages where entry.status == .ok {
            // A page whose JSON is gone or does not read has nothing to show; the next run reads it again.
            guard let json = entry.outputs["json"],
                  let bytes = FileManager.default.contents(atPath: folder + "/" + json),
                  let report = try? JSONOutput.decodePage(Array(bytes)) else { continue }
            let image = entry.outputs["image"].flatMap { path in
                BatchReport.pictureSize(of: folder + "/" + path).map { IIIFPresentation.Image(path: path, width: $0.width, height: $0.height) }
            }
            guard let (canvas, pageFiles) = try presentation.canvas(for: report, pageID: entry.id, image: image,
                                                                    outputs: entry.outputs) else { continue }
            for file in pageFiles { try each(file) }
            canvases.append(canvas)
        }
        for file in try presentation.manifest(of: canvases) { try each(file) }
    }

    /// What the manifest is called: the input file's name when every page comes from one,
    /// else the batch folder's name.
    public static func label(of pages: [ManifestEntry], folder: String) -> String {
        let sources = Set(pages.map(\.source))
        if sources.count == 1, let source = sources.first, let name = source.split(separator: "/").last {
            return String(name)
        }
        return (URL(fileURLWithPath: folder).standardizedFileURL.path as NSString).lastPathComponent
    }
}
