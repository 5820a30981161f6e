import Foundation
import GlossContract
import GlossGeometry
@testable import GlossIndex
import GlossReports
import Testing

/// A page whose words are laid out on a grid: word `i` of line `l` at x = 100 i, y = 50 l.
func page(_ source: String, _ lines: [String], pageIndex: Int = 0, faces: Int = 0) -> PageReport {
    var report = PageReport(source: source, pageIndex: pageIndex, status: .ok, error: "")
    report.error = nil
    report.width = 2000
    report.height = 1000
    for (line, text) in lines.enumerated() {
        for (column, word) in text.split(separator: " ").enumerated() {
            report.words.append(PageReport.Word(text: String(word), confidence: 90,
                                                box: PixelRect(x: 100 * column, y: 50 * line, width: 80, height: 40),
                                                line: line))
        }
    }
    report.faces = (0..<faces).map { FaceReport(box: PixelRect(x: 10 * $0, y: 0, width: 50, height: 50), confidence: 1, neighbors: 5) }
    return report
}

func indexed(_ report: PageReport, position: Int) -> IndexedPage {
    let name = ((report.source as NSString).deletingPathExtension as NSString).lastPathComponent + "-p\(report.pageIndex + 1)"
    return IndexedPage(name: name, position: position, inputHash: "hash", settingsHash: "settings",
                       outputs: ["html": "pages/\(name).html"], report: report)
}

final class ScratchIndex {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-index-\(UUID().uuidString)").path
    let index: BatchIndex

    init(_ pages: [PageReport] = []) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        index = try BatchIndex(folder: folder, create: true)
        for (position, report) in pages.enumerated() { try index.record(indexed(report, position: position)) }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }
}

let archive = [
    page("a.png", ["The harbour master kept a log", "Ships left at dawn"]),
    page("b.png", ["Page two lists the staff changes", "Four new engineers joined in March"]),
    page("c.png", ["A café by the harbour", "harbour harbour harbour fees"], faces: 2),
    page("d.png", ["Naïve engineering notes"]),
]

@Suite struct SearchTests {
    @Test func aWordFindsItsPagesBestFirstWithTheHitBoxes() throws {
        let scratch = try ScratchIndex(archive)
        let results = try scratch.index.search("harbour")
        #expect(results.map(\.source) == ["c.png", "a.png"], "the page saying it four times ranks first")
        #expect(results[0].hits.map(\.text) == ["harbour", "harbour", "harbour", "harbour"])
        #expect(results[1].hits == [SearchResult.Hit(text: "harbour", box: PixelRect(x: 100, y: 0, width: 80, height: 40))])
        #expect(results[1].snippet.contains("The [harbour] master"))
        #expect(results[0].htmlPath == "pages/c-p1.html")
        #expect(results[0].score < results[1].score)
    }

    @Test(arguments: [
        ("\"new engineers\"", ["b.png"]),
        ("\"engineers new\"", []),
        ("engineer*", ["b.png", "d.png"]),
        ("engineer", []),
        ("harbour NOT cafe", ["a.png"]),
        ("staff OR naive", ["b.png", "d.png"]),
        ("(staff OR ships) AND march", ["b.png"]),
        ("CAFÉ", ["c.png"]),
        ("naive", ["d.png"]),
    ])
    func queries(query: String, expected: [String]) throws {
        let scratch = try ScratchIndex(archive)
        #expect(Set(try scratch.index.search(query).map(\.source)) == Set(expected), "\(query)")
    }

    /// The search marks its hits with U+0002 and U+0003; a page's own text (a PDF's layer, a
    /// correction) holding them shifted every hit after them onto the wrong word.
    @Test func theHitMarkersInAPagesTextMarkNothing() throws {
        let scratch = try ScratchIndex([page("e.png", ["Rep\u{2}\u{2}\u{3}ort The printer"])])
        let results = try scratch.index.search("printer")
        #expect(results.count == 1 && results[0].hits.map(\.text) == ["printer"], "\(results)")
        #expect(results[0].snippet.contains("[printer]") && results[0].snippet.filter { $0 == "[" }.count == 1, "\(results[0].snippet)")
    }

    @Test func aPhraseMarksOnlyTheWordsOfThePhrase() throws {
        let scratch = try ScratchIndex(archive)
        let result = try #require(try scratch.index.search("\"new engineers\"").first)
        #expect(result.hits.map(\.text) == ["new", "engineers"])
        #expect(result.hits.map(\.box.y) == [50, 50])
    }

    @Test(arguments: ["don't", "\"unbalanced", "harbour AND", "(staff", "title:harbour", "*", "*id OR harbour", "*reads"])
    func aBadQueryIsAQueryErrorNamingTheQuery(query: String) throws {
        let scratch = try ScratchIndex(archive)
        #expect { try scratch.index.search(query, syntax: .fts) } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.description.hasPrefix("invalid query \"\(query)\"") && !error.reason.contains("fts5:")
        }
    }

    @Test func facesNarrowASearchAndListPages() throws {
        let scratch = try ScratchIndex(archive)
        #expect(try scratch.index.search("harbour", minimumFaces: 1).map(\.source) == ["c.png"])
        #expect(try scratch.index.pages(withAtLeastFaces: 2).map(\.source) == ["c.png"])
        #expect(try scratch.index.pages(withAtLeastFaces: 3).isEmpty)
    }

    @Test func failedPagesAreListedButNeverFound() throws {
        var failed = page("e.png", ["harbour"])
        failed.status = .failed
        failed.error = "e.png: not an image"
        let scratch = try ScratchIndex(archive + [failed])
        #expect(try scratch.index.search("harbour").map(\.source) == ["c.png", "a.png"])
        #expect(try scratch.index.pages().map(\.status) == [.ok, .ok, .ok, .ok, .failed])
    }
}

@Suite struct WritingTests {
    @Test func recordingAPageAgainReplacesIt() throws {
        let scratch = try ScratchIndex(archive)
        try scratch.index.record(indexed(page("a.png", ["Completely different words"]), position: 0))
        #expect(try scratch.index.search("harbour").map(\.source) == ["c.png"])
        #expect(try scratch.index.search("different").map(\.source) == ["a.png"])
        #expect(try scratch.index.pages().count == 4)
        #expect(try scratch.index.rows(of: "words", columns: "text").count == 34 - 10 + 3)
        #expect(try scratch.index.integrityProblems().isEmpty)
    }

    @Test func retainingDropsPagesTheManifestNoLongerLists() throws {
        let scratch = try ScratchIndex(archive)
        try scratch.index.retainOnly(pages: ["a-p1", "d-p1"])
        #expect(try scratch.index.pages().map(\.source) == ["a.png", "d.png"])
        #expect(try scratch.index.search("staff").isEmpty)
        #expect(try scratch.index.rows(of: "inputs", columns: "path") == [["a.png"], ["d.png"]])
        #expect(try scratch.index.integrityProblems().isEmpty)
    }

    @Test func theSearchDataHoldsTheIndexTokensInOrder() throws {
        let scratch = try ScratchIndex(archive)
        let pages = try scratch.index.searchablePages()
        #expect(pages.map(\.htmlPath) == ["pages/a-p1.html", "pages/b-p1.html", "pages/c-p1.html", "pages/d-p1.html"])
        #expect(pages[2].text == "A café by the harbour\nharbour harbour harbour fees")
        #expect(pages[2].terms == ["a", "cafe", "by", "the", "harbour", "harbour", "harbour", "harbour", "fees"])
    }

    @Test func anIndexFromANewerGlossIsRefused() throws {
        let scratch = try ScratchIndex()
        try scratch.index.database.execute("PRAGMA user_version = 99", operation: "test")
        #expect { try BatchIndex(folder: scratch.folder, create: false) } throws: { error in
            (error as? IndexError)?.description.contains("newer Gloss") == true
        }
    }

    /// A flipped top bit in the header's version: `migrate` took it and trapped on a negative count.
    @Test func anIndexOfANegativeVersionIsRefusedAsDamaged() throws {
        let scratch = try ScratchIndex()
        try scratch.index.database.execute("PRAGMA user_version = -2147483647", operation: "test")
        #expect { try BatchIndex(folder: scratch.folder, create: false) } throws: { error in
            (error as? IndexError)?.description.contains("damaged: its schema version is -2147483647") == true
        }
    }

    @Test func aMissingIndexIsATypedErrorNamingTheFile() throws {
        #expect { try BatchIndex(folder: "/nonexistent/batch", create: false) } throws: { error in
            (error as? IndexError)?.path == "/nonexistent/batch/gloss.sqlite"
        }
    }
}

@Suite struct MergeTests {
    @Test func shardsMergeIntoWhatOneRunWrites() throws {
        let whole = try ScratchIndex(archive)
        let first = try ScratchIndex(), second = try ScratchIndex()
        for (position, report) in archive.enumerated() {
            try (position % 2 == 0 ? first : second).index.record(indexed(report, position: position))
        }
        let merged = try ScratchIndex()
        try merged.index.merge(from: second.index.path)
        try merged.index.merge(from: first.index.path)
        #expect(try merged.index.comparableContents() == whole.index.comparableContents())
        #expect(try merged.index.pages().map(\.source) == ["a.png", "b.png", "c.png", "d.png"], "input order, not merge order")

        try merged.index.merge(from: first.index.path)
        #expect(try merged.index.comparableContents() == whole.index.comparableContents(), "merging again changes nothing")
        #expect(try merged.index.search("harbour").map(\.source) == whole.index.search("harbour").map(\.source))
        #expect(try merged.index.integrityProblems().isEmpty)
    }
}

/// How a batch's database is opened for reading, decided from why its folder cannot be written.
@Suite struct ReadingAccessTests {
    @Test func onlyAFinishedBatchOfAnotherUsersIsReadImmutable() {
        var asked = 0
        let writing = { () -> Bool in asked += 1; return true }, finished = { () -> Bool in asked += 1; return false }
        #expect(Database.Access.reading(writeRefusal: nil, beingWritten: writing) == .readOnly)
        #expect(Database.Access.reading(writeRefusal: EROFS, beingWritten: writing) == .readOnlyMedia, "read-only media never change")
        #expect(asked == 0, "the lock is asked only for another user's folder")
        // Another user's batch: immutable only when no run writes it, which would change the file under it.
        #expect(Database.Access.reading(writeRefusal: EACCES, beingWritten: finished) == .readOnlyMedia)
        #expect(Database.Access.reading(writeRefusal: EACCES, beingWritten: writing) == .readOnly)
        #expect(Database.Access.reading(writeRefusal: ENOENT, beingWritten: writing) == .readOnly)
        #expect(asked == 2)
    }
}
