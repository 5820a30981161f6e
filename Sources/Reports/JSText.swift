import GlossGeometry

/// JavaScript string literals that are safe wherever a script can sit.
///
/// Besides quotes and backslashes, `<`, `>` and `&` become `\u` escapes so `</script>` or
/// `<!--` in a scan can never end or change a script element, and U+2028/U+2029 (line breaks
/// to older JavaScript) and every control character are escaped too. The result is also valid
/// JSON.
enum JSText {
    static func literal(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "<", ">", "&", "'", "\u{2028}", "\u{2029}", "\u{0}"..."\u{1F}", "\u{7F}":
                out += "\\u" + HexText.format(scalar.value, digits: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JavaScript array literal of string literals.
    static func array(_ items: [String]) -> String { "[" + items.map(literal).joined(separator: ",") + "]" }
}
