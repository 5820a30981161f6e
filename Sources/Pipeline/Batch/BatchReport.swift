import GlossContract
import GlossGeometry
import Foundation
import GlossImaging
import GlossIndex
import GlossReading
import GlossReports

#if canImport(Glibc)
import Glibc
#endif

/// The batch-wide files, written the same way by a running batch and by `merge`.
enum BatchReport {
    /// `index.html`: one card per page, grouped by folder or file in manifest order, the count
    /// of input files a stopped run did not start, and a link to the IIIF manifest if written.
    static func writeIndex(of pages: [ManifestEntry], notStarted: Int = 0, into layout: OutputLayout) throws {
        let index = BatchIndexView(entries: pages.map {
            BatchIndexView.Entry(
                source: $0.source, pageIndex: $0.pageIndex, status: $0.status, error: $0.error, wordCount: $0.words,
                meanConfidence: $0.meanConfidence, faceCount: $0.faces, htmlPath: $0.outputs["html"],
                imagePath: $0.outputs["thumbnail"] ?? $0.outputs["image"], suspect: $0.suspect == true,
                documentPath: $0.outputs["document"],
                // Pages read before the triage: the mean under the index's long-standing 70%.
                lowConfidence: $0.lowConfidence ?? ($0.meanConfidence.map { $0 < TriagePolicy().lowConfidence } ?? false))
        }, notStarted: notStarted,
           // Linked when the batch has one: `writeIIIF` runs first and writes it only with a base URL.
           manifestPath: FileManager.default.fileExists(atPath: layout.folder + "/" + IIIFPresentation.manifestPath)
               ? IIIFPresentation.manifestPath : nil)
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
    /// pages (`IIIFBatch`), then the annotation pages of pages no longer listed removed. A batch
    /// without the IIIF output, or without a base URL to make its ids absolute, has no `iiif/`
    /// folder: a manifest of relative ids is not valid IIIF, and `gloss serve` serves one with
    /// its own URL.
    ///
    /// All of it is written here, at the end of a run, rather than as each page finishes: the
    /// ids depend on the base URL, which a later run may change without reading a page again.
    /// `label` names the batch; nil for `IIIFBatch.label`.
    static func writeIIIF(of pages: [ManifestEntry], settings: AnnotationSettings, into layout: OutputLayout,
                          label: String? = nil) throws {
        let annotations = layout.folder + "/" + IIIFPresentation.annotationsFolder
        guard let output = settings.iiif, let base = output.base else {
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
        // Written as they are made: a batch of 100,000 pages holds gigabytes of annotation pages.
        var written = Set<String>()
        try IIIFBatch.documents(of: pages, in: layout.folder, base: base, label: label ?? IIIFBatch.label(of: pages, folder: layout.folder),
                                languages: settings.recognition.languages) { file in
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
            written.insert((file.path as NSString).lastPathComponent)
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
