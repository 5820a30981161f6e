import Foundation
import GlossContract
import GlossTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A cluster's shards carry each input's document (its searchable PDF and whole text, in
/// `documents/`) into the merged batch, named as one run over every input names them; and a
/// shard's documents are no more trusted than its pages.
@Suite(.serialized)
struct MergedDocumentsTests {
    /// Four inputs in two folders, two of them with one file name: `letters/page.png` and
    /// `maps/page.png`. A shard is chosen by the hash of an input's path below the folder named,
    /// which puts each folder's two files in one shard of two, the folders in different shards:
    /// each shard alone has one folder's files, and would call its `page.png` just that.
    private static func inputs(in scratch: ScratchFolder) throws -> String {
        let root = scratch.path + "/inputs"
        for (folder, name, fixture) in [("letters", "page.png", "text/sans.png"), ("maps", "page.png", "text/few-words.png"),
                                        ("letters", "mono.png", "text/mono.png"), ("maps", "serif.png", "text/serif.png")] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: root + "/" + folder + "/" + name)
        }
        return root
    }

    private static func annotate(_ inputs: String, into folder: String, shard: String? = nil) throws {
        let run = try Gloss.run(["annotate", inputs, "-o", folder, "--no-faces", "-q", "--jobs", "1", "--text", "fast",
                                 "--format", "json,txt,pdf"] + (shard.map { ["--shard", $0] } ?? []))
        #expect(run.status == 0, "\(run.standardError)")
    }

    @Test func shardsMergeIntoTheDocumentsOfOneRun() throws {
        let scratch = try ScratchFolder()
        let inputs = try Self.inputs(in: scratch)
        try Self.annotate(inputs, into: scratch.path + "/whole")
        try Self.annotate(inputs, into: scratch.path + "/s0", shard: "0/2")
        try Self.annotate(inputs, into: scratch.path + "/s1", shard: "1/2")
        // Each shard read one folder, so that the merge joins two shards. documents.
        let sources = try ["s0", "s1"].map { try Set(BatchTests.manifest(scratch.path + "/" + $0).pages.map(\.source)) }
        #expect(sources == [[inputs + "/letters/mono.png", inputs + "/letters/page.png"],
                            [inputs + "/maps/page.png", inputs + "/maps/serif.png"]], "\(sources)")

        let merge = try Gloss.run(["merge", scratch.path + "/s0", scratch.path + "/s1", "-o", scratch.path + "/merged", "-q"])
        #expect(merge.status == 0, "\(merge.standardError)")
        let whole = SmallShards.files(below: scratch.path + "/whole/documents")
        #expect(whole == ["letters/mono.png.pdf", "letters/mono.png.txt", "letters/page.png.pdf", "letters/page.png.txt",
                          "maps/page.png.pdf", "maps/page.png.txt", "maps/serif.png.pdf", "maps/serif.png.txt"], "\(whole)")
        #expect(SmallShards.files(below: scratch.path + "/merged/documents") == whole)
        for text in whole where text.hasSuffix(".txt") {
            #expect(try String(contentsOfFile: scratch.path + "/merged/documents/" + text, encoding: .utf8)
                    == String(contentsOfFile: scratch.path + "/whole/documents/" + text, encoding: .utf8), "\(text)")
        }
        // The merged manifest names them, and merging a shard again changes nothing.
        let named = Set(try BatchTests.manifest(scratch.path + "/merged").pages.flatMap { [$0.outputs["document"], $0.outputs["documentText"]] }
            .compactMap { $0 })
        #expect(named == Set(whole.map { "documents/" + $0 }))
        let again = try Gloss.run(["merge", scratch.path + "/s1", "-o", scratch.path + "/merged", "-q"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(SmallShards.files(below: scratch.path + "/merged/documents") == whole)
    }

    /// A shard whose `documents/` folder is a link to a folder outside it: refused, nothing read through it.
    @Test func aDocumentsFolderThatIsALinkIsRefused() throws {
        let scratch = try ScratchFolder()
        let shard = scratch.path + "/shard"
        try Self.annotate(Fixtures.path("text/sans.png"), into: shard)
        let outside = scratch.path + "/outside"
        try FileManager.default.moveItem(atPath: shard + "/documents", toPath: outside)
        try "root:SECRET-HASH:19000::::::\n".write(toFile: outside + "/sans.png.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: shard + "/documents", withDestinationPath: outside)

        let merge = try Gloss.run(["merge", shard, "-o", scratch.path + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shard): cannot merge: documents/, on the way to documents/sans.png"),
                "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/merged/documents"))
    }

    /// Only a document's files may lie outside `pages/`, and only below `documents/`.
    @Test(arguments: [("html", "documents/sans.html"), ("documentText", "documents/../pages/x.txt"),
                      ("documentText", "pages/sans.txt"), ("document", "documents//sans.pdf")])
    func aFileOutsideItsFolderIsRefused(key: String, path: String) throws {
        let scratch = try ScratchFolder()
        let shard = try SmallShards.copy(SmallShards.sans, to: scratch.path + "/shard")
        try SmallShards.setOutput(key, to: path, in: shard)
        try FileManager.default.createDirectory(atPath: shard + "/documents", withIntermediateDirectories: true)
        try "x".write(toFile: shard + "/documents/sans.html", atomically: true, encoding: .utf8)

        let merge = try Gloss.run(["merge", shard, "-o", scratch.path + "/merged"])
        #expect(merge.status == 1, "\(merge.standardError)")
        #expect(merge.standardError.contains("\(shard): cannot merge: ") && merge.standardError.contains(path.debugDescription),
                "\(merge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/merged/index.html"))
    }
}
