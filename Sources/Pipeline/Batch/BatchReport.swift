import GlossContract
import GlossGeometry
import Foundation
import GlossImaging
import GlossIndex
import GlossReports

#if canImport(Glibc)
import Glibc
#endif

/// The batch-wide files, written the same way by a running batch and by `merge`.
enum BatchReport {
    /// `index.html`: one card per page, grouped by folder or file in manifest order, and the
    /// count of input files a stopped run did not start.
    static func writeIndex(of pages: [ManifestEntry], notStarted: Int = 0, into layout: OutputLayout) throws {
        let index = BatchIndexView(entries: pages.map {
            BatchIndexView.Entry(
                source: $0.source, pageIndex: $0.pageIndex, status: $0.status, error: $0.error, wordCount: $0.words,
                meanConfidence: $0.meanConfidence, faceCount: $0.faces, htmlPath: $0.outputs["html"],
                imagePath: $0.outputs["thumbnail"] ?? $0.outputs["image"], suspect: $0.suspect == true,
                documentPath: $0.outputs["document"])
        }, notStarted: notStarted)
        try AtomicFile.write(index.render(), to: layout.indexPath)
    }

    /// `data/`: the page order for the pages' previous/next links, and the search data the
    /// index exports, both titled as the index titles its cards (`SourceNames`).
    static func writeSharedData(of pages: [ManifestEntry], searching searchable: [SearchablePage],
                                into layout: OutputLayout) throws {
        let names = SourceNames(pages: pages.map { ($0.source, $0.pageIndex) })
        var titles: [String: String] = [:]
        let order = pages.compactMap { entry in
            entry.outputs["html"].map { path in
                let title = names.title(source: entry.source, pageIndex: entry.pageIndex)
                titles[path] = title
                return BatchPage(htmlPath: path, title: title)
            }
        }
        let retitled = searchable.map { page in
            var page = page
            if let path = page.htmlPath, let title = titles[path] { page.title = title }
            return page
        }
        for file in BatchData.files(for: order, searching: retitled) {
            try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
    }

    /// `iiif/`: the IIIF Presentation manifest of the pages read, and each page's annotation
    /// pages, built from the page JSON files (the record every run and merge keeps, whatever
    /// the base URL was when the page was read), then the annotation pages of pages no longer
    /// listed removed. A batch without the IIIF output has no `iiif/` folder.
    ///
    /// All of it is written here, at the end of a run, rather than as each page finishes: the
    /// ids depend on the base URL, which a later run may change without reading a page again.
    /// `label` names the batch; nil for the folder's name.
    static func writeIIIF(of pages: [ManifestEntry], settings: AnnotationSettings, into layout: OutputLayout,
                          label: String? = nil) throws {
        let annotations = layout.folder + "/" + IIIFPresentation.annotationsFolder
        guard let output = settings.iiif else {
            // Gloss's files go, then the folders if nothing else is left in them.
            for path in [IIIFPresentation.manifestPath, IIIFPresentation.contextPath] { unlink(layout.folder + "/" + path) }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: annotations)) ?? [] where isAnnotationFile(name) {
                unlink(annotations + "/" + name)
            }
            rmdir(annotations)
            rmdir(layout.folder + "/" + IIIFPresentation.folder)
            return
        }
        try AtomicFile.createDirectory(annotations)
        let name = (URL(fileURLWithPath: layout.folder).standardizedFileURL.path as NSString).lastPathComponent
        let presentation = IIIFPresentation(base: output.base, label: label ?? name, languages: settings.recognition.languages)
        var canvases: [IIIFPresentation.Canvas] = []
        var written: Set<String> = []
        for entry in pages where entry.status == .ok {
            // A page whose JSON is gone or does not read has nothing to show; the next run reads it again.
            guard let json = entry.outputs["json"],
                  let bytes = FileManager.default.contents(atPath: layout.folder + "/" + json),
                  let report = try? JSONOutput.decode(PageReport.self, from: Array(bytes)) else { continue }
            let image = entry.outputs["image"].flatMap { path in
                pictureSize(of: layout.folder + "/" + path).map { IIIFPresentation.Image(path: path, width: $0.width, height: $0.height) }
            }
            guard let (canvas, files) = try presentation.canvas(for: report, pageID: entry.id, image: image) else { continue }
            for file in files {
                try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
                written.insert((file.path as NSString).lastPathComponent)
            }
            canvases.append(canvas)
        }
        for file in try presentation.manifest(of: canvases) {
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: annotations)) ?? []
        where !written.contains(name) && isAnnotationFile(name) {
            unlink(annotations + "/" + name)
        }
    }

    /// Whether a name in `iiif/annotations/` is one Gloss gives an annotation page,
    /// `<page id>-<kind>.json`: the only files there it removes.
    private static func isAnnotationFile(_ name: String) -> Bool {
        IIIFPresentation.AnnotationKind.allCases.contains { name.hasSuffix("-" + $0.rawValue + ".json") }
    }

    /// The size a display copy's header gives (PNG or JPEG), without decoding it; nil for a
    /// file that is gone or not a picture.
    static func pictureSize(of path: String) -> PixelSize? {
        try? ImageFile(contentsOf: path).storedSize
    }

    /// The stylesheet and scripts every page and the index share.
    static func writeAssets(into layout: OutputLayout) throws {
        for file in ReportAssets.files {
            try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
    }
}
