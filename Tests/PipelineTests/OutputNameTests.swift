import Foundation
import GlossContract
import GlossPipeline
import Testing

/// Output names come from input names, which a batch does not choose: whatever a name holds,
/// the files it gives stay inside the output folder.
struct OutputNameTests {
    @Test(arguments: [
        "../../etc/passwd.png", "/etc/passwd", "..", ".", "...png", "a/../../b.png", "scans/.hidden.png",
        "http://example.org/iiif/../../../etc/page.png", "https://example.org/full/max/0/default.jpg?x=../y",
        "con.png", "name with spaces.png", "Zürich–Ansicht №5.png", "\u{202E}gnp.exe", "日本語の頁.tif",
        "line\nbreak.png", "tab\there.png", "nul\u{0}byte.png", String(repeating: "x", count: 400) + ".png",
        "<img src=x onerror=alert(1)>.png",
    ])
    func aPageNameCannotLeaveTheOutputFolder(source: String) throws {
        for (index, count) in [(0, 1), (2, 3)] {
            let name = pageIdentifier(source: source, pageIndex: index, pageCount: count)
            #expect(!name.isEmpty && name.count <= 48 + 17 + 4)
            #expect(name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) },
                    "\(name)")
            #expect(!name.hasPrefix("."), "\(name) is not hidden and is not . or ..")
            let folder = "/batch/pages"
            #expect(URL(fileURLWithPath: folder + "/" + name + ".json").standardizedFileURL.path.hasPrefix(folder + "/"))
        }
    }

    @Test func equalNamesInOtherFoldersGetOtherPageNames() {
        #expect(pageIdentifier(source: "box1/page.png", pageIndex: 0, pageCount: 1)
                != pageIdentifier(source: "box2/page.png", pageIndex: 0, pageCount: 1))
    }
}
