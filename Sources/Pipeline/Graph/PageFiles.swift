import GlossContract
import GlossImaging
import GlossReports

/// The files of one page in the batch folder: `pages/<id>.<format>` and the display copy.
struct PageFiles {
    let layout: OutputLayout
    let settings: AnnotationSettings

    /// Writes every requested format, and the display copy when there is one, each atomically;
    /// returns the files written by format, relative to the batch folder.
    func write(_ report: PageReport, display: Raster?, id: String) throws -> [String: String] {
        var outputs: [String: String] = [:]
        var imageName: String?
        if let display {
            let name = id + ".png"
            try AtomicFile.write(try display.pngData(fast: true), to: layout.pagesFolder + "/" + name)
            outputs["image"] = "pages/" + name
            imageName = name
        }
        let files = try renderPage(report, formats: settings.formats, context: settings.reportContext,
                                   links: PageLinks(imagePath: imageName))
        for file in files {
            let name = id + "." + file.fileExtension
            try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + name)
            outputs[file.format.rawValue] = "pages/" + name
        }
        return outputs
    }
}
