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

    /// The columns `text` takes on a terminal: two for a wide character (CJK, Hangul, full-width
    /// forms, emoji shown as pictures), none for a mark that joins the one before (a grapheme
    /// cluster counts as its first scalar), one otherwise. The East Asian Width ranges wcwidth
    /// gives two columns.
    static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return scalar.properties.generalCategory == .nonspacingMark ? 0 : 1
        }
    }

    /// The longest start of `text` that takes at most `columns` columns.
    static func prefix(_ text: String, columns limit: Int) -> String {
        var used = 0, end = text.startIndex
        for index in text.indices {
            used += columns(of: text[index])
            if used > limit { break }
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// The longest end of `text` that takes at most `columns` columns.
    static func suffix(_ text: String, columns limit: Int) -> String {
        var used = 0, start = text.endIndex
        for index in text.indices.reversed() {
            used += columns(of: text[index])
            if used > limit { break }
            start = index
        }
        return String(text[start...])
    }
}
