import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An output folder that already holds files and is not a Gloss batch (no `gloss.json`, no
/// `gloss.lock`): a project folder, a web site, a folder of scans. A run or a merge into it
/// would mix its files with Gloss's and take some of them for its own (`pages/`, `iiif/`,
/// `index.html`), so it is refused before anything is written there.
public struct ForeignFolderError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    /// A few of the names it holds, sorted, to show.
    public var names: [String]
    /// How many names it holds.
    public var count: Int

    /// Why the folder is refused, without its name.
    public var reason: String {
        let shown = names.joined(separator: ", ") + (count > names.count ? " and \(count - names.count) more" : "")
        return "is not a Gloss batch and is not empty (it holds \(shown)); write into a new or empty folder, or into an earlier batch"
    }

    public var description: String { "\(folder): \(reason)" }

    /// The refusal of `folder` as the output of a run or a merge: nil when it does not exist,
    /// cannot be listed (writing there says why), is empty, or holds a Gloss batch.
    static func checking(_ folder: String) -> ForeignFolderError? {
        guard !InputCollector.holdsBatch(folder), let stream = opendir(folder) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard bytes != [0x2E], bytes != [0x2E, 0x2E] else { continue }
            names.append(String(decoding: bytes, as: UTF8.self))
        }
        guard !names.isEmpty else { return nil }
        return ForeignFolderError(folder: folder, names: Array(names.sorted().prefix(3)), count: names.count)
    }
}
