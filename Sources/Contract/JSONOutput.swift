import Foundation

/// JSON as Gloss writes it: keys sorted for stable output, slashes unescaped, and independent of
/// the locale (Foundation's encoder never uses it).
public enum JSONOutput {
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

extension JSONOutput {
    /// Why JSON did not decode, in a person's words: the place in the document (`corrections[2].word`)
    /// and what was wrong there, not the decoder's type names.
    public static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func place(_ path: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = path + (last.map { [$0] } ?? [])
            guard !keys.isEmpty else { return "the top level" }
            return keys.enumerated().map { offset, key in
                key.intValue.map { "[\($0)]" } ?? (offset == 0 ? key.stringValue : "." + key.stringValue)
            }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(place(context.codingPath, key)) is missing"
        case .valueNotFound(_, let context): return "\(place(context.codingPath)) is null"
        case .typeMismatch(let type, let context): return "\(place(context.codingPath)) is not \(Self.kind(of: type))"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            let said = underlying ?? context.debugDescription
            return context.codingPath.isEmpty ? said : "\(place(context.codingPath)): \(said)"
        @unknown default: return "\(error)"
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
