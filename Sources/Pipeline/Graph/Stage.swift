/// A step of the page graph, named in timings and errors: the graph's own steps, and one per
/// analyzer, named by the analyzer.
public struct Stage: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { self.rawValue = name }

    /// Downloading an `http(s)` input.
    public static let fetch = Stage("fetch")
    /// Reading the file and its header.
    public static let read = Stage("read")
    /// The SHA-256 of the input's bytes, which resume compares.
    public static let hash = Stage("hash")
    public static let decode = Stage("decode")
    /// Preparing the page for the analyzers (an identity step until preprocessing fills it).
    public static let prepare = Stage("prepare")
    /// Making the copies the analyzers and the page view ask for, each once.
    public static let copies = Stage("copies")
    /// Findings to page pixels: the one conversion.
    public static let convert = Stage("convert")
    /// Writing the page's files.
    public static let render = Stage("render")
    /// The hOCR and ALTO documents of all pages of a multi-page file.
    public static let combine = Stage("combine")

    public var description: String { rawValue }
}
