import Foundation
import GlossContract
import GlossIndex
import GlossPipeline
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// No run can hurt another: one writer per batch folder, a batch never read as input, a
/// stopped `--force` run that keeps the earlier pages, and printed lines a file name cannot forge.
@Suite(.serialized)
struct FolderSafetyTests {
    /// A folder of `count` copies of a text fixture, each a page of about a second.
    static func inputFolder(_ path: String, count: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for number in 0..<count {
            try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: path + "/page-\(number).png")
        }
    }

    /// Waits until `condition` holds, for at most `seconds`.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test func aSecondRunOnABusyFolderStopsAtOnceNamingTheFirstAndWaitsWhenAsked() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try Self.inputFolder(scratch.path + "/a", count: 4)
        let first = try Gloss.start(["annotate", scratch.path + "/a", "-o", output, "--no-faces", "--jobs", "1"])
        defer { if first.isRunning { first.terminate() } }
        #expect(Self.waitUntil(seconds: 30) { FolderLock.isHeld(output) })

        let second = try Gloss.run(["annotate", Fixtures.path("text/serif.png"), "-o", output, "--no-faces"])
        #expect(second.status == 2)
        #expect(second.standardError.contains("(pid \(first.processIdentifier)) is writing this folder"), "\(second.standardError)")
        #expect(first.isRunning, "the refused run stopped at once")

        let waiting = try Gloss.run(["annotate", scratch.path + "/a", "-o", output, "--no-faces", "--wait", "-q"])
        #expect(!first.isRunning, "the waiting run ran after the first had ended")
        first.waitUntilExit()
        #expect(first.terminationStatus == 0 && waiting.status == 0, "\(waiting.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.count == 4 && manifest.pages.allSatisfy { $0.status == .ok })
        #expect(try BatchIndex(folder: output, create: false).pages().count == 4)
    }

    /// Two attempts of one shard overlapping (a requeued Slurm task, a replaced pod): the second
    /// waits for the first and then has the folder; stopped while it waits, it says so.
    @Test func aWaitingAttemptGetsTheFolderWhenTheFirstLetsGoAndSaysSoWhenStoppedBefore() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.path
        var first: FolderLock? = try await FolderLock.acquire(folder)
        await #expect(throws: FolderLockError.self) { _ = try await FolderLock.acquire(folder) }
        let stopped = Task { try await FolderLock.acquire(folder, waiting: true) }
        stopped.cancel()
        do {
            _ = try await stopped.value
            Issue.record("a cancelled wait took a held lock")
        } catch let error as FolderLockError {
            #expect(error.stoppedWaiting && error.holder == getpid())
            #expect(error.description.hasSuffix("stopped while waiting for another gloss (pid \(getpid())), which is writing this folder; nothing was read"))
        }
        let second = Task { try await FolderLock.acquire(folder, waiting: true) }
        #expect(first != nil && FolderLock.isHeld(folder))
        first = nil
        let taken = try await second.value
        #expect(FolderLock.isHeld(folder))
        withExtendedLifetime(taken) {}
    }

    /// A merge reads a shard under a shared lock: no run starts writing it meanwhile, and a
    /// shard a run writes is not read.
    @Test func aFolderReadWholeCannotBeWrittenMeanwhile() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.path
        var writer: FolderLock? = try await FolderLock.acquire(folder)
        #expect(throws: FolderLockError.self, "a folder being written is not read") { _ = try FolderLock.reading(folder) }
        writer = nil
        var reader = try FolderLock.reading(folder)
        #expect(reader != nil)
        await #expect(throws: FolderLockError.self) { _ = try await FolderLock.acquire(folder) }
        #expect(try FolderLock.reading(folder) != nil, "two readers share it")
        reader = nil
        let again = try await FolderLock.acquire(folder)
        withExtendedLifetime((writer, reader, again)) {}
        // Without a lock file (a copy of a shard), the folder is read without one.
        let bare = scratch.path + "/copy"
        try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
        #expect(try FolderLock.reading(bare) == nil)
    }

    @Test func aRunKilledWhileHoldingTheFolderLeavesNoStaleLock() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        try Self.inputFolder(scratch.path + "/a", count: 3)
        let first = try Gloss.start(["annotate", scratch.path + "/a", "-o", output, "--no-faces", "--jobs", "1"])
        #expect(Self.waitUntil(seconds: 30) { FolderLock.isHeld(output) })
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(!FolderLock.isHeld(output))
        let again = try Gloss.run(["annotate", scratch.path + "/a", "-o", output, "--no-faces", "-q"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try BatchTests.manifest(output).pages.count == 3)
    }

    @Test func anOutputFolderInsideTheInputFolderIsNeverReadAsInput() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in"
        try Self.inputFolder(input, count: 2)
        for run in 1...3 {
            let result = try Gloss.run(["annotate", input, "-o", input + "/out", "--no-faces"])
            #expect(result.status == 0, "\(result.standardError)")
            let manifest = try BatchTests.manifest(input + "/out")
            #expect(manifest.pages.count == 2, "run \(run): \(manifest.pages.map(\.source))")
            let notices = result.standardError.split(separator: "\n").filter { $0.contains("holds a Gloss batch") }
            #expect(notices.count == 1, "said once: \(result.standardError)")
        }
        // Another batch below an input folder is skipped as well, and said once.
        let other = try Gloss.run(["annotate", input, "-o", scratch.path + "/elsewhere", "--no-faces"])
        #expect(other.standardError.contains("in/out holds a Gloss batch"), "\(other.standardError)")
        #expect(try BatchTests.manifest(scratch.path + "/elsewhere").pages.count == 2)
    }

    @Test func aFileNameCannotForgeALineOnStandardError() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let forged = "x\n\u{1B}[31mgloss: ok fake.png: 999 words\u{1B}[0m\u{202E}.png"
        try FileManager.default.copyItem(atPath: Fixtures.path("text/mono.png"), toPath: input + "/" + forged)
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: input + "/y\r\nforged line.png"))

        let run = try Gloss.run(["annotate", input, "-o", scratch.path + "/out", "--no-faces"])
        #expect(run.status == 1)
        #expect(!run.standardError.unicodeScalars.contains { $0.value == 0x1B || $0 == "\r" || $0.value == 0x202E })
        let lines = run.standardError.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("gloss: ok fake.png") || $0.hasPrefix("forged line") }, "\(run.standardError)")
        #expect(lines.contains { $0.contains("x\\x0A\\x1B[31mgloss: ok fake.png") }, "\(run.standardError)")
        #expect(lines.contains { $0.contains("y\\x0D\\x0Aforged line.png") }, "\(run.standardError)")
    }

    @Test func aForceRunStoppedPartWayKeepsTheEarlierPagesListed() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try Self.inputFolder(input, count: 4)
        // With the inputs' documents (txt), so a stop also meets the step that writes them.
        let formats = ["--format", "html,json,txt"]
        let first = try Gloss.run(["annotate", input, "-o", output, "--no-faces", "-q"] + formats)
        #expect(first.status == 0, "\(first.standardError)")
        let before = try BatchTests.manifest(output)

        let forced = try Gloss.start(["annotate", input, "-o", output, "--no-faces", "--force", "--jobs", "1"] + formats)
        // Stopped (Ctrl-C) once it has read its first page again.
        #expect(Self.waitUntil(seconds: 30) {
            ((try? String(contentsOfFile: output + "/gloss.journal", encoding: .utf8)) ?? "").contains("\n")
        })
        kill(forced.processIdentifier, SIGINT)
        forced.waitUntilExit()
        #expect(forced.terminationStatus == 130)
        let after = try BatchTests.manifest(output)
        #expect(after.pages.map(\.id) == before.pages.map(\.id))
        #expect(after.pages.allSatisfy { $0.status == .ok }, "a stop is no failure: \(after.pages.map(\.status))")
        for entry in after.pages {
            for file in entry.outputs.values where !file.hasPrefix("documents/") {
                #expect(FileManager.default.fileExists(atPath: output + "/" + file), "\(file)")
            }
        }
        // The index says what the manifest says: a page stopped part-way replaced no row.
        let index = try BatchIndex(folder: output, create: false)
        for entry in after.pages { #expect(try index.status(ofPage: entry.id) == "ok", "\(entry.id)") }

        // Nothing is read again: every page is still finished, and every document is there.
        let resumed = try Gloss.run(["annotate", input, "-o", output, "--no-faces"] + formats)
        #expect(resumed.status == 0)
        #expect(!resumed.standardError.contains("gloss: ok "), "\(resumed.standardError)")
        for entry in try BatchTests.manifest(output).pages {
            #expect(FileManager.default.fileExists(atPath: output + "/" + (entry.outputs["documentText"] ?? "")), "\(entry.id)")
        }
    }

    @Test func aPrunedRunWithOtherInputsLeavesOnlyItsOwnPagesFiles() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        let first = try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), Fixtures.path("text/sans.png"), "-o", output,
                                   "--no-faces", "-q", "--format", "json,hocr"])
        #expect(first.status == 0, "\(first.standardError)")
        let second = try Gloss.run(["annotate", Fixtures.path("text/sans.png"), "-o", output, "--no-faces", "-q",
                                    "--format", "json,hocr", "--prune"])
        #expect(second.status == 0, "\(second.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.count == 1)
        let listed = Set(manifest.pages.flatMap(\.outputs.values).map { ($0 as NSString).lastPathComponent })
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: output + "/pages"))
        #expect(present == listed)

        // A multi-page file's combined hOCR is kept with its pages.
        let third = try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), "-o", output, "--no-faces", "-q",
                                   "--format", "json,hocr", "--prune"])
        #expect(third.status == 0)
        let combined = pageIdentifier(source: Fixtures.path("text/two-pages.tif"), pageIndex: 0, pageCount: 1) + ".hocr"
        #expect(FileManager.default.fileExists(atPath: output + "/pages/" + combined))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output + "/pages").count == 5)
    }
}

/// `gloss merge` checks every shard before it writes anything, and never reports pages it did
/// not merge.
@Suite(.serialized)
struct MergeSafetyTests {
    /// Two shards of the text fixtures, read once for the whole suite.
    static let shards: [String] = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-merge-shards-\(getpid())").path
        atexit { try? FileManager.default.removeItem(atPath: FileManager.default.temporaryDirectory.appendingPathComponent("gloss-merge-shards-\(getpid())").path) }
        return (0..<2).map { shard in
            let folder = root + "/shard\(shard)"
            if !FileManager.default.fileExists(atPath: folder + "/gloss.json") {
                _ = try? Gloss.run(["annotate", Fixtures.path("text"), "-o", folder, "--no-faces", "-q", "--shard", "\(shard)/2"])
            }
            return folder
        }
    }()

    /// A copy of the shards to damage.
    static func copies(in scratch: ScratchFolder) throws -> [String] {
        try shards.enumerated().map { number, shard in
            let copy = scratch.path + "/shard\(number)"
            try FileManager.default.copyItem(atPath: shard, toPath: copy)
            return copy
        }
    }

    /// Every file of `folder` and its bytes.
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
            }
        }
        return files
    }

    @Test(arguments: ["empty", "damaged", "no manifest", "missing page file", "stopped", "killed"])
    func aBrokenShardIsRefusedAndTheOutputIsLeftAsItWas(damage: String) throws {
        let scratch = try ScratchFolder()
        let shards = try Self.copies(in: scratch)
        let output = scratch.path + "/merged"
        // The output already holds the first shard, merged before.
        let earlier = try Gloss.run(["merge", shards[0], "-o", output, "-q"])
        #expect(earlier.status == 0, "\(earlier.standardError)")
        let before = try Self.snapshot(output)

        let broken = shards[1]
        switch damage {
        case "empty":
            try Data().write(to: URL(fileURLWithPath: broken + "/gloss.sqlite"))
        case "damaged":
            // Every page of the file after its header overwritten: SQLite's own check fails.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: broken + "/gloss.sqlite"))
            try handle.seek(toOffset: 4096)
            handle.write(Data(repeating: 0x5A, count: 16_384))
            try handle.close()
        case "no manifest":
            try FileManager.default.removeItem(atPath: broken + "/gloss.json")
        case "stopped":
            // As a run stopped by SIGTERM writes it: two inputs it never started.
            var manifest = try BatchTests.manifest(broken)
            manifest.notStarted = 2
            try Data(try JSONOutput.encode(manifest)).write(to: URL(fileURLWithPath: broken + "/gloss.json"))
        case "killed":
            // A run killed with SIGKILL leaves its journal (and a manifest written while it ran).
            try Data().write(to: URL(fileURLWithPath: broken + "/gloss.journal"))
        default:
            let entry = try BatchTests.manifest(broken).pages[0]
            try FileManager.default.removeItem(atPath: broken + "/" + entry.outputs["json"]!)
        }
        let merge = try Gloss.run(["merge", shards[0], broken, "-o", output])
        #expect(merge.status == 1)
        #expect(merge.standardError.hasPrefix("gloss: \(broken): cannot merge: "), "\(merge.standardError)")
        #expect(merge.standardError.split(separator: "\n").count == 1, "\(merge.standardError)")
        #expect(try Self.snapshot(output).keys.sorted() == before.keys.sorted())
        #expect(try Self.snapshot(output).filter { $0.key != "gloss.lock" } == before.filter { $0.key != "gloss.lock" })
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".merging-") }
        #expect(leftovers.isEmpty)
    }

    @Test func theCountReportedIsTheCountMerged() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/merged"
        let merge = try Gloss.run(["merge"] + Self.shards + ["-o", output])
        #expect(merge.status == 0, "\(merge.standardError)")
        let expected = try Self.shards.map { try BatchTests.manifest($0).pages.count }.reduce(0, +)
        #expect(merge.standardError.hasPrefix("gloss: \(expected) pages from 2 shards"), "\(merge.standardError)")
        #expect(try BatchIndex(folder: output, create: false).pages().count == expected)
    }

    @Test func aFolderHoldingOtherFilesIsNotMergedInto() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/mine"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output + "/notes.txt"))
        let merge = try Gloss.run(["merge"] + Self.shards + ["-o", output])
        #expect(merge.status == 1)
        #expect(merge.standardError.contains("\(output): cannot merge: is not a Gloss batch and is not empty (it holds notes.txt)"),
                "\(merge.standardError)")
        #expect(try String(contentsOfFile: output + "/notes.txt", encoding: .utf8) == "keep me")
    }

    @Test(.enabled(if: FullDiskTests.canMount, "mounting a read-only tmpfs needs root"))
    func aShardOnAReadOnlyMountMerges() throws {
        let scratch = try ScratchFolder()
        let mount = scratch.path + "/mount"
        #expect(FullDiskTests.mountSmallDisk(at: mount))
        defer { _ = try? FullDiskTests.command("/bin/umount", [mount]) }
        _ = try FullDiskTests.command("/bin/mount", ["-o", "remount,size=8m", mount])
        try FileManager.default.copyItem(atPath: Self.shards[1], toPath: mount + "/shard1")
        #expect(try FullDiskTests.command("/bin/mount", ["-o", "remount,ro", mount]) == 0)

        let merge = try Gloss.run(["merge", Self.shards[0], mount + "/shard1", "-o", scratch.path + "/merged", "-q"])
        #expect(merge.status == 0, "\(merge.standardError)")
        let expected = try Self.shards.map { try BatchTests.manifest($0).pages.count }.reduce(0, +)
        #expect(try BatchTests.manifest(scratch.path + "/merged").pages.count == expected)
    }
}

/// Every line `gloss search` prints is one line, whatever the names and words it quotes.
struct SearchOutputTests {
    @Test func aSourceNameCannotForgeASearchResultLine() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"),
                                        toPath: input + "/a\n\u{1B}[2Kforged.png, page 9\u{1B}[0m.png")
        let run = try Gloss.run(["annotate", input, "-o", scratch.path + "/out", "--no-faces", "-q"])
        #expect(run.status == 0, "\(run.standardError)")
        let search = try Gloss.run(["search", scratch.path + "/out", "quick"])
        #expect(search.status == 0, "\(search.standardError)")
        #expect(!search.standardOutput.unicodeScalars.contains { $0.value == 0x1B })
        let lines = search.standardOutput.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("forged") || $0.hasPrefix("\u{1B}") }, "\(search.standardOutput)")
        #expect(lines.first?.contains("/in/a\\x0A\\x1B[2Kforged.png, page 9\\x1B[0m.png, page 1") == true, "\(search.standardOutput)")
    }
}
