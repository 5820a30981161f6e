import Foundation
import GlossContract

/// A file of the batch's shared data, at `path` relative to the batch folder.
public struct BatchFile: Sendable, Equatable {
    public var path: String
    public var bytes: [UInt8]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }
}

/// One readable page of a batch, as the pages' previous/next links see it.
public struct BatchPage: Sendable, Equatable {
    /// The page's HTML relative to the batch folder (`pages/<id>.html`).
    public var htmlPath: String
    public var title: String

    public init(htmlPath: String, title: String) {
        self.htmlPath = htmlPath
        self.title = title
    }
}

/// The data a batch's pages share, written under `data/` once every page is done:
///
/// - `data/pages.js`: the page order, read by each page view for its previous/next links;
/// - `data/search-NNNN.js`: every page the index can search, in shards of about `shardSize`
///   characters, loaded by the index only when someone searches, one `<script>` at a time (a
///   page opened from `file://` may not `fetch` its neighbours). Each shard says how many there
///   are. A page is `[htmlPath, title, text, terms]`, `terms` being the index's tokens joined by
///   spaces: the browser evaluates queries over the very tokens `gloss search` matches.
///
/// All strings are JavaScript literals escaped by `JSText`, so no text can break out of them.
public enum BatchData {
    public static let folder = "data"

    /// Whether `path` may become a link of the report: a relative path into the batch, of
    /// components made of the characters Gloss names files with (so no scheme such as
    /// `javascript:`, no `/` at the start, no `..`). A path from a shard that is not is never
    /// made a link.
    public static func isBatchLink(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        return components.allSatisfy { component in
            !component.isEmpty && !component.hasPrefix(".") && component.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            }
        }
    }

    /// Whether `path` may be linked as an input's document: a relative path below
    /// `documents/` whose parts are names (not empty, `.` or `..`). Documents are named after the
    /// inputs' own paths, so any other character is allowed; the link percent-encodes it
    /// (`PageLinks.url(ofRelativePath:)`).
    public static func isDocumentLink(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        return components.count >= 2 && components[0] == "documents"
            && components.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
    }

    public static func files(for pages: [BatchPage], searching searchable: [SearchablePage],
                             shardSize: Int = 1_000_000) -> [BatchFile] {
        let order = pages.filter { isBatchLink($0.htmlPath) }.map { "[" + JSText.literal($0.htmlPath) + "," + JSText.literal($0.title) + "]" }
        var files = [BatchFile(path: folder + "/pages.js",
                               bytes: Array(("window.glossPages = [\n" + order.joined(separator: ",\n") + "\n];\n").utf8))]

        var shards: [[String]] = [[]]
        var size = 0
        for page in searchable {
            if size > 0 && size + page.text.utf8.count > shardSize {
                shards.append([])
                size = 0
            }
            let html = page.htmlPath.flatMap { isBatchLink($0) ? JSText.literal($0) : nil } ?? "null"
            shards[shards.count - 1].append(
                "[" + html + "," + JSText.literal(page.title) + "," + JSText.literal(page.text) + ","
                    + JSText.literal(page.terms.joined(separator: " ")) + "]")
            size += page.text.utf8.count
        }
        for (index, entries) in shards.enumerated() {
            let body = "glossSearchShard(\(index), \(shards.count), [\n" + entries.joined(separator: ",\n") + "\n]);\n"
            files.append(BatchFile(path: folder + "/" + shardName(index), bytes: Array(body.utf8)))
        }
        return files
    }

    static func shardName(_ index: Int) -> String {
        let digits = String(index)
        return "search-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".js"
    }
}
