import Foundation
import GlossContract
import GlossImaging
import GlossPipeline
import GlossTestSupport
import Testing

/// The kinds of input Gloss reads are one table (`ImageFormat`): what a folder walk takes, what
/// the decoder recognises and what may hold several pages all come from it.
@Suite(.serialized)
struct InputKindTests {
    @Test func theWalkTakesEveryKindTheDecoderReads() {
        #expect(InputCollector.imageExtensions == ImageFormat.fileExtensions)
        for format in ImageFormat.allCases {
            for fileExtension in format.kind.extensions {
                #expect(InputCollector.imageExtensions.contains(fileExtension))
                #expect(ImageFormat(fileExtension: fileExtension.uppercased()) == format)
            }
        }
        #expect(ImageFormat(fileExtension: "j2k") == .jp2 && ImageFormat(fileExtension: "jp2") == .jp2)
        #expect(ImageFormat.allCases.filter(\.kind.holdsPages) == [.tiff, .pdf])
        #expect(ImageFormat(fileExtension: "txt") == nil)
    }

    @Test func bothFormsOfJPEG2000AreDecoded() throws {
        let truth = try Fixtures.truth("formats/page.json")[0]
        for name in ["page.jp2", "page.j2k"] {
            let file = try ImageFile(contentsOf: Fixtures.path("formats/" + name))
            #expect(file.format == .jp2, "\(name)")
            let page = try file.decodePage()
            #expect(page.size.width == truth.width && page.size.height == truth.height, "\(name)")
        }
    }

    @Test func annotateReadsJPEG2000FromAFolder() throws {
        let scratch = try ScratchFolder()
        let input = scratch.path + "/in", output = scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["page.jp2", "page.j2k"] {
            try FileManager.default.copyItem(atPath: Fixtures.path("formats/" + name), toPath: input + "/" + name)
        }
        let run = try Gloss.run(["annotate", input, "-o", output, "--no-faces", "-q", "-j", "1"])
        #expect(run.status == 0, "\(run.standardError)")
        let manifest = try BatchTests.manifest(output)
        #expect(manifest.pages.map { ($0.source as NSString).lastPathComponent } == ["page.j2k", "page.jp2"])
        #expect(manifest.pages.allSatisfy { $0.status == .ok && $0.words >= 8 }, "\(manifest.pages)")
    }
}
