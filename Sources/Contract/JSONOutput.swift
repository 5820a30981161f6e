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
