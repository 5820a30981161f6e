import Foundation
import GlossContract
import GlossGeometry
import GlossPipeline
import GlossTestSupport
import Testing

/// Corrections applied to a real batch: the journal, the page JSON, every file made from it,
/// the index and search; a stale version refused; `gloss correct` on a multi-page file; a
/// `--force` run keeping them, `--discard-corrections` dropping them; `merge` carrying them.
@Suite(.serialized)
struct CorrectionBatchTests {
    static let formats = "html,json,hocr,alto,tsv,txt,page,pdf,iiif"
    static let at = "2026-12-02T13:00:00Z"

    final class Batch {
        let scratch: ScratchFolder
        var folder: String { scratch.path + "/out" }
        let inputs: [String]

        init(_ fixtures: [String], extra: [String] = []) throws {
            scratch = try ScratchFolder()
            inputs = fixtures.map(Fixtures.path)
            let run = try annotate(extra)
            #expect(run.status == 0, "\(run.standardError)")
        }

        func annotate(_ extra: [String]) throws -> Gloss.Run {
            try Gloss.run(["annotate"] + inputs + ["-o", folder, "--no-faces", "--format", CorrectionBatchTests.formats,
                           "--iiif-base", "https://archive.example/batch/"] + extra)
        }

        var manifest: BatchManifest {
            get throws { try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/gloss.json")))) }
        }

        func entry(_ fixture: String, page: Int = 0) throws -> ManifestEntry {
            try #require(try manifest.pages.first { $0.source.hasSuffix(fixture) && $0.pageIndex == page })
        }

        func report(_ entry: ManifestEntry) throws -> PageReport {
            try JSONOutput.decode(PageReport.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + entry.outputs["json"]!))))
        }

        func text(_ relative: String) throws -> String { try String(contentsOfFile: folder + "/" + relative, encoding: .utf8) }

        func search(_ word: String) throws -> Gloss.Run { try Gloss.run(["search", folder, word]) }

        var journal: [Correction] { get throws { try CorrectionJournal.read(in: folder) } }
    }

    /// Every kind of correction on `text/sans.png`, through the library as a server calls it.
    @Test func eachKindChangesExactlyItsWordsAndEveryFileMadeFromThem() async throws {
        let batch = try Batch(["text/sans.png"])
        let entry = try batch.entry("text/sans.png")
        let before = try batch.report(entry)
        let words = before.words.map(\.text)
        try #require(Array(words.prefix(5)) == ["The", "quick", "brown", "fox", "jumps"], "the page reads as its truth")
        #expect(try batch.search("quick").status == 0)

        let open = try await CorrectableBatch.open(batch.folder)
        let (_, version) = try open.page(entry.id)
        let id = entry.id
        // The page view knows its page and the version of the JSON written beside it.
        #expect(try batch.text(try #require(entry.outputs["html"])).contains("data-page=\"\(id)\" data-version=\"\(version)\""))
        // quick -> Quixotic, delete "The", join "brown fox", split "jumps", add a word, mark reviewed.
        var page = before
        var corrections: [Correction] = []
        func step(_ correction: Correction) throws {
            corrections.append(correction)
            page = try page.applying(correction)
        }
        try step(try Correction.retype(1, to: "Quixotic", on: page, page: id, by: "Ana", at: Self.at))
        try step(try Correction.delete(0, on: page, page: id, by: "Ana", at: Self.at))
        try step(try Correction.join(1, as: "brownfox", on: page, page: id, by: "Ana", at: Self.at))
        try step(try Correction.split(2, into: ["jum", "ps"], on: page, page: id, by: "Ana", at: Self.at))
        try step(Correction.add("Zanzibar", box: PixelRect(x: 760, y: 73, width: 150, height: 40), page: id, by: "Ana", at: Self.at))
        try step(Correction.review(page: id, by: "Ana", at: Self.at))
        let applied = try Corrections.apply(corrections, to: id, batch: open, version: version)
        #expect(applied.notRewritten.isEmpty, "\(applied.notRewritten)")
        #expect(applied.version != version)
        let view = try batch.text(try #require(entry.outputs["html"]))
        #expect(view.contains("data-page=\"\(id)\" data-version=\"\(applied.version)\""), "the page view's version is the new one")
        #expect(view.contains("class=\"w corrected\" data-i=\"0\">Quixotic</span>"))
        #expect(view.contains("Reviewed by Ana, \(Self.at)"))
        // It still offers the input's documents, as the run that read it did.
        #expect(view.contains("data-format=\"document\"") && view.contains("data-format=\"documentText\""))

        // The JSON: exactly those words changed, the rest as read.
        let after = try batch.report(entry)
        #expect(after == applied.report)
        #expect(Array(after.words.map(\.text).prefix(5)) == ["Quixotic", "brownfox", "jum", "ps", "over"])
        // Right of the first line's end, the added word is a line of its own, read last.
        #expect(after.words.last?.text == "Zanzibar" && after.words.last?.line == before.lines.count)
        #expect(Array(after.words.dropFirst(4).dropLast()) == Array(before.words.dropFirst(5)))
        #expect((after.words.prefix(4) + after.words.suffix(1)).allSatisfy {
            $0.correction == PageReport.Attribution(by: "Ana", at: Self.at) && $0.confidence == 100
        })
        #expect(after.words.dropFirst(4).dropLast().allSatisfy { $0.correction == nil })
        #expect(after.reviewed?.by == "Ana")
        #expect(try batch.journal == corrections)

        // Every file made from it.
        for format in ["hocr", "alto", "tsv", "txt", "page", "html"] {
            let text = try batch.text(try #require(entry.outputs[format]))
            #expect(text.contains("Quixotic") && text.contains("Zanzibar") && text.contains("brownfox"), "\(format)")
            #expect(!text.contains("quick"), "\(format) still holds the wrong word")
        }
        let pdf = try Tool.run("pdftotext", [batch.folder + "/" + entry.outputs["pdf"]!, "-"])
        #expect(pdf.contains("Quixotic") && !pdf.contains("quick"))
        let annotations = try batch.text("iiif/annotations/\(id)-words.json")
        #expect(annotations.contains("Quixotic") && !annotations.contains("\"quick\""))
        #expect(try batch.text("data/search-0000.js").contains("Quixotic"), "the report's own search")

        // The index: the corrected word is found, the wrong one no longer.
        let found = try batch.search("Quixotic")
        #expect(found.status == 0 && found.standardOutput.contains("sans.png"))
        #expect(try batch.search("quick").status == 1)
        #expect(try batch.manifest.pages.first { $0.id == id }?.words == after.words.count)

        // A second reviewer with the version from before: refused, nothing changed.
        let stale = try Correction.retype(1, to: "Wrong", on: before, page: id, by: "Bo", at: Self.at)
        #expect(throws: CorrectionError.staleVersion(page: id, expected: version, current: applied.version)) {
            try Corrections.apply([stale], to: id, batch: open, version: version)
        }
        #expect(try batch.report(entry) == after)
        #expect(try batch.journal.count == corrections.count)
        // With the current version it applies on top.
        let next = try Corrections.apply([try Correction.retype(0, to: "Quick", on: after, page: id, by: "Bo", at: Self.at)],
                                         to: id, batch: open, version: applied.version)
        #expect(next.report.words[0].text == "Quick" && next.report.words[0].correction?.by == "Bo")

        // While the batch is open for corrections, no run writes it.
        let refused = try batch.annotate(["--force"])
        #expect(refused.status == 2 && refused.standardError.contains("is writing this folder"), "\(refused.standardError)")
    }

    /// The offline path on a two-page TIFF: `gloss correct` applies an exported file, the
    /// combined hOCR and the file's PDF hold it; then `--force` keeps it, and lists one that no
    /// longer matches; `--discard-corrections` drops them, and a later run applies none.
    /// The IIIF manifest names each page's kinds of annotation page: a page whose every word
    /// is deleted loses its words and lines pages there and on disk, and gets them back with
    /// its first word added, the other page's left as they were.
    @Test func aPageEmptiedOrFilledChangesTheIIIFManifest() async throws {
        let batch = try Batch(["text/few-words.png", "text/sans.png"])
        let entry = try batch.entry("text/few-words.png"), other = try batch.entry("text/sans.png")
        let (id, words) = (entry.id, try batch.report(entry).words.count)
        try #require(words > 0)
        let annotations = "iiif/annotations/\(id)-words.json", lines = "iiif/annotations/\(id)-lines.json"
        #expect(try batch.text("iiif/manifest.json").contains(annotations.dropFirst(5)))
        let otherPage = try batch.text("iiif/annotations/\(other.id)-words.json")

        let open = try await CorrectableBatch.open(batch.folder)
        var (page, version) = try open.page(id)
        var deletions: [Correction] = []
        for _ in 0..<words {
            let deletion = try Correction.delete(0, on: page, page: id, by: "Ana", at: Self.at)
            deletions.append(deletion)
            page = try page.applying(deletion)
        }
        let emptied = try Corrections.apply(deletions, to: id, batch: open, version: version)
        #expect(emptied.notRewritten.isEmpty, "\(emptied.notRewritten)")
        #expect(!FileManager.default.fileExists(atPath: batch.folder + "/" + annotations))
        #expect(!FileManager.default.fileExists(atPath: batch.folder + "/" + lines))
        #expect(try !batch.text("iiif/manifest.json").contains("\(id)-words.json"))
        #expect(try batch.text("iiif/annotations/\(other.id)-words.json") == otherPage)

        version = emptied.version
        let added = try Corrections.apply([Correction.add("Gloss", box: PixelRect(x: 10, y: 10, width: 80, height: 30), page: id,
                                                          by: "Ana", at: Self.at)], to: id, batch: open, version: version)
        #expect(added.notRewritten.isEmpty, "\(added.notRewritten)")
        #expect(try batch.text(annotations).contains("\"Gloss\""))
        #expect(try batch.text("iiif/manifest.json").contains("\(id)-words.json"))
    }

    @Test func anExportedFileAppliesAndAReRunKeepsIt() throws {
        let batch = try Batch(["text/two-pages.tif"])
        let entry = try batch.entry("text/two-pages.tif", page: 1)
        let report = try batch.report(entry)
        let target = try #require(report.words.firstIndex { $0.text.count >= 4 })
        let wrong = report.words[target].text
        let retype = try Correction.retype(target, to: "Xylophone", on: report, page: entry.id, by: "Ana", at: Self.at)
        let file = batch.scratch.path + "/corrections.json"
        try Data(try JSONOutput.encode(CorrectionFile(corrections: [retype]))).write(to: URL(fileURLWithPath: file))
        let run = try Gloss.run(["correct", batch.folder, file])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try batch.report(entry).words[target].text == "Xylophone")
        let combined = entry.id.replacingOccurrences(of: "-p2", with: "")
        #expect(try batch.text("pages/\(combined).hocr").contains("Xylophone"))
        let pdf = try Tool.run("pdftotext", [batch.folder + "/" + entry.outputs["pdf"]!, "-"])
        #expect(pdf.contains("Xylophone"))
        #expect(try batch.search("Xylophone").status == 0)

        // A file saved against a version the page no longer has is refused.
        let versioned = CorrectionFile(corrections: [retype], versions: [entry.id: "0000000000000000"])
        try Data(try JSONOutput.encode(versioned)).write(to: URL(fileURLWithPath: file))
        let stale = try Gloss.run(["correct", batch.folder, file])
        #expect(stale.status == 1 && stale.standardError.contains("changed since it was loaded"))

        // A correction whose word the page no longer has, as if the page had been read otherwise.
        let lost = Correction(page: entry.id, kind: .retype, word: 0, old: [Correction.Word(text: "ghost", box: PixelRect(x: 1, y: 1, width: 5, height: 5))],
                              new: [Correction.Word(text: "spirit", box: PixelRect(x: 1, y: 1, width: 5, height: 5))], by: "Bo", at: Self.at)
        let journal = CorrectionJournal.path(in: batch.folder)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(try JSONOutput.encode(lost, pretty: false) + [UInt8(ascii: "\n")]))
        try handle.close()

        let again = try batch.annotate(["--force"])
        #expect(again.status == 0, "\(again.standardError)")
        let reread = try batch.report(entry)
        #expect(reread.words[target].text == "Xylophone" && reread.words[target].correction?.by == "Ana")
        #expect(try batch.text("pages/\(combined).hocr").contains("Xylophone"))
        #expect(again.standardError.contains("1 correction kept") && again.standardError.contains("1 no longer matching"))
        #expect(again.standardError.contains("a retype by Bo") && again.standardError.contains("'ghost'"))

        let discarded = try batch.annotate(["--force", "--discard-corrections"])
        #expect(discarded.status == 0, "\(discarded.standardError)")
        #expect(try batch.report(entry).words[target].text == wrong)
        #expect(try batch.journal.filter { $0.kind == .discard }.map(\.page) == [entry.id])
        let later = try batch.annotate(["--force"])
        #expect(!later.standardError.contains("kept"))
        #expect(try batch.report(entry).words[target].text == wrong)
    }

    /// A PDF input's document is grafted again: `gloss correct`, run from another folder than
    /// the `annotate` that named its input relatively, finds the input by its recorded path,
    /// and the document holds the corrected word, every other page's words, and the input's
    /// streams byte for byte; one made PDF/A-2b at first (OCRmyPDF's `jbig2.pdf`) stays so. An
    /// input changed since is refused, the document left as it was.
    @Test func aCorrectedPDFInputIsGraftedAgain() throws {
        let scratch = try ScratchFolder()
        let inputs = scratch.path + "/in", elsewhere = scratch.path + "/elsewhere", output = scratch.path + "/out"
        for folder in [inputs, elsewhere] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let input = inputs + "/scanned.pdf", archived = inputs + "/jbig2.pdf"
        try FileManager.default.copyItem(atPath: Fixtures.path("pdf/scanned.pdf"), toPath: input)
        try FileManager.default.copyItem(atPath: Fixtures.path("ocrmypdf/jbig2.pdf"), toPath: archived)
        let run = try Gloss.run(Gloss.executable, ["annotate", "in/scanned.pdf", "in/jbig2.pdf", "-o", "out", "--no-faces",
                                                   "--format", "json,pdf,txt", "--quiet"], in: scratch.path)
        #expect(run.status == 0, "\(run.standardError)")
        let manifest = try PDFInputTests.manifest(output)
        let entries = manifest.pages.filter { $0.source == "in/scanned.pdf" }.sorted { $0.pageIndex < $1.pageIndex }
        let archivedEntry = try #require(manifest.pages.first { $0.source == "in/jbig2.pdf" })
        try #require(entries.count == 2)
        #expect(entries.allSatisfy { $0.source == "in/scanned.pdf" && $0.inputPath == URL(fileURLWithPath: input).standardizedFileURL.path })
        let reports = try entries.map { try PDFInputTests.report($0, in: output) }
        let document = output + "/" + (try #require(entries[1].outputs["document"]))
        let pagesPDF = output + "/" + (try #require(entries[1].outputs["pdf"]))
        let graftedFirst = try #require(FileManager.default.contents(atPath: document))
        func text(page: Int) throws -> String { try Tool.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", document, "-"]) }
        func tokens(_ text: String) -> [String] { text.split(whereSeparator: \.isWhitespace).map(String.init) }

        // A word of page 2 read once in the whole document, corrected.
        let everyWord = reports.flatMap { $0.words.map(\.text) }
        let target = try #require(reports[1].words.firstIndex { word in
            word.text.count >= 4 && word.text.allSatisfy(\.isLetter) && everyWord.filter { $0 == word.text }.count == 1
        })
        let wrong = reports[1].words[target].text
        #expect(tokens(try text(page: 2)).contains(wrong), "the first graft holds the word as read")
        let firstPage = try text(page: 1)
        let retype = try Correction.retype(target, to: "Xylophone", on: reports[1], page: entries[1].id, by: "Ana", at: Self.at)
        let archivedReport = try PDFInputTests.report(archivedEntry, in: output)
        let archivedDocument = output + "/" + (try #require(archivedEntry.outputs["document"]))
        let isArchive = { (path: String) in
            (FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("<pdfaid:part>2</pdfaid:part>")
        }
        #expect(isArchive(archivedDocument) && !isArchive(document), "jbig2.pdf is made PDF/A-2b, scanned.pdf (Helvetica not embedded) not")
        let archivedTarget = try #require(archivedReport.words.firstIndex { $0.text.count >= 4 })
        let archivedFix = try Correction.retype(archivedTarget, to: "Quetzal", on: archivedReport, page: archivedEntry.id, by: "Ana", at: Self.at)
        let file = scratch.path + "/corrections.json"
        try Data(try JSONOutput.encode(CorrectionFile(corrections: [retype, archivedFix]))).write(to: URL(fileURLWithPath: file))
        let corrected = try Gloss.run(Gloss.executable, ["correct", output, file], in: elsewhere)
        #expect(corrected.status == 0 && !corrected.standardError.contains("not written again"), "\(corrected.standardError)")

        // The corrected word is in the document, the wrong one no longer; page 1 keeps its words.
        let second = tokens(try text(page: 2))
        #expect(second.contains("Xylophone") && !second.contains(wrong), "\(second)")
        #expect(try text(page: 1) == firstPage)
        #expect(tokens(try text(page: 1)).count == reports[0].words.filter { !$0.text.isEmpty }.count)
        #expect(try #require(FileManager.default.contents(atPath: document)) != graftedFirst)
        // Still the input with a layer: every image and content stream as it was, qpdf finds no fault.
        let before = try PDFStructure(input), after = try PDFStructure(document)
        #expect(after.imageData == before.imageData)
        #expect(Set(before.contentDataBesideMetadata).subtracting(after.contentData).isEmpty)
        _ = try PDFStructure.run("qpdf", ["--check", document])
        // The PDF/A-2b one is grafted again as the run did: still PDF/A-2b, its JBIG2 image as it was.
        #expect(tokens(try Tool.run("pdftotext", [archivedDocument, "-"])).contains("Quetzal"))
        #expect(isArchive(archivedDocument))
        #expect(!isArchive(document), "scanned.pdf still cannot conform, and is not said to")
        #expect(try PDFStructure(archivedDocument).imageData == PDFStructure(archived).imageData)
        _ = try PDFStructure.run("qpdf", ["--check", archivedDocument])
        // pages/<id>.pdf is still another name for it, and the document's text has the word.
        let (documentFile, pagesFile) = try (FileManager.default.attributesOfItem(atPath: document),
                                             FileManager.default.attributesOfItem(atPath: pagesPDF))
        #expect(documentFile[.systemFileNumber] as? Int == pagesFile[.systemFileNumber] as? Int)
        #expect(FileManager.default.contents(atPath: pagesPDF) == FileManager.default.contents(atPath: document))
        #expect(try String(contentsOfFile: output + "/" + entries[1].outputs["documentText"]!, encoding: .utf8).contains("Xylophone"))

        // An input changed since it was read is not grafted again, and the result says why.
        let graftedAgain = try #require(FileManager.default.contents(atPath: document))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("% changed\n".utf8))
        try handle.close()
        let next = try Correction.retype(target, to: "Zither", on: try PDFInputTests.report(entries[1], in: output), page: entries[1].id,
                                         by: "Ana", at: Self.at)
        try Data(try JSONOutput.encode(CorrectionFile(corrections: [next]))).write(to: URL(fileURLWithPath: file))
        let refused = try Gloss.run(Gloss.executable, ["correct", output, file], in: elsewhere)
        #expect(refused.status == 0, "the page is corrected; only its PDF is not")
        #expect(refused.standardError.contains("not written again: pages/") && refused.standardError.contains("changed since it was read"),
                "\(refused.standardError)")
        #expect(FileManager.default.contents(atPath: document) == graftedAgain)
    }

    /// A batch read on another machine (a shard, merged here) records input paths that are not
    /// here: `gloss correct`, run where the inputs are found by the names the run was given,
    /// draws the page's PDF again from that file. Without the fallback it says "not written
    /// again" and the PDF keeps the word as read.
    @Test func anInputRecordedOnAnotherMachineIsFoundByItsName() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: scratch.path + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: scratch.path + "/in/sans.png")
        let run = try Gloss.run(Gloss.executable, ["annotate", "in/sans.png", "-o", "out", "--no-faces", "--format", "json,pdf", "--quiet"],
                                in: scratch.path)
        #expect(run.status == 0, "\(run.standardError)")
        var manifest = try PDFInputTests.manifest(output)
        try #require(manifest.pages.count == 1)
        manifest.pages[0].inputPath = "/shard-machine/archive/in/sans.png"
        try Data(try JSONOutput.encode(manifest)).write(to: URL(fileURLWithPath: output + "/gloss.json"))
        let entry = manifest.pages[0]
        let report = try PDFInputTests.report(entry, in: output)
        let target = try #require(report.words.firstIndex { $0.text.count >= 4 && $0.text.allSatisfy(\.isLetter) })
        let file = scratch.path + "/corrections.json"
        let retype = try Correction.retype(target, to: "Xylophone", on: report, page: entry.id, by: "Ana", at: Self.at)
        try Data(try JSONOutput.encode(CorrectionFile(corrections: [retype]))).write(to: URL(fileURLWithPath: file))
        let corrected = try Gloss.run(Gloss.executable, ["correct", "out", file], in: scratch.path)
        #expect(corrected.status == 0 && !corrected.standardError.contains("not written again"), "\(corrected.standardError)")
        let pdf = output + "/" + (try #require(entry.outputs["pdf"]))
        #expect(try Tool.run("pdftotext", [pdf, "-"]).contains("Xylophone"))
    }

    /// A file made from the page that cannot be written once the page JSON is (here the
    /// input's text, whose name a folder has taken): the page is corrected and the result names
    /// the file, where an error would tell the reviewer that nothing was saved.
    @Test func aFileThatCannotBeWrittenAfterThePageIsNamedNotThrown() async throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", output, "--no-faces", "--format", "json,txt", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let entry = try #require(try PDFInputTests.manifest(output).pages.first)
        let text = try #require(entry.outputs["documentText"])
        try FileManager.default.removeItem(atPath: output + "/" + text)
        try FileManager.default.createDirectory(atPath: output + "/" + text + "/taken", withIntermediateDirectories: true)
        let open = try await CorrectableBatch.open(output)
        let (report, version) = try open.page(entry.id)
        let applied = try Corrections.apply([try Correction.retype(0, to: "Quetzal", on: report, page: entry.id, by: "Ana", at: Self.at)],
                                            to: entry.id, batch: open, version: version)
        #expect(applied.notRewritten.contains { $0.hasPrefix(text + ":") }, "\(applied.notRewritten)")
        #expect(applied.rewritten.contains("pages/\(entry.id).txt"))
        let (now, current) = try open.page(entry.id)
        #expect(now.words[0].text == "Quetzal" && current == applied.version)
    }

    /// The page JSON cannot be written (its folder mounted read-only): the correction is
    /// refused, and its journal line, written first, is taken back, so no later run replays a
    /// correction the reviewer was told was not saved; once the folder is writable, it applies once.
    @Test(.enabled(if: FullDiskTests.canMount, "a read-only bind mount needs root"))
    func aCorrectionWhosePageCannotBeWrittenLeavesNoJournalLine() async throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", output, "--no-faces", "--format", "json", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let entry = try #require(try PDFInputTests.manifest(output).pages.first)
        let open = try await CorrectableBatch.open(output)
        let (report, version) = try open.page(entry.id)
        let first = try Correction.retype(0, to: "Quetzal", on: report, page: entry.id, by: "Ana", at: Self.at)
        _ = try Corrections.apply([first], to: entry.id, batch: open, version: version)
        let journal = CorrectionJournal.path(in: output)
        let before = try Data(contentsOf: URL(fileURLWithPath: journal))
        let (corrected, current) = try open.page(entry.id)
        let second = try Correction.retype(1, to: "Xylophone", on: corrected, page: entry.id, by: "Ana", at: Self.at)

        let pages = output + "/pages"
        #expect(try FullDiskTests.command("/bin/mount", ["--bind", pages, pages]) == 0)
        defer { _ = try? FullDiskTests.command("/bin/umount", [pages]) }
        #expect(try FullDiskTests.command("/bin/mount", ["-o", "remount,ro,bind", pages]) == 0)
        #expect(throws: CorrectionError.self) { try Corrections.apply([second], to: entry.id, batch: open, version: current) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before, "the refused correction is not journalled")
        #expect(try FullDiskTests.command("/bin/umount", [pages]) == 0)

        let applied = try Corrections.apply([second], to: entry.id, batch: open, version: current)
        #expect(applied.report.words[1].text == "Xylophone")
        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines.filter { $0.contains("Xylophone") }.count == 1, "\(lines)")
    }

    /// A page whose own text `--pdf-mode skip` keeps has no layer of Gloss's to show a
    /// correction: its JSON is corrected, and the result says the PDF shows the words as they were.
    @Test func aPageWhoseTextIsKeptSaysItsPDFIsAsItWas() async throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", Fixtures.path("pdf/text-layer.pdf"), "-o", output, "--no-faces", "--format", "json,pdf",
                                 "--quiet", "--pdf-mode", "skip"])
        #expect(run.status == 0, "\(run.standardError)")
        let entry = try #require(try PDFInputTests.manifest(output).pages.first { $0.pageIndex == 0 })
        let open = try await CorrectableBatch.open(output)
        let (report, version) = try open.page(entry.id)
        let target = try #require(report.words.firstIndex { $0.text.count >= 3 })
        let applied = try Corrections.apply([try Correction.retype(target, to: "Quetzal", on: report, page: entry.id, by: "Ana", at: Self.at)],
                                            to: entry.id, batch: open, version: version)
        #expect(applied.report.words[target].text == "Quetzal")
        #expect(applied.notRewritten.count == 1 && applied.notRewritten[0].contains("page 1 keeps its own text under --pdf-mode skip"),
                "\(applied.notRewritten)")
        #expect(!(try Tool.run("pdftotext", ["-f", "1", "-l", "1", output + "/" + entry.outputs["document"]!, "-"])).contains("Quetzal"))
    }

    /// `merge` carries each shard's journal, each correction once however often it is merged.
    @Test func mergeCarriesTheJournals() async throws {
        let scratch = try ScratchFolder()
        // By their names, sans.png falls in shard 1 of 2 and upright.jpg in shard 0.
        let inputs = ["text/sans.png", "text/upright.jpg"].map(Fixtures.path)
        var shards: [String] = []
        for shard in 0..<2 {
            let folder = scratch.path + "/shard\(shard)"
            let run = try Gloss.run(["annotate"] + inputs + ["-o", folder, "--no-faces", "--format", "json,hocr", "--shard", "\(shard)/2", "--quiet"])
            #expect(run.status == 0, "\(run.standardError)")
            shards.append(folder)
        }
        var made: [Correction] = []
        for folder in shards {
            let manifest = try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/gloss.json"))))
            let entry = try #require(manifest.pages.first)
            let open = try await CorrectableBatch.open(folder)
            let (report, version) = try open.page(entry.id)
            let correction = try Correction.retype(0, to: "Merged\(made.count)", on: report, page: entry.id, by: "Ana", at: Self.at)
            _ = try Corrections.apply([correction], to: entry.id, batch: open, version: version)
            made.append(correction)
        }
        let output = scratch.path + "/merged"
        for _ in 0..<2 {
            let run = try Gloss.run(["merge"] + shards + ["-o", output, "--quiet"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(try CorrectionJournal.read(in: output) == made)
        }
        #expect(try Gloss.run(["search", output, "Merged1"]).status == 0)
        // And each input's recorded path, where a correction finds it.
        let merged = try JSONOutput.decode(BatchManifest.self, from: Array(try Data(contentsOf: URL(fileURLWithPath: output + "/gloss.json"))))
        #expect(merged.pages.count == 2 && merged.pages.allSatisfy { $0.inputPath == $0.source })
    }
}

/// A file of corrections that cannot be read or is of the wrong shape is named with its cause
/// in a person's words.
@Suite struct CorrectionFileErrorTests {
    @Test func eachProblemIsNamedWithItsCause() throws {
        let scratch = try ScratchFolder()
        func cause(_ path: String) -> String? {
            do {
                _ = try CorrectionFile.read(path)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(cause(scratch.path + "/missing.json") == scratch.path + "/missing.json: cannot be read: No such file or directory")
        #expect(cause(scratch.path) == scratch.path + ": cannot be read: Is a directory")
        let shape = scratch.path + "/shape.json"
        try Data(#"{"versions": {}}"#.utf8).write(to: URL(fileURLWithPath: shape))
        #expect(cause(shape) == shape + ": not a file of corrections: corrections is missing")
        let word = scratch.path + "/word.json"
        try Data(#"{"corrections": [{"page": 3}]}"#.utf8).write(to: URL(fileURLWithPath: word))
        #expect(cause(word)?.hasPrefix(word + ": not a file of corrections: corrections[0].page is not text") == true, "\(cause(word) ?? "")")
        let broken = scratch.path + "/broken.json"
        try Data("{".utf8).write(to: URL(fileURLWithPath: broken))
        #expect(cause(broken)?.contains("DecodingError") == false)
    }
}
