import Foundation
import GlossContract
@testable import GlossIndex
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Small shards for the merge tests, read once per suite and copied for each test to change.
enum SmallShards {
    /// A batch of one page of `fixture`, in every format the merge copies (IIIF included).
    static func read(_ fixture: String, into folder: String) throws {
        let run = try Gloss.run(["annotate", Fixtures.path(fixture), "-o", folder, "--no-faces", "-q", "--jobs", "1",
                                 "--format", "html,json,iiif", "--iiif-base", "https://archive.example/b/"])
        #expect(run.status == 0, "\(run.standardError)")
    }

    /// Made once for the test process, and removed when it exits.
    static let root: String = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-small-shards-\(getpid())").path
        atexit { try? FileManager.default.removeItem(atPath: SmallShards.root) }
        return root
    }()
    static let sans: String = {
        let folder = root + "/sans"
        if !FileManager.default.fileExists(atPath: folder + "/gloss.json") { try? read("text/sans.png", into: folder) }
        return folder
    }()
    static let fewWords: String = {
        let folder = root + "/few-words"
        if !FileManager.default.fileExists(atPath: folder + "/gloss.json") { try? read("text/few-words.png", into: folder) }
        return folder
    }()

    static func copy(_ shard: String, to folder: String) throws -> String {
        try FileManager.default.copyItem(atPath: shard, toPath: folder)
        return folder
    }

    /// Gives the page `id` of the batch in `folder` the id `new`, in its manifest and its index alike.
    static func rename(page id: String, to new: String, in folder: String) throws {
        let manifest = folder + "/gloss.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "\"\(id)\"", with: "\"\(new)\"").write(toFile: manifest, atomically: true, encoding: .utf8)
        try BatchIndex(folder: folder, create: false).database.prepare("UPDATE pages SET name = ? WHERE name = ?", operation: "test")
            .run([.text(new), .text(id)])
    }

    /// Sets the `html` output of every page of the batch in `folder`, in its manifest and its index alike.
    static func setHTML(_ path: String, in folder: String) throws {
        try setOutput("html", to: path, in: folder)
    }

    /// Sets the output `key` of every page of the batch in `folder`, in its manifest and its index alike.
    static func setOutput(_ key: String, to path: String, in folder: String) throws {
        var manifest = try BatchTests.manifest(folder)
        for index in manifest.pages.indices { manifest.pages[index].outputs[key] = path }
        try Data(try JSONOutput.encode(manifest)).write(to: URL(fileURLWithPath: folder + "/gloss.json"))
        try BatchIndex(folder: folder, create: false).database.prepare(
            "UPDATE pages SET outputs = json_set(outputs, ?, ?)", operation: "test").run([.text("$." + key), .text(path)])
    }

    /// Every regular file below `folder`, as paths relative to it.
    static func files(below folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            var info = stat()
            return lstat(folder + "/" + $0, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
        }.sorted()
    }
}

/// Case 2 of issue 26: page ids that cannot collide in practice, and a collision that cannot
/// pass silently, in a batch or in a merge.
@Suite(.serialized)
struct PageIdentityTests {
    @Test func theIssuesPairGetsTwoIdsAndABatchKeepsBothPages() throws {
        #expect(pageIdentifier(source: "in/vol18780/page.png", pageIndex: 0, pageCount: 1)
                != pageIdentifier(source: "in/vol100044/page.png", pageIndex: 0, pageCount: 1))
        let scratch = try ScratchFolder()
        for volume in ["vol18780", "vol100044"] {
            try FileManager.default.createDirectory(atPath: scratch.path + "/in/" + volume, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.path("text/few-words.png"), toPath: scratch.path + "/in/\(volume)/page.png")
        }
        // Relative paths, as the issue gave them: the sources are `in/vol18780/page.png` and `in/vol100044/page.png`.
        func annotate() throws -> Gloss.Run {
            try Gloss.run("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" annotate in -o out --no-faces --jobs 1 --format html,json --text fast",
                                      "sh", scratch.path, Gloss.executable])
        }
        let first = try annotate()
        #expect(first.status == 0, "\(first.standardError)")
        let manifest = try BatchTests.manifest(scratch.path + "/out")
        #expect(Set(manifest.pages.map(\.source)) == ["in/vol18780/page.png", "in/vol100044/page.png"])
        #expect(Set(manifest.pages.map(\.id)).count == 2)
        #expect(try BatchIndex(folder: scratch.path + "/out", create: false).pages().count == 2, "the database holds both")

        let second = try annotate()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains("2 skipped"), "resume skips both: \(second.standardError)")
    }

    @Test func aPageOfAnEarlierIdIsReadOnceMoreThenSkipped() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let arguments = ["annotate", Fixtures.path("text/few-words.png"), "-o", output, "--no-faces", "--jobs", "1",
                         "--format", "html,json"]
        #expect(try Gloss.run(arguments).status == 0)
        let id = try #require(try BatchTests.manifest(output).pages.first?.id)
        // As an earlier Gloss named it: the stem and 32 bits.
        try SmallShards.rename(page: id, to: "few-words-5e402f6f", in: output)

        let again = try Gloss.run(arguments)
        #expect(again.status == 0 && again.standardError.contains("1 page read, 0 failed"), "\(again.standardError)")
        #expect(try BatchTests.manifest(output).pages.map(\.id) == [id])
        #expect(try BatchIndex(folder: output, create: false).pages().map(\.name) == [id])
        let third = try Gloss.run(arguments)
        #expect(third.status == 0 && third.standardError.contains("0 pages read, 1 skipped"), "\(third.standardError)")
    }

    @Test func aPageWhoseIdAnotherSourceHoldsFailsAndReplacesNothing() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out", input = Fixtures.path("text/few-words.png")
        let first = try Gloss.run(["annotate", input, "-o", output, "--no-faces", "-q", "--jobs", "1", "--format", "html,json"])
        #expect(first.status == 0, "\(first.standardError)")
        let id = try #require(try BatchTests.manifest(output).pages.first?.id)
        // Forced: the database says another source holds the id this input gets.
        try BatchIndex(folder: output, create: false).database.prepare("UPDATE inputs SET path = ?", operation: "test")
            .run([.text("/elsewhere/other.png")])
        let json = try Data(contentsOf: URL(fileURLWithPath: output + "/pages/\(id).json"))

        let again = try Gloss.run(["annotate", input, "-o", output, "--no-faces", "--jobs", "1", "--format", "html,json", "--force"])
        #expect(again.status == 1, "the page failed: \(again.standardError)")
        let entry = try #require(try BatchTests.manifest(output).pages.first { $0.source == input })
        #expect(entry.status == .failed)
        #expect(entry.error?.contains("/elsewhere/other.png") == true && entry.error?.contains(input) == true
                && entry.error?.contains(id) == true, "\(entry.error ?? "")")
        #expect(try BatchIndex(folder: output, create: false).pages().map(\.source) == ["/elsewhere/other.png"],
                "the database keeps the other source's page")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output + "/pages/\(id).json")) == json, "its files are not rewritten")
    }

    @Test func twoSourcesWithOneIdAreRefusedByAMergeNamingBoth() throws {
        let scratch = try ScratchFolder()
        let a = try SmallShards.copy(SmallShards.sans, to: scratch.path + "/a")
        let b = try SmallShards.copy(SmallShards.fewWords, to: scratch.path + "/b")
        let taken = try #require(try BatchTests.manifest(a).pages.first?.id)
        try SmallShards.rename(page: try #require(try BatchTests.manifest(b).pages.first?.id), to: taken, in: b)

        let merge = try Gloss.run(["merge", a, b, "-o", scratch.path + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(b): cannot merge: ") && merge.standardError.contains(taken)
                && merge.standardError.contains(Fixtures.path("text/sans.png"))
                && merge.standardError.contains(Fixtures.path("text/few-words.png")), "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/merged/gloss.json"))
    }

    /// Two shards each name their inputs' documents from what they alone know: two files of one
    /// name in two folders, read by two shards, both take `documents/sans.png.txt`. The merge
    /// refuses them, naming both inputs, where one document silently replaced the other.
    @Test func twoInputsWithOneDocumentAreRefusedByAMergeNamingBoth() throws {
        let scratch = try ScratchFolder()
        var shards: [String] = [], sources: [String] = []
        for folder in ["east", "west"] {
            let source = scratch.path + "/\(folder)/sans.png"
            try FileManager.default.createDirectory(atPath: scratch.path + "/\(folder)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: source)
            let shard = scratch.path + "/shard-\(folder)"
            let run = try Gloss.run(["annotate", source, "-o", shard, "--no-faces", "-q", "--text", "fast", "--format", "json,txt"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(try BatchTests.manifest(shard).pages.first?.outputs["documentText"] == "documents/sans.png.txt")
            shards.append(shard)
            sources.append(source)
        }
        let merge = try Gloss.run(["merge"] + shards + ["-o", scratch.path + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shards[1]): cannot merge: its documents/sans.png.txt is of \(sources[1])")
                && merge.standardError.contains(sources[0]), "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/merged/gloss.json"))
    }
}

/// Cases 7 and 8 of issue 26: a shard names its pages and files, and nothing it names is
/// trusted: no id or path leads outside, no link is followed, nothing unlisted is copied.
@Suite(.serialized)
struct ShardTrustTests {
    @Test func aShardWithAHostileIdIsRefusedAndNothingIsWrittenOutside() throws {
        let scratch = try ScratchFolder()
        let deep = scratch.path + "/a/b"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let shard = try SmallShards.copy(SmallShards.sans, to: deep + "/shard")
        try SmallShards.rename(page: try #require(try BatchTests.manifest(shard).pages.first?.id), to: "../../x", in: shard)
        // The shard's own folder aside: opening its database for reading may leave SQLite's files there.
        func outside() -> [String] { SmallShards.files(below: scratch.path).filter { !$0.hasPrefix("a/b/shard/") } }
        let before = outside()

        let merge = try Gloss.run(["merge", shard, "-o", deep + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shard): cannot merge: ") && merge.standardError.contains("\"../../x\""),
                "\(merge.standardError)")
        #expect(outside() == before, "nothing is written anywhere")
    }

    @Test func aShardWhosePageFileIsASymbolicLinkIsRefusedAndNothingCopied() throws {
        let scratch = try ScratchFolder()
        try merging(aLinkedShardIn: scratch, into: scratch.path + "/merged")
    }

    @Test(.enabled(if: FullDiskTests.canMount, "mounting a tmpfs as the output needs root"))
    func aLinkIsNotReadAcrossFileSystemsEither() throws {
        let scratch = try ScratchFolder()
        let mount = scratch.path + "/mount"
        #expect(FullDiskTests.mountSmallDisk(at: mount))
        defer { _ = try? FullDiskTests.command("/bin/umount", [mount]) }
        try merging(aLinkedShardIn: scratch, into: mount + "/merged")
        #expect(SmallShards.files(below: mount).isEmpty, "\(SmallShards.files(below: mount))")
    }

    /// A shard whose page JSON is a link to a secret file, merged into `output`: refused, and
    /// the secret nowhere in the output.
    private func merging(aLinkedShardIn scratch: ScratchFolder, into output: String) throws {
        let shard = try SmallShards.copy(SmallShards.sans, to: scratch.path + "/shard")
        let secret = scratch.path + "/shadow"
        try "root:SECRET-HASH:19000::::::\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let json = try #require(try BatchTests.manifest(shard).pages.first?.outputs["json"])
        try FileManager.default.removeItem(atPath: shard + "/" + json)
        try FileManager.default.createSymbolicLink(atPath: shard + "/" + json, withDestinationPath: secret)

        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shard): cannot merge: \(json) is a symbolic link"), "\(merge.standardError)")
        for file in SmallShards.files(below: (output as NSString).deletingLastPathComponent)
        where !file.hasPrefix("shard/") && file != "shadow" {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: (output as NSString).deletingLastPathComponent + "/" + file))) ?? Data()
            #expect(!String(decoding: bytes, as: UTF8.self).contains("SECRET-HASH"), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: output + "/" + json))
    }

    @Test func aFileTheShardDoesNotListIsNotCopied() throws {
        let scratch = try ScratchFolder()
        let shard = try SmallShards.copy(SmallShards.sans, to: scratch.path + "/shard")
        try "not a page\n".write(toFile: shard + "/pages/NOTES.txt", atomically: true, encoding: .utf8)
        try "{}".write(toFile: shard + "/pages/stranger.json", atomically: true, encoding: .utf8)

        let merge = try Gloss.run(["merge", shard, "-o", scratch.path + "/merged", "-q"])
        #expect(merge.status == 0, "\(merge.standardError)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/merged/pages")
        #expect(!pages.contains("NOTES.txt") && !pages.contains("stranger.json"), "\(pages)")
        let listed = Set(try BatchTests.manifest(shard).pages.flatMap(\.outputs.values).map { ($0 as NSString).lastPathComponent })
        #expect(Set(pages) == listed, "the listed files are all there")
    }

    /// A guard for the rule above: the combined documents of a multi-page file are named by its
    /// pages' ids, not listed, and are still taken.
    @Test func aMultiPageFilesCombinedDocumentsAreTaken() throws {
        let scratch = try ScratchFolder()
        let shard = scratch.path + "/shard"
        let run = try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), "-o", shard, "--no-faces", "-q", "--jobs", "1",
                                 "--format", "hocr,alto,json"])
        #expect(run.status == 0, "\(run.standardError)")
        let merge = try Gloss.run(["merge", shard, "-o", scratch.path + "/merged", "-q"])
        #expect(merge.status == 0, "\(merge.standardError)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: shard + "/pages").sorted()
        #expect(pages.count == 8)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/merged/pages").sorted() == pages)
    }

    @Test(arguments: ["javascript:alert(document.domain)", "/etc/passwd", "../../outside.html", "https://evil.example/x.html"])
    func anOutputThatIsNotARelativePathIntoTheBatchIsRefused(path: String) throws {
        let scratch = try ScratchFolder()
        let shard = try SmallShards.copy(SmallShards.sans, to: scratch.path + "/shard")
        try SmallShards.setHTML(path, in: shard)
        // A file of that name, so that only the path itself is wrong.
        if !path.hasPrefix("/") && !path.hasPrefix("..") && !path.contains("//") {
            try "<p>x</p>".write(toFile: shard + "/" + path, atomically: true, encoding: .utf8)
        }

        let merge = try Gloss.run(["merge", shard, "-o", scratch.path + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shard): cannot merge: ") && merge.standardError.contains(path), "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/merged/index.html"))
    }

    @Test func theIndexMakesNoLinkOfAPathOutsideTheBatch() throws {
        let entry = BatchIndexView.Entry(source: "/scans/a.png", pageIndex: 0, status: .ok, error: nil, wordCount: 1,
                                         meanConfidence: 90, faceCount: 0, htmlPath: "javascript:alert(1)",
                                         imagePath: "/etc/passwd")
        let html = BatchIndexView(entries: [entry]).render()
        #expect(!html.contains("javascript:alert") && !html.contains("/etc/passwd"))
        let data = BatchData.files(for: [BatchPage(htmlPath: "javascript:alert(1)", title: "a")],
                                   searching: [SearchablePage(htmlPath: "javascript:alert(1)", title: "a", text: "t", terms: ["t"])])
        #expect(data.allSatisfy { !String(decoding: $0.bytes, as: UTF8.self).contains("javascript:") })
        // A document is named after its input's path, whatever its characters: linked, encoded,
        // when it lies below documents/, and not when it leaves it.
        func index(linking path: String) -> String {
            BatchIndexView(entries: [BatchIndexView.Entry(source: "/scans/a b.png", pageIndex: 0, status: .ok, error: nil, wordCount: 1,
                                                          meanConfidence: 90, faceCount: 0, htmlPath: "pages/a.html", imagePath: nil,
                                                          documentPath: path)]).render()
        }
        func documentLink(_ path: String) -> Bool { index(linking: path).contains("class=\"document\"") }
        #expect(index(linking: "documents/scan 01/café.png.pdf").contains("href=\"documents/scan%2001/caf%C3%A9.png.pdf\""))
        for outside in ["documents/../gloss.json", "/etc/passwd", "pages/a.pdf", "documents//x.pdf", "documents"] {
            #expect(!documentLink(outside), "\(outside)")
        }
    }
}
