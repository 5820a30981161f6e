import Foundation
import GlossContract
import GlossPipeline
import GlossReports
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A batch over everything broken and odd at once, as an archive's worst folder: every broken
/// file gets exactly one line naming it and what is wrong, nothing else reaches stderr, the
/// good pages complete, and the report lists the failures.
@Suite(.serialized)
struct HostileBatchTests {
    /// The line each broken input must produce (a fragment of it), by file name.
    static let expected: [String: String] = [
        "bomb.png": "above the limit of 150000000 (see --max-pixels)",
        "empty.png": "file is empty",
        "not-an-image.png": "not an image in a supported format",
        "random-bytes.png": "not an image in a supported format",
        "text-named.jpg": "not an image in a supported format",
        "truncated-after-header.png": "the PNG header is cut short or damaged",
        "truncated-at-20.tif": "the TIFF header is cut short or damaged",
        "truncated.gif": "the GIF header is cut short or damaged",
        "truncated.png": "libpng: read beyond end of data",
        "truncated-at-90.png": "libpng: read beyond end of data",
        "truncated-at-5.jpg": "Premature end of JPEG file",
        "truncated-at-50.jpg": "Premature end of JPEG file",
        "truncated-at-95.jpg": "Premature end of JPEG file",
        "truncated.webp": "WebP: the data ends early",
        "broken-second-page.tif, page 2": "page 2's pixels cannot be read",
        "truncated-at-60.tif, page 2": "page 2's directory lies beyond the end of the file",
        "fifo.png": "not a regular file",
        "not-utf8-\\xFF.png": "its name is not valid UTF-8",
        "dangling.png": "No such file or directory",
        "encrypted.pdf": "encrypted: Gloss cannot read password-protected PDFs",
        "truncated.pdf": "PDF document is damaged",
        "garbage.pdf": "PDF document is damaged",
        "zero-pages.pdf": "the document has no pages",
        "million-pages.pdf": "the document has no pages",
        "huge-page.pdf": "image is 60000x60000 = 3600000000 pixels, above the limit of 150000000",
        "overflowing-page.pdf": "image is 12500000000x12500000000 pixels, above the limit of 150000000",
        "endless-page.pdf": "pixels, above the limit of 150000000",
        "image-bomb.pdf": "the page draws an image of 30000x30000 = 900000000 pixels, above the limit of 150000000",
        "page-tree-loop.pdf": "page 1 cannot be read from the page tree",
    ]

    /// Bad inputs this batch leaves to `HostilePDFTests`: a page that takes a minute to draw
    /// fails only under a timeout, which would bound every page here, one that fails once its
    /// renderer has filled the memory the default pixel limit allows (seconds), and a flood of
    /// operands that is read, in seconds, and whose memory is what is checked.
    static let elsewhere: Set<String> = ["many-operations.pdf", "deep-nesting.pdf", "operand-flood.pdf"]

    @Test func everyBrokenInputFailsAloneWithOneLineAndTheRestIsRead() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: input + "/nested", withIntermediateDirectories: true)
        for folder in ["bad", "odd"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder)) where !Self.elsewhere.contains(name) {
                try FileManager.default.copyItem(atPath: Fixtures.path(folder + "/" + name), toPath: input + "/" + name)
            }
        }
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: input + "/nested/good.png")
        // What a repository cannot hold: a FIFO, a folder with an image's name (walked, being a
        // folder), a name that is not UTF-8, a link to nothing, and links that make a loop.
        #expect(mkfifo(input + "/fifo.png", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: input + "/folder-named.png", withIntermediateDirectories: true)
        let rawName = Array((input + "/not-utf8-").utf8) + [0xFF] + Array(".png".utf8) + [0]
        let descriptor = rawName.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(symlink("nowhere.png", input + "/dangling.png") == 0)
        #expect(symlink("..", input + "/nested/up") == 0)
        #expect(symlink(input, input + "/nested/again") == 0)

        let good = input + "/nested/good.png"
        let run = try Gloss.run(["annotate", input, good, input + "/./nested/../nested/good.png", "-o", output,
                                 "--no-faces", "--jobs", "2"])
        #expect(run.status == 1)
        let lines = run.standardError.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.hasPrefix("gloss: ") }, "nothing but Gloss's own lines: \(lines.filter { !$0.hasPrefix("gloss: ") })")
        let failures = Gloss.problems(in: run.standardError).map(String.init)
        for (name, reason) in Self.expected {
            let mine = failures.filter { $0.contains("/" + name + ":") }
            #expect(mine.count == 1, "\(name): \(mine)")
            #expect(mine.first?.contains(reason) == true, "\(name): \(mine)")
        }
        #expect(failures.count == Self.expected.count, "one line per broken input: \(failures)")

        let manifest = try BatchTests.manifest(output)
        let failed = manifest.pages.filter { $0.status != .ok }
        #expect(failed.count == Self.expected.count)
        for entry in failed {
            #expect(entry.status == .failed && entry.error?.hasPrefix(entry.source) == true, "\(entry)")
        }
        let read = manifest.pages.filter { $0.status == .ok }.map { ($0.source as NSString).lastPathComponent }
        // The encrypted and the signed PDF are read (two pages each): only grafting refuses them.
        #expect(read.sorted() == ["broken-second-page.tif", "cmyk.jpg", "good.png", "grey-alpha.png", "one-by-100000.png",
                                  "one-pixel.png", "owner-encrypted.pdf", "owner-encrypted.pdf", "palette.png", "ppi-96.png",
                                  "ppi-none.png", "progressive.jpg", "signed.pdf", "signed.pdf", "sixteen-bit.png",
                                  "truncated-at-60.tif"])
        #expect(manifest.pages.filter { $0.source.hasSuffix("good.png") }.count == 1, "a file named three ways is read once")
        #expect(manifest.pages.filter { $0.words >= 40 }.count == 12, "the page reads through every unusual encoding")

        let index = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        for entry in failed {
            #expect(index.contains(HTML(escaping: (entry.source as NSString).lastPathComponent).rendered), "\(entry.source) is listed")
        }
    }
}

/// Output that cannot be written: a disk that fills up mid-batch.
@Suite(.serialized)
struct FullDiskTests {
    /// A 400 KB tmpfs, when this process may mount one (root on Linux); nil otherwise.
    static func mountSmallDisk(at folder: String) -> Bool {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try? Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=400k", "tmpfs", folder])) == 0
    }

    static func command(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-mount-probe-\(getpid())").path
        defer { _ = try? command("/bin/umount", [probe]); try? FileManager.default.removeItem(atPath: probe) }
        return mountSmallDisk(at: probe)
    }()

    @Test(.enabled(if: canMount, "mounting a small tmpfs needs root"))
    func aFullDiskFailsThePagesThatDoNotFitAndKeepsTheOthersWhole() throws {
        let scratch = try ScratchFolder()
        let disk = scratch.path + "/disk", output = disk + "/out"
        #expect(Self.mountSmallDisk(at: disk))
        defer { _ = try? Self.command("/bin/umount", [disk]) }
        _ = try BatchTests.copies(into: scratch.path + "/in")

        let full = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--jobs", "1", "--no-faces"])
        #expect(full.status == 1)
        let lines = full.standardError.split(separator: "\n")
        let written = lines.filter { $0.hasPrefix("gloss: ok ") }.count
        #expect(written >= 1 && written < 6, "\(full.standardError)")
        #expect(lines.filter { $0.contains("No space left on device") }.count >= 6 - written, "\(full.standardError)")
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) {
            #expect(!path.contains(".tmp-"), "leftover \(path)")
            if path.hasSuffix(".json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: output + "/" + path))
                #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(path) is whole")
            }
        }

        // With room again, the same command finishes the batch and keeps what was done.
        #expect(try Self.command("/bin/mount", ["-o", "remount,size=8m", disk]) == 0)
        let rerun = try Gloss.run(["annotate", scratch.path + "/in", "-o", output, "--jobs", "1", "--no-faces"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(try BatchTests.manifest(output).pages.map(\.status) == Array(repeating: .ok, count: 6))
        #expect(rerun.standardError.components(separatedBy: "gloss: ok ").count - 1 == 6 - written, "finished pages are kept")
    }
}
