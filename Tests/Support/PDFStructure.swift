import Foundation

/// A PDF's objects as `qpdf --json=2` shows them, streams with their raw bytes (no filter
/// undone), to check what a rewrite of the file kept: every stream's bytes, the annotations of
/// each page, the bookmarks.
public struct PDFStructure {
    /// Each object by its reference (`"obj:7 0 R"`): a stream's dictionary and bytes in base64, or a value.
    public let objects: [String: Any]
    public let path: String

    public init(_ path: String) throws {
        self.path = path
        let json = try Self.run("qpdf", ["--json=2", "--json-key=qpdf", "--json-stream-data=inline", "--decode-level=none", path])
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let parts = root?["qpdf"] as? [Any]
        objects = (parts?.count ?? 0) > 1 ? (parts?[1] as? [String: Any] ?? [:]) : [:]
    }

    /// Every stream's dictionary and raw bytes (base64), by reference.
    public var streams: [String: (dictionary: [String: Any], data: String)] {
        objects.compactMapValues { object in
            guard let stream = (object as? [String: Any])?["stream"] as? [String: Any] else { return nil }
            return (stream["dict"] as? [String: Any] ?? [:], stream["data"] as? String ?? "")
        }
    }

    /// The raw bytes (base64) of every stream but the file's own bookkeeping (object streams and
    /// cross-reference streams, which a writer makes anew).
    public var contentData: [String] {
        streams.values.filter { !["/ObjStm", "/XRef"].contains($0.dictionary["/Type"] as? String ?? "") }.map(\.data).sorted()
    }

    /// `contentData` but the XMP metadata streams: what a graft that makes the file PDF/A keeps
    /// (its metadata must describe the new file, so it is written anew).
    public var contentDataBesideMetadata: [String] {
        streams.values.filter { !["/ObjStm", "/XRef", "/Metadata"].contains($0.dictionary["/Type"] as? String ?? "") }
            .map(\.data).sorted()
    }

    /// The raw bytes (base64) of every image XObject, sorted.
    public var imageData: [String] {
        streams.values.filter { $0.dictionary["/Subtype"] as? String == "/Image" }.map(\.data).sorted()
    }

    /// The subtypes of every annotation of every page, sorted.
    public var annotationSubtypes: [String] {
        values.filter { $0["/Type"] as? String == "/Page" }.flatMap { page -> [String] in
            let list = page["/Annots"] as? [Any] ?? []
            return list.compactMap { item in
                let annotation = (item as? String).flatMap(value(of:)) ?? item as? [String: Any]
                return annotation?["/Subtype"] as? String
            }
        }.sorted()
    }

    /// The titles of the document's top-level bookmarks.
    public var bookmarkTitles: [String] {
        guard let catalog = values.first(where: { $0["/Type"] as? String == "/Catalog" }),
              let outlines = (catalog["/Outlines"] as? String).flatMap(value(of:)) else { return [] }
        var titles: [String] = []
        var item = (outlines["/First"] as? String).flatMap(value(of:))
        while let current = item, titles.count < 1000 {
            titles.append(current["/Title"] as? String ?? "")
            item = (current["/Next"] as? String).flatMap(value(of:))
        }
        return titles
    }

    /// Every dictionary that is an object's value (streams' dictionaries left out).
    private var values: [[String: Any]] {
        objects.values.compactMap { ($0 as? [String: Any])?["value"] as? [String: Any] }
    }

    private func value(of reference: String) -> [String: Any]? {
        (objects["obj:" + reference] as? [String: Any])?["value"] as? [String: Any]
    }

    /// Runs a tool from `PATH`; its standard output, or a thrown error with its standard error.
    public static func run(_ name: String, _ arguments: [String]) throws -> String {
        let run = try ProgramRun.run("/usr/bin/env", [name] + arguments)
        guard run.status == 0 else {
            throw ToolFailure(description: "\(name) \(arguments.joined(separator: " ")) exited \(run.status): " + run.standardError)
        }
        return run.standardOutput
    }

    public struct ToolFailure: Error, CustomStringConvertible {
        public var description: String
    }
}
