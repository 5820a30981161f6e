/// Why a cascade file could not be used.
///
/// Cascade files come from outside the program (a distribution package, a user's own training),
/// so every defect is reported as a value that names the file and the XML element at fault,
/// never as a crash: a caller can show it, skip the cascade, or fall back to another one.
public struct CascadeError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The file could not be read at all (missing, unreadable).
        case unreadable(String)
        /// The bytes are not well-formed XML (truncated, mismatched tags).
        case malformedXML(String)
        /// A required element is absent.
        case missingElement(String)
        /// An element holds a value that cannot be right (bad number, index out of range).
        case invalidValue(String)
        /// Well-formed, but a kind of cascade this evaluator does not run (old format, HOG).
        case unsupported(String)
    }

    /// The path (or name) the cascade was loaded from.
    public var file: String
    /// Slash-separated path of the element at fault, e.g.
    /// `opencv_storage/cascade/stages/_[3]/stageThreshold`.
    public var element: String
    public var reason: Reason

    public init(file: String, element: String, reason: Reason) {
        self.file = file
        self.element = element
        self.reason = reason
    }

    public var description: String {
        let what: String
        switch reason {
        case .unreadable(let s): what = "unreadable: \(s)"
        case .malformedXML(let s): what = "malformed XML: \(s)"
        case .missingElement(let s): what = "missing element <\(s)>"
        case .invalidValue(let s): what = "invalid value: \(s)"
        case .unsupported(let s): what = "unsupported: \(s)"
        }
        return "\(file): <\(element)>: \(what)"
    }
}
