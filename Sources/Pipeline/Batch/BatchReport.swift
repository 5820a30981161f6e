import GlossContract
import Foundation
import GlossIndex
import GlossReports

/// The batch-wide files, written the same way by a running batch and by `merge`.
enum BatchReport {
    /// `index.html`: one card per page, in manifest order.
    static func writeIndex(of pages: [ManifestEntry], into layout: OutputLayout) throws {
        let index = BatchIndexView(entries: pages.map {
            BatchIndexView.Entry(
                source: $0.source, pageIndex: $0.pageIndex, status: $0.status, error: $0.error, wordCount: $0.words,
                meanConfidence: $0.meanConfidence, faceCount: $0.faces, htmlPath: $0.outputs["html"],
                imagePath: $0.outputs["image"])
        })
        try AtomicFile.write(index.render(), to: layout.indexPath)
    }

    /// `data/`: the page order for the pages' previous/next links, and the search data the
    /// index exports.
    static func writeSharedData(of pages: [ManifestEntry], searching searchable: [SearchablePage],
                                into layout: OutputLayout) throws {
        let order = pages.compactMap { entry in
            entry.outputs["html"].map { BatchPage(htmlPath: $0, title: PageReport.title(source: entry.source, pageIndex: entry.pageIndex)) }
        }
        for file in BatchData.files(for: order, searching: searchable) {
            try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
    }

    /// The stylesheet and scripts every page and the index share.
    static func writeAssets(into layout: OutputLayout) throws {
        for file in ReportAssets.files {
            try AtomicFile.createDirectory((layout.folder + "/" + file.path as NSString).deletingLastPathComponent)
            try AtomicFile.write(file.bytes, to: layout.folder + "/" + file.path)
        }
    }
}
