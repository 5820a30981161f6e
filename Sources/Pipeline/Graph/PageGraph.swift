import Foundation

#if canImport(Glibc)
import Glibc
#endif
import GlossContract
import GlossGeometry
import GlossImaging
import GlossIndex
import GlossPDFGraft
import GlossReading
import GlossReports

/// What becomes of an input and each of its pages, written down once:
///
///     fetch ─> read ─> hash ─┬─> page 1 ─> skip if finished ─> wait for pixels ─> decode ─> prepare ─> copies ─┐
///     (URLs)                 │                                                                                 │
///                            │      ┌──────────────────── one analyzer per lane, all at once ──────────────────┘
///                            │      ├─> ocr (text lane) ───┐
///                            │      └─> faces (face lane) ─┴─> convert ─> render
///                            ├─> page 2 ...
///                            └─> combine (hOCR, ALTO and PDF of a multi-page file)
///
/// Every step runs through `step`: it is skipped once the page is cancelled, timed into the
/// page's timings under its stage's name, and its failure becomes a `PageError` naming the
/// stage, so one page fails and the batch goes on. The page timeout covers fetch to render;
/// waiting for room in the pixel budget is queueing, not work, and is outside it. A page
/// stopped by Ctrl-C anywhere is `cancelled`; one stopped by its timeout is `timedOut`.
///
/// Blocking work runs on lanes (threads of their own): decoding, copies and files on the
/// worker's image lane, each analyzer on its own lane holding its engine.
struct PageGraph: Sendable {
    let worker: Worker
    let settings: AnnotationSettings
    let fetching: RemoteFetchOptions
    let pageTimeout: Duration?
    /// The largest input read, in bytes (`--max-file-size`): a larger file is refused from its
    /// size, and a download stops there.
    let maxFileSize: Int

    /// What a page became: its report, and the files written for it (none when nothing is written).
    struct Outcome: Sendable {
        var report: PageReport
        var outputs: [String: String] = [:]
        /// The stage a page that did not finish was stopped in.
        var stoppedIn: Stage?
        /// Of the page's corrections applied again, how many applied, and those that no longer match it.
        var corrections: (applied: Int, unmatched: [Correction]) = (0, [])
    }

    /// An input opened: its pages' headers read, its bytes hashed.
    struct OpenedFile: Sendable {
        var image: ImageFile
        var hash: String
        /// A PDF on disk as libqpdf reads it, for the graft of its text layer and for
        /// `--pdf-mode`; or why it cannot be grafted. Nil for images and downloads.
        var graft: Result<PDFGraft.Document, PDFGraftError>?

        /// Why the file's grafted PDF cannot be PDF/A-2b, when that was asked and it cannot.
        var archiveRefusal: String? {
            guard case .success(let document) = graft else { return nil }
            return document.archiveRefusal
        }

        /// What page `index`'s content shows, when known.
        func text(ofPage index: Int) -> PDFGraft.PageText? {
            guard case .success(let document) = graft, document.text.indices.contains(index) else { return nil }
            return document.text[index]
        }
    }

    // MARK: A file of a batch

    /// Every page of one input: each skipped when an earlier run finished it, else run through
    /// the graph of whichever worker is free (`graphs`) and recorded as it ends, several pages
    /// of the file at once when there are free workers; then the file's combined documents.
    /// Never throws: failures are recorded pages.
    static func annotate(_ input: InputCollector.Input, position: Int, in batch: BatchRun, graphs: GraphPool) async -> [ManifestEntry] {
        let path = input.path
        let fileClock = StageClock()
        let (opened, expired) = await graphs.borrowing { graph in
            await graph.withPageTimeout { await Result { try await graph.open(input, clock: fileClock, hashing: true) } }
        }
        let file: OpenedFile
        switch opened {
        case .success(let success): file = success
        case .failure(let error):
            // An input an earlier run finished keeps that reading: its pages are skipped, and
            // the batch says why, rather than writing a failure over good pages (a server's
            // 503, a share that is away, the time running out while it is fetched).
            if let earlier = batch.earlier, case let kept = earlier.finishedPages(of: path, in: batch.layout),
               !kept.isEmpty {
                for entry in kept { await batch.recorder.skip(entry, report: nil, position: position) }
                await batch.recorder.note(.inputKept(source: path, reason: String(describing: error), pages: kept.count))
                return kept
            }
            var report = PageReport(source: path, pageIndex: 0, error: error, status: status(of: error), timings: fileClock)
            report.timeOut(if: expired, after: graphs.pageTimeout, in: (error as? PageError)?.stage)
            let id = pageIdentifier(source: path, pageIndex: 0, pageCount: 1)
            if let clash = await batch.recorder.claim(id, for: path) {
                return [await refuse(clash, pageIndex: 0, position: position, in: batch)]
            }
            let failed = report
            let outcome = failed.status == .failed
                ? await graphs.borrowing { await $0.writeFailure(failed, id: id, in: batch.layout, pdf: .single(nil)) }
                : Outcome(report: failed)
            let entry = ManifestEntry(report: outcome.report, id: id, outputs: outcome.outputs)
            await batch.recorder.record(entry, report: outcome.report, position: position)
            return [entry]
        }

        let pageCount = file.image.pageCount
        let documentLinks = DocumentFiles.links(name: batch.documents.name(for: path), formats: graphs.settings.formats)
        let combines = pageCount > 1 && graphs.settings.formats.contains(where: \.combines)
        // What an earlier run finished of the file, page by page.
        var finishedPages = [(entry: ManifestEntry, report: PageReport?)?](repeating: nil, count: pageCount)
        // What it read under settings that read alike and write otherwise (another --format):
        // the page's files are made again from its JSON. Not for a PDF, whose reading the
        // formats can change (a text layer is looked at when a searchable PDF is written).
        var readings = [PageReport?](repeating: nil, count: pageCount)
        if let earlier = batch.earlier {
            for index in 0..<pageCount where !Task.isCancelled {
                let id = pageIdentifier(source: path, pageIndex: index, pageCount: pageCount)
                let key = PageKey(source: path, pageIndex: index)
                finishedPages[index] = await graphs.borrowing { graph in
                    await earlier.finished(key, id: id, inputHash: file.hash, settingsHash: batch.settingsHash, in: batch.layout,
                                           on: graph.worker.image)
                }
                // A page whose corrections are discarded is read again, as before it was corrected.
                if finishedPages[index] == nil, let readingHash = batch.readingHash, file.image.format != .pdf,
                   batch.corrections?.discarding.contains(id) != true {
                    readings[index] = await graphs.borrowing { graph in
                        await earlier.reading(key, id: id, inputHash: file.hash, readingHash: readingHash, in: batch.layout,
                                              on: graph.worker.image)
                    }
                }
            }
        }
        // The file's documents are made from every page's report. A page kept without one (the
        // batch writes no JSON) is read again when they must be written: a page of the file is
        // read now, or one of them is missing or older than the pages.
        if combines || !documentLinks.isEmpty, finishedPages.contains(where: { $0 != nil && $0?.report == nil }) {
            let id = pageIdentifier(source: path, pageIndex: 0, pageCount: 1)
            let whole = Array(Set(documentLinks.values)) + graphs.settings.formats.filter { combines && $0.combines }
                .map { "pages/" + id + "." + $0.fileExtension }
            let kept = finishedPages.compactMap { $0?.entry }
            let current = kept.count == pageCount
                && whole.allSatisfy { FileManager.default.fileExists(atPath: batch.layout.folder + "/" + $0) }
                && !Self.wholeFilesPredatePages(kept, documents: documentLinks, in: batch.layout)
            if !current { finishedPages = finishedPages.map { $0?.report == nil ? nil : $0 } }
        }
        var done = [(entry: ManifestEntry, report: PageReport?)?](repeating: nil, count: pageCount)
        var readAny = false
        await withTaskGroup(of: (Int, ManifestEntry, PageReport).self) { group in
            var clock: StageClock? = fileClock
            for index in 0..<pageCount {
                if Task.isCancelled { break }
                let id = pageIdentifier(source: path, pageIndex: index, pageCount: pageCount)
                let key = PageKey(source: path, pageIndex: index)
                if let clash = await batch.recorder.claim(id, for: path) {
                    done[index] = (await refuse(clash, pageIndex: index, position: position, in: batch), nil)
                    continue
                }
                if let finished = finishedPages[index] {
                    var entry = finished.entry
                    entry.outputs.merge(documentLinks) { _, new in new }
                    entry.inputPath = entry.inputPath ?? ManifestEntry.absolutePath(of: path)
                    await batch.recorder.skip(entry, report: finished.report, position: position)
                    done[index] = (entry, finished.report)
                    continue
                }
                // Waiting for room ends early only when the batch is cancelled; then no page starts.
                guard let pixels = try? await batch.budget.acquire(file.image.pixelCount(ofPage: index)) else { break }
                let graph = await graphs.borrow()
                await batch.recorder.start(key)
                readAny = true
                // The file's own stages are timed with its first page read.
                let pageClock = clock ?? StageClock()
                clock = nil
                group.addTask { [reading = readings[index]] in
                    let (outcome, expired) = await graph.withPageTimeout {
                        await graph.process(page: index, of: file, id: id, clock: pageClock, layout: batch.layout,
                                            documents: documentLinks, corrections: batch.corrections, reading: reading)
                    }
                    graphs.giveBack(graph)
                    batch.budget.release(pixels)
                    var report = outcome.report
                    report.timeOut(if: expired, after: graph.pageTimeout, in: outcome.stoppedIn)
                    var entry = ManifestEntry(report: report, id: id,
                                              outputs: outcome.outputs.isEmpty ? [:] : outcome.outputs.merging(documentLinks) { _, new in new })
                    entry.inputHash = file.hash
                    entry.inputPath = ManifestEntry.absolutePath(of: path)
                    entry.settingsHash = batch.settingsHash
                    entry.readingHash = batch.readingHash
                    await batch.recorder.record(entry, report: report, position: position, rewritten: reading != nil)
                    if outcome.corrections.applied > 0 || !outcome.corrections.unmatched.isEmpty {
                        await batch.recorder.note(.correctionsApplied(source: path, pageIndex: index, applied: outcome.corrections.applied,
                                                                      unmatched: outcome.corrections.unmatched))
                    }
                    return (index, entry, report)
                }
            }
            for await (index, entry, report) in group { done[index] = (entry, report) }
        }
        var entries = done.compactMap { $0?.entry }
        let reports = done.compactMap { $0?.report }
        // A batch being stopped (a page cancelled, or the stop coming now) makes no documents:
        // they would hold a cancelled page, and the pages stand as they were recorded, to be
        // finished by the next run, which writes the documents then.
        let stopping = Task.isCancelled || reports.contains { $0.status == .cancelled }
        if reports.count == pageCount, !stopping, combines || !documentLinks.isEmpty {
            let id = pageIdentifier(source: path, pageIndex: 0, pageCount: 1)
            let isCurrent = !readAny && !Self.wholeFilesPredatePages(entries, documents: documentLinks, in: batch.layout)
            let combined = await graphs.borrowing { graph in
                await Result {
                    try await graph.step(.combine, file: path, page: 0, clock: StageClock()) {
                        if combines {
                            try await graph.writeCombined(reports, of: file.image, id: id, into: batch.layout,
                                                          pdfIsCurrent: isCurrent, writesPDF: file.graft == nil)
                        }
                        try await graph.worker.image.run { [settings = graph.settings] _ in
                            try DocumentFiles(layout: batch.layout, settings: settings)
                                .write(reports, of: file, id: id, links: documentLinks, isCurrent: isCurrent)
                        }
                    }
                }
            }
            if case .success = combined, !isCurrent, !documentLinks.isEmpty, let reason = file.archiveRefusal {
                await batch.recorder.note(.notArchival(source: path, reason: reason))
            }
            if case .failure(let error) = combined, status(of: error) != .cancelled {
                // A file whose combined document is missing is not finished: its pages are
                // recorded as failed, so the next run reads them again. (Stopped while it was
                // made, they stand as recorded: the next run writes it.)
                entries = entries.map { $0.failed(because: error) }
                for (entry, report) in zip(entries, reports) {
                    await batch.recorder.record(entry, report: report.failed(because: error), position: position)
                }
            }
        }
        return entries
    }

    /// Whether a file made from all of an input's pages (its documents, its PDF) is older than
    /// one of the pages' own files. A run killed after recording an input's pages and before
    /// writing those leaves them so (a changed input read again, its old PDF still there), and a
    /// later run that reads no page of it must write them again, not keep them for being there.
    /// Each is written after every page's files, so one written since is never older.
    static func wholeFilesPredatePages(_ entries: [ManifestEntry], documents: [String: String], in layout: OutputLayout) -> Bool {
        func modified(_ relative: String) -> timespec? {
            var info = stat()
            return stat(layout.folder + "/" + relative, &info) == 0 ? info.st_mtim : nil
        }
        func earlier(_ a: timespec, _ b: timespec) -> Bool { (a.tv_sec, a.tv_nsec) < (b.tv_sec, b.tv_nsec) }
        let whole = Set(documents.values).union(entries.compactMap { $0.outputs["pdf"] })
        let pageFiles = entries.flatMap { $0.outputs.values }.filter { !whole.contains($0) }
        guard let newest = pageFiles.compactMap(modified).max(by: earlier) else { return false }
        return whole.compactMap(modified).contains { earlier($0, newest) }
    }

    /// A page whose id another source holds (`BatchRecorder.claim`): failed, and nothing of it
    /// written, so the other source's page and files stay as they are.
    private static func refuse(_ clash: PageNameClash, pageIndex: Int, position: Int, in batch: BatchRun) async -> ManifestEntry {
        let report = PageReport(source: clash.source, pageIndex: pageIndex, error: clash, status: .failed, timings: StageClock())
        let entry = ManifestEntry(report: report, id: clash.name, outputs: [:])
        await batch.recorder.record(entry, report: report, position: position)
        return entry
    }

    // MARK: One page, nothing written

    /// Reads one page of one file and returns its report, writing nothing; the timeout covers
    /// the whole of it, fetch included.
    func read(_ given: String, pageIndex: Int) async -> PageReport {
        let clock = StageClock()
        let input = RemoteFetcher.isRemote(given) ? InputCollector.Input(remote: given)
            : InputCollector.Input(path: given, relativePath: given)
        let path = input.path
        let (outcome, expired) = await withPageTimeout { () async -> Outcome in
            do {
                let file = try await open(input, clock: clock, hashing: false)
                return await process(page: pageIndex, of: file, id: "", clock: clock, layout: nil)
            } catch {
                return Outcome(report: PageReport(source: path, pageIndex: pageIndex, error: error, status: Self.status(of: error),
                                                  timings: clock),
                               stoppedIn: (error as? PageError)?.stage)
            }
        }
        var result = outcome.report
        result.timeOut(if: expired, after: pageTimeout, in: outcome.stoppedIn)
        return result
    }

    // MARK: The stages

    /// Fetch (for a URL), read and hash: the stages of a file, before any of its pages.
    private func open(_ input: InputCollector.Input, clock: StageClock, hashing: Bool) async throws -> OpenedFile {
        let path = input.path
        if let problem = input.problem {
            throw PageError(file: path, pageIndex: 0, stage: .read, cause: UnreadableInput(reason: problem))
        }
        var downloaded: [UInt8]?
        if RemoteFetcher.isRemote(path) {
            downloaded = try await step(.fetch, file: path, page: 0, clock: clock) {
                guard let url = URL(string: input.fetchURL ?? path) else {
                    throw FetchError(url: URL(fileURLWithPath: "/"), cause: .unsupportedURL, attempts: 0)
                }
                var options = fetching
                options.maximumBytes = min(options.maximumBytes, maxFileSize)
                return try await RemoteFetcher(options: options).fetch(url)
            }
        }
        let image = try await step(.read, file: path, page: 0, clock: clock) {
            try await worker.image.run { [pixelLimit = settings.pixelLimit, pdfResolution = settings.pdfResolution, maxFileSize,
                                          downloaded] _ in
                if let downloaded {
                    return try ImageFile(bytes: downloaded, path: path, pixelLimit: pixelLimit, maxFileSize: maxFileSize,
                                         pdfResolution: pdfResolution)
                }
                return try ImageFile(contentsOf: path, pixelLimit: pixelLimit, maxFileSize: maxFileSize,
                                     pdfResolution: pdfResolution)
            }
        }
        // libqpdf's view of a PDF on disk: what its pages show, and whether it can be grafted;
        // only when a searchable PDF is written or `--pdf-mode redo` must tell visible text from
        // invisible, since it reads every content stream in-process (a page of two million
        // operations takes seconds), not in a killable gloss-render.
        let graft: Result<PDFGraft.Document, PDFGraftError>? = image.format == .pdf && downloaded == nil
            && (settings.formats.contains(.pdf) || settings.pdfMode.readsContent)
            ? try await step(.read, file: path, page: 0, clock: clock) {
                try await worker.image.run { [settings] _ in
                    DocumentFiles.inspection(of: path, settings: settings)
                }
            }
            : nil
        guard hashing else { return OpenedFile(image: image, hash: "", graft: graft) }
        let hash = try await step(.hash, file: path, page: 0, clock: clock) {
            try await worker.image.run { _ in try SHA256.hex(of: image) }
        }
        return OpenedFile(image: image, hash: hash, graft: graft)
    }

    /// The text a PDF page already holds, when `--pdf-mode` keeps it instead of reading the page.
    private func keptText(of layer: PDFTextLayer?, pageText: PDFGraft.PageText?) -> RecognizedText? {
        layer.flatMap(RecognizedText.init(layer:)).flatMap { settings.pdfMode.keepsText(hasTextLayer: true, text: pageText) ? $0 : nil }
    }

    /// Decode to render for one page. Never throws: a failed page is a report saying why,
    /// written in every format so the report can show it; a cancelled one writes nothing.
    /// With `reading` (the page's report from an earlier run under settings that read alike),
    /// the page is not read: it is decoded for its display copy and PDF, and its files written
    /// from that report.
    private func process(page index: Int, of opened: OpenedFile, id: String, clock: StageClock, layout: OutputLayout?,
                         documents: [String: String] = [:], corrections: CorrectionReplay? = nil,
                         reading: PageReport? = nil) async -> Outcome {
        let file = opened.image
        let path = file.path
        // A display copy is made only when a page view or a IIIF canvas will show it.
        let displayDimension = layout != nil && settings.writesDisplayCopy ? settings.displayDimension : nil
        // A PDF that can be grafted gets its one PDF with its document, as a multi-page file does.
        let combinedPDF = file.pageCount > 1 || opened.graft != nil
            ? PagePDF.combined(id: pageIdentifier(source: path, pageIndex: 0, pageCount: 1)) : nil
        let pageText = opened.text(ofPage: index)
        do {
            if let reading, let layout {
                let (display, resolution, decoded) = try await displayCopy(ofPage: index, of: file, clock: clock,
                                                                           displayDimension: displayDimension)
                let outputs = try await write(reading, page: index, of: file, display: display, resolution: resolution,
                                              combinedPDF: combinedPDF, id: id, layout: layout, documents: documents, clock: clock,
                                              decoded: decoded)
                return Outcome(report: reading, outputs: outputs)
            }
            let (copies, size, layer, resolution, preparation) = try await copies(ofPage: index, of: file, clock: clock,
                                                                                   displayDimension: displayDimension,
                                                                                   pageText: pageText)
            // A page holding text that `--pdf-mode` keeps is not read again by any analyzer.
            let keptText = keptText(of: layer, pageText: pageText)
            // Each analyzer gets its own image, and the page keeps none of them: an engine that
            // copies the pixels can let go of its image while it works.
            let display = copies.display
            let images = worker.analyzers.map { analyzer in
                var image = copies.images[analyzer.image]!.separate()
                if analyzer.readsText {
                    image.doubtfulOrientation = preparation?.doubt
                    image.orientationQuestion = preparation?.question
                }
                return image
            }
            _ = consume copies
            var findings = try await analyze(images, file: path, page: index, clock: clock, readingText: keptText == nil)
            if let keptText { findings.text = keptText }
            let report = try await step(.convert, file: path, page: index, clock: clock) { [findings] in
                // The analyzers read the prepared page; their findings are carried back to the
                // input's, which a kept text layer is on already.
                var found = findings.mapped(by: preparation?.transform ?? .identity(size))
                if let keptText { found.text = keptText }
                if let record = preparation?.record { found.preparation = found.preparation.map(record.merged(with:)) ?? record }
                var report = PageReport(source: path, pageIndex: index, size: size, findings: found, timings: StageTimings())
                report.existingText = layer?.text
                report.archiveRefusal = opened.archiveRefusal
                // Whether the page needs a reviewer's eye, once its text and faces are both known.
                return Triage.triaged(report)
            }
            var timed = report
            timed.timings = clock.recorded
            timed.timeline = clock.timeline
            // A page read again keeps its reviewers' corrections: applied on top, by position.
            let replayed: (report: PageReport, unmatched: [Correction]) = corrections?.apply(to: timed, id: id) ?? (timed, [])
            let finished = replayed.report
            guard let layout else { return Outcome(report: finished) }
            let outputs = try await write(finished, page: index, of: file, display: display, resolution: resolution,
                                          combinedPDF: combinedPDF, id: id, layout: layout, documents: documents, clock: clock)
            return Outcome(report: finished, outputs: outputs,
                           corrections: ((corrections?.inForce[id]?.count ?? 0) - replayed.unmatched.count, replayed.unmatched))
        } catch {
            let report = PageReport(source: path, pageIndex: index, error: error, status: Self.status(of: error), timings: clock)
            // A cancelled page writes nothing: no half-finished outputs, only its manifest line.
            guard report.status == .failed, let layout else { return Outcome(report: report, stoppedIn: (error as? PageError)?.stage) }
            return await writeFailure(report, id: id, in: layout, pdf: combinedPDF ?? .single(nil))
        }
    }

    /// The page's files, written from its report; its PDF's picture from `decoded` when the
    /// caller holds the page decoded still, else decoded again.
    private func write(_ report: PageReport, page index: Int, of file: ImageFile, display: PageDisplay?, resolution: Int?,
                       combinedPDF: PagePDF?, id: String, layout: OutputLayout, documents: [String: String],
                       clock: StageClock, decoded: DecodedPage? = nil) async throws -> [String: String] {
        try await step(.render, file: file.path, page: index, clock: clock) {
            try await worker.image.run { [settings] _ in
                // After a reading the page is decoded again for its PDF, as a multi-page file's
                // are when they are combined: its pixels are not held through the analyzers for it.
                let pdf = try combinedPDF ?? .single(settings.formats.contains(.pdf)
                    ? PagePDF.PageSource(decoded: decoded ?? file.decodePage(index), format: file.format, storedSize: file.storedSize)
                    : nil)
                return try PageFiles(layout: layout, settings: settings).write(report, display: display, id: id, pdf: pdf,
                                                                               resolution: resolution, documents: documents)
            }
        }
    }

    /// The page decoded for its display copy alone, its pixels per inch in the file's pixels,
    /// and the decoded page (its PDF's picture): what its files need when they are written from
    /// an earlier reading.
    private func displayCopy(ofPage index: Int, of file: ImageFile, clock: StageClock, displayDimension: Int?)
        async throws -> (PageDisplay?, Int?, DecodedPage) {
        let decoded = try await step(.decode, file: file.path, page: index, clock: clock) {
            try await worker.image.run { _ in try file.decodePage(index) }
        }
        let resolution = decoded.resolutionInFilePixels
        guard displayDimension != nil else { return (nil, resolution, decoded) }
        let display = try await step(.copies, file: file.path, page: index, clock: clock) {
            try await worker.image.run { _ in
                PageCopies(of: decoded, for: [], displayDimension: displayDimension,
                           original: displayDimension.flatMap { DisplayPicture(reusing: file, fitting: $0) }).display
            }
        }
        return (display, resolution, decoded)
    }

    /// Decode, prepare and copies: the page's copies, its size in the file's pixels, the text
    /// it already holds (a PDF's text layer), its pixels per inch in the file's pixels, when
    /// the file states them, and how it was prepared (nil with `--prepare none`). The decoded
    /// page ends here, before the analyzers run, so its memory is not held beside theirs.
    private func copies(ofPage index: Int, of file: ImageFile, clock: StageClock, displayDimension: Int?, pageText: PDFGraft.PageText?)
        async throws -> (PageCopies, PixelSize, PDFTextLayer?, Int?, Preparation?) {
        let path = file.path
        let (decoded, layer) = try await step(.decode, file: path, page: index, clock: clock) {
            try await worker.image.run { _ in (try file.decodePage(index), try file.textLayer(ofPage: index)) }
        }
        let size = decoded.size
        let resolution = decoded.resolutionInFilePixels
        // Turning and levelling serve the text: a page none of whose text is read (faces only,
        // or a PDF page that keeps its own text) is left as it is.
        let readsText = worker.analyzers.contains(where: \.readsText)
            && keptText(of: layer, pageText: pageText) == nil
        let preparation = try await step(.prepare, file: path, page: index, clock: clock) {
            readsText ? try await prepare(decoded) : nil
        }
        let copies = try await step(.copies, file: path, page: index, clock: clock) {
            try await worker.image.run { [requests = worker.imageRequests] _ in
                let original = displayDimension.flatMap { DisplayPicture(reusing: file, fitting: $0) }
                guard let preparation, !preparation.transform.isIdentity else {
                    return PageCopies(of: decoded, for: requests, displayDimension: displayDimension, original: original)
                }
                return PageCopies(of: preparation.page, input: decoded, for: requests, displayDimension: displayDimension,
                                  original: original)
            }
        }
        return (copies, size, layer, resolution,
                preparation.map { Preparation(transform: $0.transform, record: $0.record, doubt: $0.doubt, question: $0.question) })
    }

    /// How a page was prepared, once its prepared pixels have gone to the analyzers.
    struct Preparation: Sendable {
        var transform: PageTransform
        var record: PagePreparation
        var doubt: DoubtfulOrientation?
        var question: OrientationQuestion?
    }

    /// The page turned upright and levelled on the image lane (`--prepare auto`); nil with
    /// `--prepare none`, when the analyzers read the page as it came and the report has no
    /// preparation record.
    private func prepare(_ page: DecodedPage) async throws -> PagePreparer.Prepared? {
        let steps = settings.prepare.intersection([.orientation, .deskew])
        guard !steps.isEmpty else { return nil }
        // In `fast` the orientation detector waits for the first reading (`defersOrientation`).
        let defers = PreparationPolicy().defersOrientation.contains(settings.textMode) && settings.textEngine == .tesseract
        let prepared = try await worker.image.run { preparer in preparer.prepare(page, steps: steps, defersDetector: defers) }
        // Orientation detection is not interruptible; a page cancelled meanwhile stops here.
        try Task.checkCancellation()
        return prepared
    }

    /// Every analyzer at once, each on its lane with its own copy; their findings merged in
    /// the order of the analyzer list, so the result does not depend on which ends first.
    /// Without `readingText`, the analyzers that read text are left out (the page keeps its own).
    private func analyze(_ images: [AnalyzerImage], file: String, page: Int, clock: StageClock, readingText: Bool)
        async throws -> PageFindings {
        try await withThrowingTaskGroup(of: (Int, PageFindings).self) { group in
            for (position, (analyzer, image)) in zip(worker.analyzers, images).enumerated() where readingText || !analyzer.readsText {
                group.addTask {
                    let findings = try await step(Stage(analyzer.name), file: file, page: page, clock: clock) {
                        try await analyzer.analyze(image)
                    }
                    clock.record(findings.timings)
                    return (position, findings)
                }
            }
            var found = [PageFindings](repeating: PageFindings(), count: worker.analyzers.count)
            for try await (position, findings) in group { found[position] = findings }
            return found.reduce(into: PageFindings()) { $0.merge($1) }
        }
    }

    /// hOCR and ALTO also get one document for all pages of a multi-page file; the PDF has only
    /// that one, each page decoded again as its turn comes (unless `writesPDF` is false: a PDF
    /// input's is its grafted document, `DocumentFiles`). A PDF that is there already when no
    /// page was read in this run (they were all finished before) holds these pages and stays.
    private func writeCombined(
        _ reports: [PageReport], of image: ImageFile, id: String, into layout: OutputLayout, pdfIsCurrent: Bool, writesPDF: Bool
    ) async throws {
        let files = renderCombined(reports, formats: settings.formats, context: settings.reportContext)
        try await worker.image.run { [settings] _ in
            for file in files { try AtomicFile.write(file.bytes, to: layout.pagesFolder + "/" + id + "." + file.fileExtension) }
            let pdfPath = layout.pagesFolder + "/" + id + "." + OutputFormat.pdf.fileExtension
            guard writesPDF, settings.formats.contains(.pdf), !(pdfIsCurrent && FileManager.default.fileExists(atPath: pdfPath)) else { return }
            try PagePDF.write(to: pdfPath, title: PageFiles.fileName(image.path), context: settings.reportContext,
                              count: reports.count) { index in
                let report = reports[index]
                let decoded = report.status == .ok ? try image.decodePage(report.pageIndex) : nil
                let source = decoded.map { PagePDF.PageSource(decoded: $0, format: image.format, storedSize: image.storedSize) }
                return SearchablePDFPage(report, source: source)
            }
        }
    }

    /// A page that could not be read, written in every format so the report can show why.
    private func writeFailure(_ report: PageReport, id: String, in layout: OutputLayout, pdf: PagePDF) async -> Outcome {
        do {
            return Outcome(report: report, outputs: try await worker.image.run { [settings] _ in
                try PageFiles(layout: layout, settings: settings).write(report, display: nil, id: id, pdf: pdf)
            })
        } catch {
            // The page has failed already; that its files could not be written is added to why.
            var noted = report
            noted.error = (report.error ?? "") + "; " + String(describing: error)
            return Outcome(report: noted)
        }
    }

    /// One stage: skipped once the page is cancelled, timed, and its failure named after it.
    /// Whatever a stage throws while its page is being cancelled (a download's "cancelled", an
    /// engine's stop) is a cancellation, not a failure.
    private func step<Output: Sendable>(
        _ stage: Stage, file: String, page: Int, clock: StageClock, _ body: () async throws -> Output
    ) async throws -> Output {
        do {
            try Task.checkCancellation()
            return try await clock.time(stage, body)
        } catch let error as PageError {
            throw error
        } catch {
            let cancelled = error is CancellationError || Task.isCancelled
            throw PageError(file: file, pageIndex: page, stage: stage, cause: cancelled ? CancellationError() : error)
        }
    }

    private static func status(of error: any Error) -> PageStatus {
        (error as? PageError)?.cause is CancellationError ? .cancelled : .failed
    }

    /// Runs `body` under the page timeout: when it expires, `body`'s task is cancelled, and
    /// `expired` says so. Work that ends before its time stands, even if it ends just after.
    private func withPageTimeout<Value: Sendable>(
        _ body: @escaping @Sendable () async -> Value
    ) async -> (value: Value, expired: Bool) {
        guard let pageTimeout else { return (await body(), false) }
        return await withTaskGroup(of: TimedEvent<Value>.self) { group in
            group.addTask { .finished(await body()) }
            group.addTask {
                // A sleep cut short by Ctrl-C is an interruption, not the page running out of time.
                do {
                    try await Task.sleep(for: pageTimeout)
                    return .expired
                } catch {
                    return .interrupted
                }
            }
            var expired = false
            while let event = await group.next() {
                switch event {
                case .finished(let value):
                    group.cancelAll()
                    return (value, expired)
                case .expired:
                    expired = true
                    group.cancelAll()
                case .interrupted:
                    break
                }
            }
            preconditionFailure("the page's task always finishes")
        }
    }
}

/// What ends first under a page timeout.
private enum TimedEvent<Value: Sendable>: Sendable {
    case finished(Value)
    case expired, interrupted
}

/// What every file of a batch shares: where it writes, what an earlier run finished, and the
/// recorder and pixel budget of the whole batch.
struct BatchRun: Sendable {
    let layout: OutputLayout
    let earlier: EarlierRun?
    let settingsHash: String
    /// The fingerprint of what decides a page's reading (`AnnotationSettings.readingFingerprint`).
    var readingHash: String? = nil
    let recorder: BatchRecorder
    let budget: PixelBudget
    /// Where each input's document goes in `documents/`.
    let documents: DocumentNames
    /// The reviewers' corrections, applied again on top of the pages read again.
    var corrections: CorrectionReplay? = nil
}

/// A file the input walk found but could not use (a FIFO, a name that is not UTF-8).
struct UnreadableInput: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

extension PageReport {
    /// A page that ended in `error`, with the timings of the stages it went through.
    init(source: String, pageIndex: Int, error: any Error, status: PageStatus, timings clock: StageClock) {
        self.init(source: source, pageIndex: pageIndex, status: status, error: String(describing: error),
                  timings: clock.recorded)
    }

    /// A page cancelled because its time ran out (`expired`) is `timedOut`, and says after how
    /// long and in which stage.
    mutating func timeOut(if expired: Bool, after timeout: Duration?, in stage: Stage? = nil) {
        guard expired, status == .cancelled else { return }
        status = .timedOut
        if let timeout { error = PageTimeoutError(file: source, pageIndex: pageIndex, timeout: timeout, stage: stage).description }
    }

    /// This page, recorded as failed because of `error` after it was read.
    func failed(because error: any Error) -> PageReport {
        var failed = self
        failed.status = .failed
        failed.error = String(describing: error)
        return failed
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
