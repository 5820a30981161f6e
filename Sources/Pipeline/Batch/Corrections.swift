import Foundation
import GlossContract
import GlossImaging
import GlossIndex
import GlossPDFGraft
import GlossReports
import Synchronization

/// A finished batch opened for corrections: it holds the batch's lock (`gloss.lock`), so no
/// `annotate` or `merge` writes the folder meanwhile, and applies one page's corrections at a
/// time. A server keeps one open for as long as it takes writes.
public final class CorrectableBatch: Sendable {
    public let folder: String
    private let lock: FolderLock
    private let serial = Mutex(())

    private init(folder: String, lock: FolderLock) {
        self.folder = folder
        self.lock = lock
    }

    /// Opens the batch in `folder` for corrections: refused with `FolderLockError` while another
    /// run writes it (or, `waiting`, once it has finished), and with `CorrectionError.file` when
    /// the folder holds no finished batch (no `gloss.json`).
    public static func open(_ folder: String, waiting: Bool = false) async throws -> CorrectableBatch {
        let layout = OutputLayout(folder: folder)
        guard FileManager.default.fileExists(atPath: layout.manifestPath) else {
            throw CorrectionError.file(path: layout.manifestPath, cause: "no batch here (run gloss annotate first)")
        }
        return CorrectableBatch(folder: folder, lock: try await FolderLock.acquire(folder, waiting: waiting))
    }

    /// The page's JSON as it stands, and its version: 16 hex digits of the SHA-256 of the
    /// JSON's bytes, so any change to the page, by a correction or a run reading it again, is a
    /// new version.
    public func page(_ id: String) throws(CorrectionError) -> (report: PageReport, version: String) {
        let state = try PageState(id: id, layout: OutputLayout(folder: folder))
        return (state.report, state.version)
    }

    /// The page's JSON file as it stands, its bytes and their version, read without the lock:
    /// files are replaced whole, so a reader sees one version or the next (a served `GET`).
    public static func pageJSON(_ id: String, in folder: String) throws(CorrectionError) -> (bytes: [UInt8], version: String) {
        let state = try PageState(id: id, layout: OutputLayout(folder: folder))
        return (state.bytes, state.version)
    }

    /// Runs `body` alone among this batch's corrections, while the batch's lock is held.
    fileprivate func serially<T: Sendable>(_ body: () throws(CorrectionError) -> T) throws(CorrectionError) -> T {
        try serial.withLock { (_: inout ()) throws(CorrectionError) -> T in
            defer { withExtendedLifetime(lock) {} }
            return try body()
        }
    }
}

/// What applying a page's corrections made.
public struct AppliedCorrections: Sendable, Equatable {
    public var page: String
    /// The page's version after them, for the next correction's `version`.
    public var version: String
    public var report: PageReport
    /// The page's files written again, relative to the batch folder.
    public var rewritten: [String]
    /// What could not be made again once the page JSON was written, each with why: a PDF whose
    /// input file is gone or changed, a file that cannot be written (a full disk), the batch's
    /// records (index, manifest, front page) when they cannot be brought up to date. The page
    /// JSON and the journal are never among them: when they cannot be written, nothing is, and
    /// `apply` throws.
    public var notRewritten: [String]
}

/// A file of corrections exported by the page view offline ("Save corrections"), which
/// `gloss correct DIR FILE` applies: the corrections, and optionally the version of each page
/// they were made against. A bare JSON array of corrections reads too.
public struct CorrectionFile: Codable, Sendable, Equatable {
    public var corrections: [Correction]
    public var versions: [String: String]?

    public init(corrections: [Correction], versions: [String: String]? = nil) {
        self.corrections = corrections
        self.versions = versions
    }

    public static func read(_ path: String) throws(CorrectionError) -> CorrectionFile {
        let data: Data
        switch contentsOfNamedFile(path) {
        case .success(let bytes): data = bytes
        case .failure(let problem): throw .file(path: path, cause: "cannot be read: " + problem.cause)
        }
        if let list = try? JSONDecoder().decode([Correction].self, from: data) { return CorrectionFile(corrections: list) }
        do { return try JSONDecoder().decode(CorrectionFile.self, from: data) } catch {
            throw .file(path: path, cause: "not a file of corrections: " + JSONOutput.reason(error))
        }
    }
}

/// Applying corrections to a batch: the one way a page's words change after it was read.
public enum Corrections {
    /// A page's version: 16 hex digits of the SHA-256 of its JSON file's bytes.
    public static func version(ofPageJSON bytes: [UInt8]) -> String { String(SHA256.hex(of: bytes).prefix(16)) }

    /// Applies `corrections`, all of page `page`, in order: checks the page is still at
    /// `version` (nil: whatever it is), applies them to its JSON in memory, appends them to the
    /// journal, writes the JSON (atomically), then every derived file of the page again (the
    /// formats of the batch: page view, hOCR, ALTO, TSV, text, PAGE XML, and the multi-page
    /// file's combined documents, the searchable PDF, the IIIF annotations), the index, the
    /// manifest's entry and the batch's front page and search data.
    ///
    /// Nothing is written unless every correction applies; a stale version is
    /// `CorrectionError.staleVersion`.
    public static func apply(_ corrections: [Correction], to page: String, batch: CorrectableBatch, version: String? = nil,
                             policy: CorrectionPolicy = CorrectionPolicy()) throws(CorrectionError) -> AppliedCorrections {
        try batch.serially { () throws(CorrectionError) -> AppliedCorrections in
            let layout = OutputLayout(folder: batch.folder)
            var state = try PageState(id: page, layout: layout)
            if let version, version != state.version {
                throw .staleVersion(page: page, expected: version, current: state.version)
            }
            var report = state.report
            for correction in corrections {
                guard correction.page == page else {
                    throw .malformed(page: page, reason: "a correction of page \(correction.page) sent for page \(page)")
                }
                guard correction.kind != .discard else { throw .malformed(page: page, reason: "discard is not a reviewer's correction") }
                report = try report.applying(correction, policy: policy)
            }
            // Journalled first, so a page written is never without its corrections; taken back
            // when the page cannot be written, so a correction refused is not replayed later.
            let journalled = try CorrectionJournal.append(corrections, in: batch.folder)
            do throws(CorrectionError) {
                return try state.write(report)
            } catch {
                CorrectionJournal.takeBack(to: journalled, in: batch.folder)
                throw error
            }
        }
    }

    /// Applies an exported file, page by page in the order the pages first appear in it; one
    /// result per page, a page's error in place of its result (the other pages still apply).
    public static func apply(_ file: CorrectionFile, batch: CorrectableBatch)
        -> [(page: String, result: Result<AppliedCorrections, CorrectionError>)] {
        var order: [String] = [], byPage: [String: [Correction]] = [:]
        for correction in file.corrections {
            if byPage[correction.page] == nil { order.append(correction.page) }
            byPage[correction.page, default: []].append(correction)
        }
        return order.map { page in
            (page, Result(catching: { () throws(CorrectionError) -> AppliedCorrections in
                try apply(byPage[page]!, to: page, batch: batch, version: file.versions?[page])
            }))
        }
    }
}

/// One page of a batch as its records hold it: its manifest entry, its JSON and the batch's
/// settings; and how all its files are written again from a new report.
private struct PageState {
    let layout: OutputLayout
    var manifest: BatchManifest
    let entryIndex: Int
    var report: PageReport
    /// The JSON file's bytes as read, and their version.
    let bytes: [UInt8]
    let version: String

    var entry: ManifestEntry { manifest.pages[entryIndex] }

    init(id: String, layout: OutputLayout) throws(CorrectionError) {
        self.layout = layout
        guard let data = FileManager.default.contents(atPath: layout.manifestPath) else {
            throw .file(path: layout.manifestPath, cause: "cannot be read")
        }
        do { manifest = try JSONDecoder().decode(BatchManifest.self, from: data) } catch {
            throw .file(path: layout.manifestPath, cause: "does not read as a Gloss manifest: \(error)")
        }
        guard let index = manifest.pages.firstIndex(where: { $0.id == id }) else { throw .unknownPage(id) }
        entryIndex = index
        guard let json = manifest.pages[index].outputs["json"] else { throw .unknownPage(id) }
        let path = layout.folder + "/" + json
        guard let bytes = FileManager.default.contents(atPath: path) else { throw .file(path: path, cause: "cannot be read") }
        do { report = try JSONOutput.decodePage(Array(bytes)) } catch {
            throw .file(path: path, cause: "does not read as a page: \(error)")
        }
        guard report.status == .ok else { throw .malformed(page: id, reason: "the page was not read (\(report.status.rawValue))") }
        self.bytes = Array(bytes)
        version = Corrections.version(ofPageJSON: self.bytes)
    }

    /// Writes `report` as the page's JSON, then everything made from it.
    mutating func write(_ report: PageReport) throws(CorrectionError) -> AppliedCorrections {
        let id = entry.id, settings = manifest.settings
        var rewritten: [String] = [], notRewritten: [String] = []
        func put(_ bytes: [UInt8], _ relative: String) throws(CorrectionError) {
            do { try AtomicFile.write(bytes, to: layout.folder + "/" + relative) } catch {
                throw .file(path: layout.folder + "/" + relative, cause: String(describing: error))
            }
            rewritten.append(relative)
        }
        let json: [UInt8]
        do { json = try JSONOutput.encode(report) } catch { throw .file(path: id, cause: "cannot encode the page: \(error)") }
        try put(json, entry.outputs["json"]!)
        // The page is corrected from here on: a file made from it that cannot be written is
        // named in `notRewritten`, not thrown, so the reviewer is not told it was not saved
        // (and shown a version the page no longer has).
        func derive(_ bytes: [UInt8], _ relative: String) {
            do throws(CorrectionError) { try put(bytes, relative) } catch { notRewritten.append("\(relative): \(error)") }
        }

        // The page's own files, linked as the run that read it linked them.
        let pdf = Self.pdfKind(of: entry)
        let links = PageLinks(imagePath: entry.outputs["image"].map { ($0 as NSString).lastPathComponent },
                              outputs: PageFiles.viewLinks(id: id, formats: settings.formats, pdf: pdf,
                                                           documents: entry.outputs.filter { DocumentFiles.keys.contains($0.key) }),
                              original: PageLinks.link(to: entry.inputFile, from: layout.pagesFolder,
                                                       workingDirectory: FileManager.default.currentDirectoryPath),
                              correction: PageLinks.Correction(page: id, version: Corrections.version(ofPageJSON: json)))
        let context = settings.reportContext
        // The input file, for the PDF's pictures and the resolution the page view shows: opened
        // only when one of them is written, and only if it is still the file that was read.
        let source = settings.formats.contains(.pdf) || settings.formats.contains(.html)
            ? Result(catching: { try Self.openSource(entry.inputFile, inputHash: entry.inputHash, settings: settings) }) : nil
        var resolution: Int?
        if settings.formats.contains(.html), case .success(let image) = source, let decoded = try? image.decodePage(report.pageIndex) {
            resolution = decoded.resolutionInFilePixels
        }
        do {
            let files = try renderPage(report, formats: settings.formats.subtracting([.json]), context: context, links: links,
                                       resolution: resolution)
            for file in files { derive(file.bytes, "pages/" + id + "." + file.fileExtension) }
        } catch {
            notRewritten.append("pages/\(id): cannot render the page: \(error)")
        }

        // A multi-page file's combined documents hold this page among its siblings.
        let siblings = manifest.pages.filter { $0.source == report.source }.sorted { $0.pageIndex < $1.pageIndex }
        // Every page of the input as it now stands; a page whose JSON does not read is a failed
        // page here, and its number is kept, since a graft would lose its layer.
        var unreadPages: [Int] = []
        let everyPage = siblings.map { sibling in
            if sibling.id == id { return report }
            if let read = Self.report(of: sibling, in: layout) { return read }
            unreadPages.append(sibling.pageIndex)
            return PageReport(source: sibling.source, pageIndex: sibling.pageIndex, status: .failed, error: "its JSON does not read")
        }
        var reports = [report]
        if case .combined(let combinedID) = pdf {
            reports = everyPage
            for file in renderCombined(reports, formats: settings.formats, context: context) {
                derive(file.bytes, "pages/" + combinedID + "." + file.fileExtension)
            }
        }
        // A PDF input's PDF is the input with its text layer grafted on (`DocumentFiles`): it is
        // grafted again, from every page's words as they now stand, and the pages' PDF is
        // another name for it. An image's PDF is drawn again from its picture.
        if settings.formats.contains(.pdf), let path = entry.outputs["pdf"], let source {
            do {
                let image = try source.get()
                if image.format == .pdf {
                    let keeps = try regraft(everyPage, of: image, pdf: path, corrected: report.pageIndex, unread: unreadPages)
                    rewritten.append(contentsOf: [entry.outputs["document"], path].compactMap { $0 })
                    if keeps {
                        notRewritten.append("\(path): page \(report.pageIndex + 1) keeps its own text under --pdf-mode "
                                            + "\(settings.pdfMode.rawValue), so the PDF shows its words as they were")
                    }
                } else {
                    try Self.writePDF(reports, of: image, to: layout.folder + "/" + path, settings: settings)
                    rewritten.append(path)
                }
            } catch {
                notRewritten.append("\(path): \(error)")
            }
        }
        // The input's document in documents/: an image's PDF is another name for the one just
        // written, and its whole text is written again.
        if let document = entry.outputs["document"], let path = entry.outputs["pdf"], rewritten.contains(path),
           !rewritten.contains(document) {
            do {
                try AtomicFile.share(layout.folder + "/" + path, as: layout.folder + "/" + document)
                rewritten.append(document)
            } catch {
                notRewritten.append("\(document): \(error)")
            }
        }
        if let text = entry.outputs["documentText"] {
            // Every page of the input, whether or not its PDF combines them.
            derive(Array(DocumentFiles.sidecar(everyPage).utf8), text)
        }
        // The IIIF annotations are written only under a base URL (`BatchReport.writeIIIF`). The
        // manifest names each page's kinds of annotation page: when a correction empties one
        // (every word deleted) or fills one (the first word added), the manifest and the
        // annotation pages are made again from every page, as a run makes them.
        var iiifChanged = false
        if let iiif = settings.iiif, iiif.base != nil {
            let presentation = IIIFPresentation(base: iiif.base, label: (layout.folder as NSString).lastPathComponent,
                                                languages: settings.recognition.languages)
            let image = entry.outputs["image"].flatMap { path in
                BatchReport.pictureSize(of: layout.folder + "/" + path).map { IIIFPresentation.Image(path: path, width: $0.width, height: $0.height) }
            }
            do {
                let made = try presentation.canvas(for: report, pageID: id, image: image, outputs: entry.outputs)
                let had = IIIFPresentation.AnnotationKind.allCases.filter {
                    FileManager.default.fileExists(atPath: layout.folder + "/" + IIIFPresentation.annotationPath($0, pageID: id))
                }
                iiifChanged = Set(made?.canvas.annotations ?? []) != Set(had)
                if !iiifChanged { for file in made?.files ?? [] { derive(file.bytes, file.path) } }
            } catch {
                notRewritten.append("\(IIIFPresentation.annotationsFolder): \(error)")
            }
        }

        // The records: the manifest's entry, the index, and the batch's front page and search data.
        var updated = ManifestEntry(report: report, id: id, outputs: entry.outputs)
        updated.inputHash = entry.inputHash
        updated.settingsHash = entry.settingsHash
        updated.readingHash = entry.readingHash
        updated.inputPath = entry.inputPath
        manifest.pages[entryIndex] = updated
        do {
            let database = try BatchIndex(folder: layout.folder, create: false)
            let position = try database.pages().first { $0.name == id }?.position ?? entryIndex
            try database.record(IndexedPage(name: id, position: position, inputHash: updated.inputHash,
                                            settingsHash: updated.settingsHash, outputs: updated.outputs, report: report))
            try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
            try BatchReport.writeSharedData(of: manifest.pages, searching: database.searchablePages(), into: layout)
            try BatchReport.writeIndex(of: manifest.pages, notStarted: manifest.notStarted ?? 0, into: layout)
        } catch {
            notRewritten.append("the batch's records (its index, gloss.json, index.html), which are behind the page: \(error)")
        }
        if iiifChanged {
            do {
                try BatchReport.writeIIIF(of: manifest.pages, settings: settings, into: layout)
                rewritten.append(IIIFPresentation.manifestPath)
            } catch {
                notRewritten.append("\(IIIFPresentation.folder): \(error)")
            }
        }
        self.report = report
        return AppliedCorrections(page: id, version: Corrections.version(ofPageJSON: json), report: report, rewritten: rewritten,
                                  notRewritten: notRewritten)
    }

    /// Grafts the text layer of `reports` (every page of the PDF input `image`, one corrected)
    /// onto the input again, as the run that read it did (`DocumentFiles`, the same
    /// `--pdf-mode` and PDF/A), over `documents/<name>.pdf`, and links `pdf` (its pages' PDF,
    /// relative to the batch folder) to it, unless a page is `unread` (its JSON does not read,
    /// so its layer would be lost). Returns whether page `corrected` is one whose own text the
    /// batch's `--pdf-mode` keeps, so that no layer of Gloss's shows its correction.
    func regraft(_ reports: [PageReport], of image: ImageFile, pdf: String, corrected: Int, unread: [Int]) throws -> Bool {
        guard let document = entry.outputs["document"] else { throw RegraftError.noDocument }
        if let page = unread.first { throw RegraftError.unreadPage(page) }
        let id = ((pdf as NSString).lastPathComponent as NSString).deletingPathExtension
        guard layout.pagesFolder + "/" + id + "." + OutputFormat.pdf.fileExtension == layout.folder + "/" + pdf else {
            throw RegraftError.noDocument
        }
        let file = PageGraph.OpenedFile(image: image, hash: entry.inputHash ?? "", graft: DocumentFiles.inspection(of: image.path, settings: manifest.settings))
        try DocumentFiles(layout: layout, settings: manifest.settings)
            .write(reports, of: file, id: id, links: ["document": document], isCurrent: false)
        let hasTextLayer = reports.first { $0.pageIndex == corrected }?.existingText.map { !$0.isEmpty } ?? false
        return manifest.settings.pdfMode.keepsText(hasTextLayer: hasTextLayer, text: file.text(ofPage: corrected))
    }

    /// Whether the page's PDF is its own or its multi-page file's.
    static func pdfKind(of entry: ManifestEntry) -> PagePDF {
        if let pdf = entry.outputs["pdf"], pdf != "pages/" + entry.id + "." + OutputFormat.pdf.fileExtension {
            return .combined(id: ((pdf as NSString).lastPathComponent as NSString).deletingPathExtension)
        }
        if entry.id.hasSuffix("-p\(entry.pageIndex + 1)") {
            return .combined(id: pageIdentifier(source: entry.source, pageIndex: 0, pageCount: 1))
        }
        return .single(nil)
    }

    static func report(of entry: ManifestEntry, in layout: OutputLayout) -> PageReport? {
        guard let json = entry.outputs["json"], let bytes = FileManager.default.contents(atPath: layout.folder + "/" + json) else {
            return nil
        }
        return try? JSONOutput.decodePage(Array(bytes))
    }

    /// The page's input file, which must still be the one read (its SHA-256 is checked).
    static func openSource(_ source: String, inputHash: String?, settings: AnnotationSettings) throws -> ImageFile {
        guard !RemoteFetcher.isRemote(source) else { throw PDFSourceError.remote(source) }
        guard FileManager.default.fileExists(atPath: source) else { throw PDFSourceError.missing(source) }
        let image = try ImageFile(contentsOf: source, pixelLimit: settings.pixelLimit, pdfResolution: settings.pdfResolution)
        if let inputHash, try SHA256.hex(of: image) != inputHash { throw PDFSourceError.changed(source) }
        return image
    }

    /// The searchable PDF of `reports` (one input file's pages) again, its pictures decoded
    /// from the input file.
    static func writePDF(_ reports: [PageReport], of image: ImageFile, to path: String, settings: AnnotationSettings) throws {
        try PagePDF.write(to: path, title: PageFiles.fileName(image.path), context: settings.reportContext, count: reports.count) { index in
            let report = reports[index]
            let decoded = report.status == .ok ? try image.decodePage(report.pageIndex) : nil
            return SearchablePDFPage(report, source: decoded.map { PagePDF.PageSource(decoded: $0, format: image.format,
                                                                                       storedSize: image.storedSize) })
        }
    }
}

/// Why a corrected page's PDF could not be made again: its picture, or a PDF input's pages,
/// come from the input file.
enum PDFSourceError: Error, CustomStringConvertible {
    case remote(String)
    case changed(String)
    case missing(String)

    var description: String {
        switch self {
        case .remote(let source): "its input \(source) was downloaded and is not kept, so the PDF holds the words as read"
        case .changed(let source): "its input \(source) changed since it was read, so the PDF holds the words as read"
        case .missing(let source): "its input \(source) is no longer there, so the PDF holds the words as read"
        }
    }
}

/// Why a corrected PDF input's document could not be grafted again (its input is the one read).
enum RegraftError: Error, CustomStringConvertible {
    /// The batch records no document for the input, or its pages' PDF is not in `pages/`.
    case noDocument
    /// A page of the input has a JSON that does not read, so its words are not known.
    case unreadPage(Int)

    var description: String {
        switch self {
        case .noDocument: "the batch records no grafted document for its input, so the PDF holds the words as read"
        case .unreadPage(let index): "page \(index + 1) of its input does not read (its JSON), so the PDF holds the words as read"
        }
    }
}
