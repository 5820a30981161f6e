/// Formats numbers for SVG, HTML and JSON the same way on every machine.
///
/// `String(format:)` follows the C locale once anything calls `setlocale`, and can then write
/// "1,50", which breaks SVG and JSON. This never looks at the locale.
public enum DecimalText {
    /// `value` with at most `digits` decimals and no trailing zeros: 12, 12.5, 0.25, -3.1.
    public static func format(_ value: Double, maximumFractionDigits digits: Int = 2) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Whole at this size; past Int64 (a damaged record's), Swift's own shortest form,
            // which reads the same everywhere ("1e+19").
            return abs(value) < 9.0e18 ? String(Int64(value.rounded())) : value.rounded().description
        }
        let units = Int64(scaled)
        let whole = units / Int64(scale)
        var fraction = units % Int64(scale)
        var fractionDigits = digits
        while fractionDigits > 0 && fraction % 10 == 0 {
            fraction /= 10
            fractionDigits -= 1
        }
        let sign = value < 0 && units != 0 ? "-" : ""
        guard fractionDigits > 0 else { return sign + String(whole) }
        let text = String(fraction)
        let padding = String(repeating: "0", count: fractionDigits - text.count)
        return sign + String(whole) + "." + padding + text
    }
}

/// Integers in hexadecimal, zero-padded to a fixed width: hashes, escapes, identifiers.
public enum HexText {
    public static func format<Value: BinaryInteger>(_ value: Value, digits: Int, uppercase: Bool = false) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
