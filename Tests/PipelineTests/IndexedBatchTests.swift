import Foundation
@testable import GlossIndex
import GlossContract
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

/// The batch database as archives use it: searched from the command line, built in shards on
/// several machines and merged, and whole after a crash.
@Suite(.serialized)
struct IndexedBatchTests {
    struct Output: Decodable {
        struct Result: Decodable {
            struct Hit: Decodable {
                var text: String
                var box: Fixtures.Truth.Box
            }

            var source: String
            var page: Int
            var html: String?
            var score: Double?
            var hits: [Hit]?
        }

        var results: [Result]
    }

    static func search(_ folder: String, _ query: String) throws -> (status: Int32, results: [Output.Result]) {
        let run = try Gloss.run(["search", folder, query, "--json"])
        guard run.status == 0 else { return (run.status, []) }
        return (0, try JSONDecoder().decode(Output.self, from: Data(run.standardOutput.utf8)).results)
    }

    @Test func aSearchFindsTheSecondPageOfAFileWithTheWordsBoxes() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), Fixtures.path("text/two-pages.tif"),
                                 Fixtures.path("text/serif.png"), "-o", output, "--no-faces"])
        #expect(run.status == 0, "\(run.standardError)")
        let truth = try Fixtures.truth("text/two-pages.json")[1]

        let (status, staff) = try Self.search(output, "staff")
        #expect(status == 0)
        let first = try #require(staff.first)
        #expect(first.source.hasSuffix("two-pages.tif") && first.page == 2)
        let hit = try #require(first.hits?.first)
        let expected = try #require(truth.words.first { $0.text == "staff" }).box
        #expect(hit.text == "staff")
        #expect(abs(hit.box.x - expected.x) <= 4 && abs(hit.box.y - expected.y) <= 4)
        #expect(abs(hit.box.width - expected.width) <= 6 && abs(hit.box.height - expected.height) <= 6)

        #expect(try Self.search(output, "\"new engineers\"").results.map(\.page) == [2])
        #expect(try Self.search(output, "engin*").results.map(\.page) == [2])
        let notStaff = try Self.search(output, "page NOT staff").results
        #expect(notStaff.contains { $0.source.hasSuffix("two-pages.tif") && $0.page == 1 })
        #expect(!notStaff.contains { $0.page == 2 })
        #expect(try Self.search(output, "zebra").status == 1, "nothing found: exit 1, like grep")

        let bad = try Gloss.run(["search", output, "staff AND"])
        #expect(bad.status == 2)
        #expect(bad.standardError.split(separator: "\n").count == 1, "\(bad.standardError)")
        #expect(bad.standardError.hasPrefix("gloss: invalid query \"staff AND\": "))

        // Punctuation typed in plain words is searched; --fts reads the query as FTS5 syntax.
        #expect(try Self.search(output, "staff-changes").results.map(\.page) == [2])
        #expect(try Gloss.run(["search", output, "staff-"]).status == 0)
        #expect(try Gloss.run(["search", output, "staff-", "--fts"]).status == 2)
    }

    static func contents(of folder: String) throws -> [[[String]]] {
        try BatchIndex(folder: folder, create: false).comparableContents()
    }

    @Test func threeShardsMergedEqualOneRun() throws {
        let scratch = try ScratchFolder()
        let input = Fixtures.path("text")
        let whole = try Gloss.run(["annotate", input, "-o", scratch.path + "/whole", "--no-faces", "-q"])
        #expect(whole.status == 0, "\(whole.standardError)")
        var shardPages = 0
        for shard in 0..<3 {
            let run = try Gloss.run(["annotate", input, "-o", scratch.path + "/shard\(shard)", "--no-faces", "-q",
                                     "--shard", "\(shard)/3"])
            #expect(run.status == 0, "\(run.standardError)")
            shardPages += try BatchTests.manifest(scratch.path + "/shard\(shard)").pages.count
        }
        let wholeManifest = try BatchTests.manifest(scratch.path + "/whole")
        #expect(shardPages == wholeManifest.pages.count, "every page in exactly one shard")

        let shards = (0..<3).map { scratch.path + "/shard\($0)" }
        let merged = scratch.path + "/merged"
        let merge = try Gloss.run(["merge"] + shards + ["-o", merged, "-q"])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(try Self.contents(of: merged) == Self.contents(of: scratch.path + "/whole"))
        let mergedManifest = try BatchTests.manifest(merged)
        #expect(mergedManifest.pages.map(\.id) == wholeManifest.pages.map(\.id), "the manifest keeps input order")
        #expect(mergedManifest.pages == wholeManifest.pages, "every entry whole, its review flag too")
        #expect(wholeManifest.pages.allSatisfy { $0.suspect != nil }, "the pages were measured for review")
        for query in ["staff", "\"new engineers\"", "qu*", "the NOT page", "oranges OR march"] {
            let one = try Self.search(scratch.path + "/whole", query).results, both = try Self.search(merged, query).results
            #expect(one.map(\.source) == both.map(\.source) && one.map(\.page) == both.map(\.page), "\(query)")
            #expect(one.map { $0.hits?.map(\.text) } == both.map { $0.hits?.map(\.text) }, "\(query)")
        }
        for entry in mergedManifest.pages {
            for file in entry.outputs.values { #expect(FileManager.default.fileExists(atPath: merged + "/" + file), "\(file)") }
        }
        let search = try String(contentsOfFile: merged + "/data/search-0000.js", encoding: .utf8)
        #expect(search == (try String(contentsOfFile: scratch.path + "/whole/data/search-0000.js", encoding: .utf8)))

        let again = try Gloss.run(["merge"] + shards + ["-o", merged, "-q"])
        #expect(again.status == 0)
        #expect(try Self.contents(of: merged) == Self.contents(of: scratch.path + "/whole"), "merging twice is merging once")
        #expect(try BatchIndex(folder: merged, create: false).integrityProblems().isEmpty)

        // A shard run into a folder holding every page (the shards' count changed): it keeps
        // them all, and with --prune only its own share, which it does not read again.
        for (prune, expected) in [(false, wholeManifest.pages.map(\.id)),
                                  (true, try BatchTests.manifest(shards[0]).pages.map(\.id))] {
            let folder = scratch.path + "/resharded-\(prune)"
            try FileManager.default.copyItem(atPath: scratch.path + "/whole", toPath: folder)
            let run = try Gloss.run(["annotate", input, "-o", folder, "--no-faces", "-q", "--shard", "0/3"] + (prune ? ["--prune"] : []))
            #expect(run.status == 0, "\(run.standardError)")
            #expect(try BatchTests.manifest(folder).pages.map(\.id).sorted() == expected.sorted(), "prune: \(prune)")
        }
    }

    @Test func searchesWhileTheBatchWritesSeeEachPageWholeOrNotAtAll() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        // Twelve pages, one at a time: enough that a search started after the first page (a
        // process of its own, slow to start under a sanitizer) still finds the batch writing.
        _ = try BatchTests.copies(into: scratch.path + "/in", count: 12)
        let batch = try Gloss.start(["annotate", scratch.path + "/in", "-o", output, "--jobs", "1", "--no-faces"])
        var counts: [Int] = []
        while batch.isRunning {
            if FileManager.default.fileExists(atPath: output + "/" + BatchIndex.fileName) {
                let run = try Gloss.run(["search", output, "harbour", "--json", "--limit", "100"])
                #expect(run.status == 0 || run.status == 1, "\(run.standardError)")
                if run.status == 0 {
                    let results = try JSONDecoder().decode(Output.self, from: Data(run.standardOutput.utf8)).results
                    #expect(results.allSatisfy { $0.hits?.count == 1 }, "a page is seen whole")
                    counts.append(results.count)
                }
            }
            usleep(100_000)
        }
        #expect(batch.terminationStatus == 0)
        #expect(counts.contains { $0 > 0 && $0 < 12 }, "some searches ran while the batch wrote: \(counts)")
        #expect(counts == counts.sorted(), "pages only ever appear: \(counts)")
        #expect(try Self.search(output, "harbour").results.count == 12)
    }

    /// A merge's exit status is annotate's: 1 when a page of the merged batch was not read.
    @Test func aMergedBatchWithAPageNotReadExitsOne() throws {
        let scratch = try ScratchFolder()
        let inputs = scratch.path + "/in"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: inputs + "/sans.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: inputs + "/broken.png"))
        let shard = try Gloss.run(["annotate", inputs, "-o", scratch.path + "/a", "--no-faces", "-q"])
        #expect(shard.status == 1, "\(shard.standardError)")
        let merge = try Gloss.run(["merge", scratch.path + "/a", "-o", scratch.path + "/m"])
        #expect(merge.status == 1 && merge.standardError.contains("1 not read"), "\(merge.standardError)")
    }

    @Test func shardsAreRefusedWhenTheyWereReadWithOtherSettings() throws {
        let scratch = try ScratchFolder()
        let input = Fixtures.path("text/sans.png")
        _ = try Gloss.run(["annotate", input, "-o", scratch.path + "/a", "--no-faces", "-q"])
        _ = try Gloss.run(["annotate", input, "-o", scratch.path + "/b", "--no-faces", "-q", "--psm", "6"])
        let merge = try Gloss.run(["merge", scratch.path + "/a", scratch.path + "/b", "-o", scratch.path + "/m"])
        #expect(merge.status == 1)
        #expect(merge.standardError.contains("/b: cannot merge: was read with other settings"), "\(merge.standardError)")
    }

    /// Overwrites the first page of the words table: the re-run and the manifest read on, only
    /// the search and the pages' words meet the damage.
    static func damageWords(in folder: String) throws {
        let (page, size) = try {
            let statement = try BatchIndex(folder: folder, create: false).database.prepare(
                "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_schema WHERE name = 'words'",
                operation: "test")
            _ = try statement.step()
            return (statement.int(0), statement.int(1))
        }()
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/" + BatchIndex.fileName))
        try file.seek(toOffset: UInt64((page - 1) * size))
        try file.write(contentsOf: Data(repeating: 0xA5, count: size))
        try file.close()
    }

    @Test func aDamagedDatabaseIsRebuiltFromThePageJSONAndSearchSaysWhatIsWrong() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out", database = output + "/" + BatchIndex.fileName
        let annotate = ["annotate", Fixtures.path("text/sans.png"), Fixtures.path("text/two-pages.tif"), "-o", output,
                        "--no-faces", "-q"]
        #expect(try Gloss.run(annotate).status == 0)
        try Self.damageWords(in: output)

        let broken = try Gloss.run(["search", output, "staff"])
        #expect(broken.status == 2, "not 1, which says nothing matched")
        #expect(broken.standardError.split(separator: "\n").count == 1, "\(broken.standardError)")
        #expect(broken.standardError.hasPrefix("gloss: \(database): ") && broken.standardError.contains("malformed"),
                "\(broken.standardError)")

        let again = try Gloss.run(annotate)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardError.hasPrefix("gloss: \(database) was damaged ("), "\(again.standardError)")
        #expect(again.standardError.hasSuffix("); rebuilt it from 3 page JSON files\n"), "\(again.standardError)")
        #expect(try Self.search(output, "staff").results.map(\.page) == [2])
        #expect(try BatchIndex(folder: output, create: false).integrityProblems().isEmpty)

        try Data("not a database".utf8).write(to: URL(fileURLWithPath: database))
        let forced = try Gloss.run(annotate + ["--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(forced.standardError.contains("(file is not a database); rebuilt it from 3 page JSON files"))
        #expect(try Self.search(output, "staff").results.map(\.page) == [2])

        try Data().write(to: URL(fileURLWithPath: database))
        let empty = try Gloss.run(["search", output, "staff"])
        #expect(empty.status == 2 && empty.standardError.contains("empty (0 bytes)"), "\(empty.standardError)")
        #expect(try Gloss.run(annotate).standardError.contains("(the file is empty (0 bytes)); rebuilt it"))
        #expect(try Self.search(output, "staff").results.map(\.page) == [2])

        let missing = try Gloss.run(["search", scratch.path + "/elsewhere", "staff"])
        #expect(missing.status == 2 && missing.standardError.contains("elsewhere"), "\(missing.standardError)")
    }

    @Test func aQueryOfTooManyTermsIsRefusedAndRepeatsAreSearchedOnce() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        #expect(try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), "-o", output, "--no-faces", "-q"]).status == 0)
        let repeated = try Gloss.run(["search", output, Array(repeating: "staff", count: 20_000).joined(separator: " ")])
        #expect(repeated.status == 0)
        #expect(repeated.standardOutput == (try Gloss.run(["search", output, "staff"]).standardOutput))
        let many = try Gloss.run(["search", output, (1...65).map { "w\($0)" }.joined(separator: " ")])
        #expect(many.status == 2)
        #expect(many.standardError.hasPrefix("gloss: invalid query \"w1 w2 "), "\(many.standardError)")
        #expect(many.standardError.hasSuffix(": it looks for 65 terms (words, phrases, prefixes); at most 64 are allowed\n"))
    }

    @Test func aWrongShardIsAUsageError() throws {
        for arguments in [["--shard", "3/3"], ["--shard", "x"], ["--shard", "auto"], ["--shard-count", "2"]] {
            let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", "/tmp/unused"] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.standardError)")
        }
    }
}

/// A finished batch copied to media that cannot be written, as archives keep them.
@Suite(.serialized)
struct ReadOnlyBatchTests {
    @Test(.enabled(if: FullDiskTests.canMount, "a read-only bind mount needs root"))
    func aBatchOnReadOnlyMediaCanStillBeSearched() throws {
        let scratch = try ScratchFolder()
        let source = scratch.path + "/source", view = scratch.path + "/view"
        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), Fixtures.path("text/two-pages.tif"), "-o",
                                 source + "/out", "--no-faces", "-q"])
        #expect(run.status == 0, "\(run.standardError)")
        try FileManager.default.createDirectory(atPath: view, withIntermediateDirectories: true)
        #expect(try FullDiskTests.command("/bin/mount", ["--bind", source, view]) == 0)
        defer { _ = try? FullDiskTests.command("/bin/umount", [view]) }
        #expect(try FullDiskTests.command("/bin/mount", ["-o", "remount,ro,bind", view]) == 0)

        let found = try IndexedBatchTests.search(view + "/out", "staff")
        #expect(found.status == 0)
        #expect(found.results.map(\.page) == [2])
        #expect(found.results.first?.hits?.map(\.text) == ["staff"])
    }
}
