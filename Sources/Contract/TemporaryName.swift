#if canImport(Glibc)
import Glibc
#endif

/// The names Gloss gives the files it writes before renaming them into place, and the test
/// that tells them from anyone else's: `<name>.<kind>-gloss-<pid>-<16 hex digits>`. A killed run
/// leaves such files behind and the next run removes them, so the pattern is one no person
/// writes by chance (`notes.tmp-2024-05` is a reader's file, kept).
public enum TemporaryName {
    /// The kinds of temporary file: a file being written, and a PDF's text layer.
    public static let kinds = ["tmp", "tmp-layer"]

    /// A name beside `path` no other writer picks: this process's, with a random part.
    public static func beside(_ path: String, kind: String = "tmp") -> String {
        precondition(kinds.contains(kind), "a temporary file's kind is one of \(kinds)")
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return path + ".\(kind)-gloss-\(getpid())-" + String(repeating: "0", count: 16 - random.count) + random
    }

    /// Whether `name` (a file's last component) is one `beside` makes.
    public static func isTemporary(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 3] == "gloss" else { return false }
        let random = parts[parts.count - 1], pid = parts[parts.count - 2]
        guard random.count == 16, random.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              !pid.isEmpty, pid.utf8.allSatisfy({ (48...57).contains($0) }) else { return false }
        let head = parts.dropLast(3).joined(separator: "-")
        return kinds.contains { head.hasSuffix("." + $0) && head.count > $0.count + 1 }
    }
}
