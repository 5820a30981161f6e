/// Text from outside Gloss (file names, URLs, the errors that quote them, search snippets) made
/// safe to print on a terminal or into a log.
enum TerminalText {
    /// `text` with every character that could end a line, move the cursor, recolour or reorder
    /// what follows shown as an escape instead: C0 and C1 controls and DEL as `\xHH`, the line
    /// and paragraph separators and the bidirectional overrides as `\u{HHHH}`.
    static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            result += scalar.value < 0x100
                ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                : "\\u{" + hex + "}"
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
