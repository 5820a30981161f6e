import Foundation

/// Where the repository's fixtures are, wherever the tests are run from.
public enum Fixtures {
    public static let folder: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("fixtures").path
    }()

    public static func path(_ relative: String) -> String { folder + "/" + relative }

    /// The ground truth written by `fixtures/make-fixtures.py` for a text image.
    public struct Truth: Decodable, Sendable {
        public struct Word: Decodable, Sendable {
            public var text: String
            public var line: Int
            public var box: Box
        }

        public struct Box: Decodable, Sendable {
            public var x: Int
            public var y: Int
            public var width: Int
            public var height: Int
        }

        public var width: Int
        public var height: Int
        public var text: String
        public var words: [Word]
    }

    private struct PagedTruth: Decodable {
        var pages: [Truth]
    }

    /// The truth of every page of a fixture (`text/sans.json` has one, `text/two-pages.json` two).
    public static func truth(_ relative: String) throws -> [Truth] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(relative)))
        if let paged = try? JSONDecoder().decode(PagedTruth.self, from: data) { return paged.pages }
        return [try JSONDecoder().decode(Truth.self, from: data)]
    }
}

/// The share of characters of `expected` that `actual` gets right: 1 - edit distance / length,
/// with runs of white space folded to one space first.
public func characterAccuracy(_ actual: String, expected: String) -> Double {
    func fold(_ text: String) -> [Character] {
        Array(text.split(whereSeparator: \.isWhitespace).joined(separator: " "))
    }
    let a = fold(actual), b = fold(expected)
    guard !b.isEmpty else { return a.isEmpty ? 1 : 0 }
    var previous = Array(0...a.count)
    for (j, cb) in b.enumerated() {
        var current = [j + 1] + Array(repeating: 0, count: a.count)
        for (i, ca) in a.enumerated() {
            current[i + 1] = min(previous[i + 1] + 1, current[i] + 1, previous[i] + (ca == cb ? 0 : 1))
        }
        previous = current
    }
    return 1 - Double(previous[a.count]) / Double(b.count)
}
