import Foundation
import GlossContract
@testable import GlossIndex
import GlossPipeline
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Gloss writes and removes only its own files: a folder that is not a batch is refused, a
/// file no record names is never touched, a run with other inputs adds to the batch (`--prune`
/// removes the rest, and says so), a folder that cannot be read keeps its pages, and a full
/// disk leaves records that say which one is behind and that the next run repairs.
@Suite(.serialized)
struct OwnFilesTests {
    /// The program run to its end in `directory`, as `cd directory && gloss ...`, by `user` if given.
    static func run(in directory: String, _ arguments: [String], as user: String? = nil) throws -> Gloss.Run {
        guard let user else { return try Gloss.run(Gloss.executable, arguments, in: directory) }
        return try Gloss.run("/usr/sbin/runuser", ["-u", user, "--", Gloss.executable] + Gloss.readingFast(arguments), in: directory)
    }

    /// Writes `text` to `path`, making its folder.
    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A copy of the one-second text page at `path`, making its folder.
    static func page(at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: path)
    }

    /// Every file below `folder`, relative to it, with its bytes.
    static func files(_ folder: String) throws -> [String: Data] {
        try MergeSafetyTests.snapshot(folder)
    }

    /// The page names the database holds, in its order.
    static func indexed(_ folder: String) throws -> [String] {
        try BatchIndex(folder: folder, create: false).pages().map(\.name)
    }

    static let annotate = ["--no-faces", "--jobs", "1"]

    // MARK: Case 1: a folder that is not a batch

    @Test func aFolderThatIsNotABatchIsRefused() throws {
        let scratch = try ScratchFolder()
        let project = scratch.path + "/project"
        try Self.page(at: project + "/pages/scan.png")
        try Self.write("my notes", to: project + "/pages/NOTES.txt")
        let before = try Self.files(project)

        let run = try Self.run(in: project, ["annotate", "pages", "-o", "."] + Self.annotate)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.hasPrefix("gloss: .: is not a Gloss batch and is not empty (it holds pages)"), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(try Self.files(project) == before, "nothing is written, nothing removed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: project) == ["pages"])
    }

    @Test func anInputFolderNamedIIIFIsNotTakenForTheBatchsOwn() throws {
        let scratch = try ScratchFolder()
        let project = scratch.path + "/project"
        try Self.page(at: project + "/iiif/scan.png")
        let refused = try Self.run(in: project, ["annotate", "iiif", "-o", "."] + Self.annotate)
        #expect(refused.status == 2, "\(refused.standardError)")
        #expect(refused.standardError.contains("is not a Gloss batch"), "\(refused.standardError)")
        #expect(FileManager.default.fileExists(atPath: project + "/iiif/scan.png"))

        // In a batch without the IIIF output, an iiif/ folder of scans is read and stays.
        let batch = scratch.path + "/batch"
        #expect(try Gloss.run(["annotate", Fixtures.path("text/mono.png"), "-o", batch] + Self.annotate).status == 0)
        try Self.page(at: batch + "/iiif/scan.png")
        let inside = try Self.run(in: batch, ["annotate", "iiif", "-o", "."] + Self.annotate)
        #expect(inside.status == 0, "\(inside.standardError)")
        #expect(FileManager.default.fileExists(atPath: batch + "/iiif/scan.png"), "the input folder is the user's")
        #expect(try BatchTests.manifest(batch).pages.map { ($0.source as NSString).lastPathComponent } == ["mono.png", "scan.png"])
    }

    @Test func aSiteFolderKeepsItsPagesItsIIIFAndItsIndex() throws {
        let scratch = try ScratchFolder()
        let site = scratch.path + "/site"
        try Self.write("<p>about</p>", to: site + "/pages/about.html")
        try Self.write("{\"type\": \"Collection\"}", to: site + "/iiif/collection/manifest.json")
        try Self.write("<h1>my site</h1>", to: site + "/index.html")
        let before = try Self.files(site)

        let run = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", site] + Self.annotate)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("\(site): is not a Gloss batch and is not empty (it holds iiif, index.html, pages)"),
                "\(run.standardError)")
        #expect(try Self.files(site) == before)
        #expect(!FileManager.default.fileExists(atPath: site + "/gloss.lock"))

        // merge refuses it the same way, for the same reason.
        #expect(try Gloss.run(["annotate", Fixtures.path("text/mono.png"), "-o", scratch.path + "/shard"] + Self.annotate).status == 0)
        let merge = try Gloss.run(["merge", scratch.path + "/shard", "-o", site])
        #expect(merge.standardError.contains("is not a Gloss batch and is not empty"), "\(merge.standardError)")
        #expect(try Self.files(site) == before)
    }

    /// Only the names Gloss gives its files before renaming them are taken for its leftovers:
    /// a reader's file with a date in its name is not one.
    @Test func onlyGlossTemporaryNamesAreTakenForItsOwn() {
        let made = TemporaryName.beside("/out/pages/first.json"), layer = TemporaryName.beside("/out/documents/a.pdf", kind: "tmp-layer")
        #expect(TemporaryName.isTemporary((made as NSString).lastPathComponent), "\(made)")
        #expect(TemporaryName.isTemporary((layer as NSString).lastPathComponent), "\(layer)")
        #expect(made.contains(".tmp-") && layer.contains(".tmp-"), "the tests' leftover checks look for .tmp-")
        for name in ["notes.tmp-2024-05", "first.json.tmp-4242-17", "a.tmp-gloss-12-00000000DEADBEEF", "a.tmp-gloss-12-deadbeef",
                     ".tmp-gloss-12-00000000deadbeef", "a.tmp-gloss--00000000deadbeef", "a.tmp-other-12-00000000deadbeef",
                     "a.txt-gloss-12-00000000deadbeef"] {
            #expect(!TemporaryName.isTemporary(name), "\(name)")
        }
        #expect(TemporaryName.isTemporary("a.tmp-gloss-12-00000000deadbeef"))
    }

    @Test func aFileNoRecordNamesIsNeverRemoved() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try Self.page(at: scratch.path + "/a/first.png")
        try Self.page(at: scratch.path + "/b/second.png")
        #expect(try Gloss.run(["annotate", scratch.path + "/a", "-o", output] + Self.annotate).status == 0)
        // Someone else's files beside Gloss's, one named as Gloss would name a page's.
        let strangers = ["NOTES.txt", "scan.png", "first-00000000.json", "cover.jpg", "notes.tmp-old.txt", "notes.tmp-2024-05",
                         "first.json.tmp-4242-17"]
        for name in strangers { try Self.write("mine", to: output + "/pages/" + name) }
        try Self.write("mine", to: output + "/iiif/annotations/notes.txt")
        // And what a killed run of Gloss's leaves, which goes.
        try Self.write("half", to: output + "/pages/first.json.tmp-gloss-4242-00000000deadbeef")

        let pruned = try Gloss.run(["annotate", scratch.path + "/b", "-o", output, "--prune"] + Self.annotate)
        #expect(pruned.status == 0, "\(pruned.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == ["second.png"])
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: output + "/pages"))
        let listed = Set(manifest.pages.flatMap(\.outputs.values).map { ($0 as NSString).lastPathComponent })
        #expect(present == listed.union(strangers), "the first page's files went, and only they")
        #expect(FileManager.default.fileExists(atPath: output + "/iiif/annotations/notes.txt"))
    }

    /// A batch of `a/first.png` in `out` and a shard of `b/second.png` in `shard`, in `scratch`.
    static func batchAndShard(in scratch: ScratchFolder) throws -> (output: String, shard: String) {
        let output = scratch.path + "/out", shard = scratch.path + "/shard"
        try page(at: scratch.path + "/a/first.png")
        try page(at: scratch.path + "/b/second.png")
        for (input, folder) in [("a", output), ("b", shard)] {
            let run = try Gloss.run(["annotate", scratch.path + "/" + input, "-o", folder] + annotate)
            #expect(run.status == 0, "\(run.standardError)")
        }
        return (output, shard)
    }

    /// A merge into a batch builds the merged batch beside it and puts it in the folder's
    /// place: what no record names (a reader's notes in `pages/` and `iiif/`, a folder of their
    /// own in `documents/`, a link) is carried into the new folder, not removed with the old.
    @Test func aMergeKeepsTheFilesNoRecordNames() throws {
        let scratch = try ScratchFolder()
        let (output, shard) = try Self.batchAndShard(in: scratch)
        let strangers = ["pages/NOTES.txt", "pages/notes.tmp-old.txt", "iiif/annotations/notes.txt", "documents/mine/list.txt"]
        for name in strangers { try Self.write("mine", to: output + "/" + name) }
        try FileManager.default.createSymbolicLink(atPath: output + "/pages/scans", withDestinationPath: scratch.path + "/a")

        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(try BatchTests.manifest(output).pages.map { ($0.source as NSString).lastPathComponent } == ["first.png", "second.png"])
        for name in strangers {
            #expect((try? String(contentsOfFile: output + "/" + name, encoding: .utf8)) == "mine", "\(name)")
        }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: output + "/pages/scans")) == scratch.path + "/a")
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/a/first.png"))
    }

    /// A reader's file where the merged batch makes a folder (`documents/one`, for a shard's
    /// input below `one/`): the merge is refused, and the file stays.
    @Test func aMergeThatWouldPutAFolderWhereAReadersFileIsIsRefused() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out", shard = scratch.path + "/shard"
        try Self.page(at: scratch.path + "/a/first.png")
        try Self.page(at: scratch.path + "/c/one/x.png")
        try Self.page(at: scratch.path + "/c/two/y.png")
        for (input, folder) in [("a", output), ("c", shard)] {
            let run = try Gloss.run(["annotate", scratch.path + "/" + input, "-o", folder, "--format", "json,txt"] + Self.annotate)
            #expect(run.status == 0, "\(run.standardError)")
        }
        try Self.write("mine", to: output + "/documents/one")
        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status != 0 && merge.standardError.contains("documents/one is where the merged batch writes a folder"),
                "\(merge.standardError)")
        #expect((try? String(contentsOfFile: output + "/documents/one", encoding: .utf8)) == "mine")
    }

    /// A batch whose index is gone lists its pages in `gloss.json` alone: a merge into it would
    /// drop them all, so it is refused and the folder left as it was.
    @Test func aMergeIntoABatchWithoutItsIndexIsRefused() throws {
        let scratch = try ScratchFolder()
        let (output, shard) = try Self.batchAndShard(in: scratch)
        try FileManager.default.removeItem(atPath: output + "/gloss.sqlite")
        // The lock file says who holds the folder; the merge held it too.
        let withoutLock = { (folder: String) in try Self.files(folder).filter { $0.key != FolderLock.fileName } }
        let before = try withoutLock(output)
        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status != 0 && merge.standardError.contains("without its index"), "\(merge.standardError)")
        #expect(try withoutLock(output) == before)
    }

    /// A merge killed between moving the batch aside and moving the merged one in leaves no
    /// output folder, the batch under `.out.replaced-PID`: the next merge puts it back and
    /// merges into it, where it would have swept it away as a leftover.
    @Test func aMergeAfterOneKilledMidSwapKeepsTheBatch() throws {
        let scratch = try ScratchFolder()
        let (output, shard) = try Self.batchAndShard(in: scratch)
        try FileManager.default.moveItem(atPath: output, toPath: scratch.path + "/.out.replaced-4242")

        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(try BatchTests.manifest(output).pages.map { ($0.source as NSString).lastPathComponent } == ["first.png", "second.png"])
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/.out.replaced-4242"))
    }

    /// The same, but the output folder made again before the next merge (an empty `mkdir`):
    /// the batch moved aside is then its only copy, so the merge is refused, naming it, and it
    /// stays. Once the output holds all of it (the merge was killed after its second rename),
    /// a merge sweeps it away.
    @Test func aBatchMovedAsideIsNeverSweptWhileTheOutputLacksItsFiles() throws {
        let scratch = try ScratchFolder()
        let (output, shard) = try Self.batchAndShard(in: scratch)
        let aside = scratch.path + "/.out.replaced-4242"
        try FileManager.default.moveItem(atPath: output, toPath: aside)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)

        let refused = try Gloss.run(["merge", shard, "-o", output])
        #expect(refused.status != 0, "\(refused.standardError)")
        #expect(refused.standardError.contains("\(aside): cannot merge: is a batch a killed merge moved aside"), "\(refused.standardError)")
        #expect(FileManager.default.fileExists(atPath: aside + "/gloss.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["gloss.lock"], "nothing but the merge's lock")

        try FileManager.default.removeItem(atPath: output)
        try FileManager.default.copyItem(atPath: aside, toPath: output)
        let merge = try Gloss.run(["merge", shard, "-o", output])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: aside), "the output holds all of it: swept")
    }

    // MARK: Case 4: a run with other inputs adds to the batch

    @Test func aSecondRunWithOtherInputsKeepsTheFirstBatch() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try Self.page(at: scratch.path + "/docs/letter.png")
        try FileManager.default.copyItem(atPath: Fixtures.path("text/two-pages.tif"), toPath: scratch.path + "/docs/minutes.tif")
        try FileManager.default.createDirectory(atPath: scratch.path + "/photos", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/mono.png"), toPath: scratch.path + "/photos/mono.png")
        let formats = ["--format", "html,json,hocr"]
        #expect(try Gloss.run(["annotate", scratch.path + "/docs", "-o", output] + formats + Self.annotate).status == 0)
        let first = try BatchTests.manifest(output).pages
        let firstFiles = try FileManager.default.contentsOfDirectory(atPath: output + "/pages")

        let second = try Gloss.run(["annotate", scratch.path + "/photos", "-o", output] + formats + Self.annotate)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(!second.standardError.contains("pruned"), "\(second.standardError)")
        let pages = try BatchTests.manifest(output).pages
        #expect(pages.map(\.id) == first.map(\.id) + [pageIdentifier(source: scratch.path + "/photos/mono.png", pageIndex: 0, pageCount: 1)],
                "the earlier pages first, as they were, then this run's")
        #expect(Array(pages.prefix(first.count)) == first)
        #expect(try Self.indexed(output) == pages.map(\.id), "the database holds the same pages in the same order")
        #expect(Set(firstFiles).isSubset(of: try FileManager.default.contentsOfDirectory(atPath: output + "/pages")),
                "their files, the combined hOCR too")
        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(index.contains("letter.png") && index.contains("minutes.tif") && index.contains("mono.png"))
        let search = try Gloss.run(["search", output, "harbour"])
        #expect(search.standardOutput.contains("letter.png"), "\(search.standardOutput)")
        let data = try String(contentsOfFile: output + "/data/search-0000.js", encoding: .utf8)
        #expect(data.contains("harbour"), "the report's search data keeps them too")
    }

    @Test func pruneRemovesThePagesOfInputsNoLongerNamedAndSaysHowMany() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: scratch.path + "/docs", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/two-pages.tif"), toPath: scratch.path + "/docs/minutes.tif")
        try Self.page(at: scratch.path + "/photos/letter.png")
        let formats = ["--format", "html,json,hocr"]
        #expect(try Gloss.run(["annotate", scratch.path + "/docs", "-o", output] + formats + Self.annotate).status == 0)
        #expect(try Gloss.run(["annotate", scratch.path + "/photos", "-o", output] + formats + Self.annotate).status == 0)
        #expect(try BatchTests.manifest(output).pages.count == 3)

        let pruned = try Gloss.run(["annotate", scratch.path + "/photos", "-o", output, "--prune", "-q"] + formats + Self.annotate)
        #expect(pruned.status == 0, "\(pruned.standardError)")
        #expect(pruned.standardError == "gloss: pruned 2 pages of inputs no longer named\n", "\(pruned.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == ["letter.png"])
        #expect(try Self.indexed(output) == manifest.pages.map(\.id))
        let listed = Set(manifest.pages.flatMap(\.outputs.values).map { ($0 as NSString).lastPathComponent })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: output + "/pages")) == listed,
                "the pruned pages' files went, the combined hOCR too")
        #expect(try Gloss.run(["search", output, "staff"]).status == 1, "their words are no longer found")

        let again = try Gloss.run(["annotate", scratch.path + "/photos", "-o", output, "--prune"] + formats + Self.annotate)
        #expect(!again.standardError.contains("pruned"), "nothing left to prune: \(again.standardError)")
    }

    @Test func aFolderWhosePagesChangeStillLosesTheFilesOfPagesItNoLongerHas() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out", input = scratch.path + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/two-pages.tif"), toPath: input + "/file.tif")
        #expect(try Gloss.run(["annotate", input, "-o", output, "--format", "json,hocr"] + Self.annotate).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output + "/pages").count == 5)

        // The same file now holds one page: the second page's files and the combined hOCR go.
        try FileManager.default.removeItem(atPath: input + "/file.tif")
        try FileManager.default.copyItem(atPath: Fixtures.path("text/rotated.tif"), toPath: input + "/file.tif")
        #expect(try Gloss.run(["annotate", input, "-o", output, "--format", "json,hocr"] + Self.annotate).status == 0)
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.count == 1)
        let listed = Set(manifest.pages.flatMap(\.outputs.values).map { ($0 as NSString).lastPathComponent })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: output + "/pages")) == listed)
    }

    // MARK: Case 3: a folder that cannot be read

    static let isRoot = getuid() == 0

    @Test(.enabled(if: isRoot, "making a folder unreadable to the run needs root, to run it as nobody"))
    func anUnreadableFolderIsAFailedInputAndKeepsItsEarlierPages() throws {
        let scratch = try ScratchFolder()
        #expect(chmod(scratch.path, 0o777) == 0)
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try Self.page(at: input + "/open/a.png")
        try Self.page(at: input + "/locked/b.png")
        let first = try Self.run(in: scratch.path, ["annotate", "in", "-o", "out"] + Self.annotate, as: "nobody")
        #expect(first.status == 0, "\(first.standardError)")
        let before = try BatchTests.manifest(output).pages
        #expect(before.count == 2)

        #expect(chmod(input + "/locked", 0o000) == 0)
        defer { chmod(input + "/locked", 0o755) }
        for options in [[], ["--prune"]] {
            let run = try Self.run(in: scratch.path, ["annotate", "in", "-o", "out"] + options + Self.annotate, as: "nobody")
            #expect(run.status == 1, "\(options): \(run.standardError)")
            #expect(run.standardError.contains("gloss: in/locked: cannot open the folder: Permission denied"), "\(run.standardError)")
            #expect(run.standardError.contains("1 failed"), "counted as failed: \(run.standardError)")
            #expect(!run.standardError.contains("pruned"), "\(run.standardError)")
            let pages = try BatchTests.manifest(output).pages
            let folder = try #require(pages.first { $0.source == "in/locked" })
            #expect(folder.status == .failed && folder.error?.contains("Permission denied") == true)
            let kept = try #require(pages.first { $0.source == "in/locked/b.png" }, "its earlier page is kept: \(pages.map(\.source))")
            #expect(kept == before.first { $0.source == "in/locked/b.png" })
            for file in kept.outputs.values { #expect(FileManager.default.fileExists(atPath: output + "/" + file), "\(file)") }
            #expect(try Self.indexed(output).contains(kept.id))
        }

        // Readable again: its pages are found again, and the failure is gone.
        #expect(chmod(input + "/locked", 0o755) == 0)
        let readable = try Self.run(in: scratch.path, ["annotate", "in", "-o", "out", "--prune"] + Self.annotate, as: "nobody")
        #expect(readable.status == 0, "\(readable.standardError)")
        let pages = try BatchTests.manifest(output).pages
        #expect(pages.map(\.source).sorted() == ["in/locked/b.png", "in/open/a.png"])
        #expect(pages.allSatisfy { $0.status == .ok })
        #expect(try Self.indexed(output).sorted() == pages.map(\.id).sorted())
    }

    // MARK: Case 6: a full disk

    /// Fills the file system of `folder` with `folder/filler` until `free` bytes are left.
    static func fill(_ folder: String, leaving free: Int) throws {
        var info = statvfs()
        #expect(statvfs(folder, &info) == 0)
        let available = Int(info.f_bavail) * Int(info.f_frsize)
        try Data(count: max(0, available - free)).write(to: URL(fileURLWithPath: folder + "/filler"))
    }

    /// With no room at all the database cannot be opened; with 112 KB the first page's files fit
    /// and its database row does not; with 240 KB two pages fit and the manifest does not.
    @Test(.enabled(if: FullDiskTests.canMount, "mounting a small tmpfs needs root"), arguments: [0, 112, 240])
    func aFullDiskSaysNoSpaceLeftAndTheNextRunRepairsEveryRecord(kilobytesFree: Int) throws {
        let scratch = try ScratchFolder()
        let disk = scratch.path + "/disk", output = disk + "/out"
        #expect(FullDiskTests.mountSmallDisk(at: disk))
        defer { _ = try? FullDiskTests.command("/bin/umount", [disk]) }
        #expect(try FullDiskTests.command("/bin/mount", ["-o", "remount,size=5m", disk]) == 0)
        _ = try BatchTests.copies(into: scratch.path + "/in", count: 3)
        // An earlier batch in the folder, so that the end of the run has records to bring up to date.
        #expect(try Gloss.run(["annotate", Fixtures.path("text/mono.png"), "-o", output] + Self.annotate).status == 0)
        try Self.fill(disk, leaving: kilobytesFree * 1024)

        let full = try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + Self.annotate)
        #expect(full.status == 1, "\(full.standardError)")
        #expect(full.standardError.contains("\(output)/") && full.standardError.contains("No space left on device"),
                "names the file and the cause: \(full.standardError)")
        #expect(!full.standardError.contains("disk I/O error") && !full.standardError.contains("disk is full"), "\(full.standardError)")
        // Reading the database needs room for its shared-memory file; what it holds stays as the run left it.
        try FileManager.default.removeItem(atPath: disk + "/filler")
        let listed = try BatchTests.manifest(output).pages.map(\.id)
        let indexed = try Self.indexed(output)
        if Set(listed) != Set(indexed) {
            #expect(full.standardError.contains(" behind "), "they disagree, and the run says so: \(full.standardError)")
        }
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) { #expect(!path.contains(".tmp-"), "leftover \(path)") }

        // With room again, the same command brings every record up to date.
        let rerun = try Gloss.run(["annotate", scratch.path + "/in", "-o", output] + Self.annotate)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let pages = try BatchTests.manifest(output).pages
        #expect(pages.count == 4 && pages.allSatisfy { $0.status == .ok }, "\(pages.map(\.status))")
        #expect(try Self.indexed(output) == pages.map(\.id), "the manifest and the database agree")
        #expect(try BatchIndex(folder: output, create: false).search("harbour").count == 3)
        #expect(!FileManager.default.fileExists(atPath: output + "/gloss.journal"))
    }
}
