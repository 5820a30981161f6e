/// What an option takes after its name.
enum OptionKind: Equatable {
    /// Nothing: the option is there or not (`--force`).
    case flag
    /// One value, named in the help by its placeholder (`--output DIR`).
    case value(String)
    /// One value of `allowed` (`--faces cnn`).
    case choice(String, allowed: [String])
    /// Values joined by commas, each one of `allowed` (`--format html,json`); a value named in
    /// `whole` stands alone (`--prepare auto`).
    case list(String, allowed: [String], whole: [String] = [])

    /// The placeholder the help shows; nil for a flag.
    var placeholder: String? {
        switch self {
        case .flag: nil
        case .value(let name), .choice(let name, _), .list(let name, _, _): name
        }
    }

    /// Every value the option may take, as the help and the errors list them; empty when any is.
    var allowed: [String] {
        switch self {
        case .flag, .value: []
        case .choice(_, let allowed): allowed
        case .list(_, let allowed, let whole): whole + allowed
        }
    }
}

/// A command-line option a command accepts: declared once, as a value, and both the parser and
/// the help text are made from it.
struct OptionSpec {
    var long: String
    var short: Character?
    var kind: OptionKind
    var help: String
    /// The default as the help shows it, taken from the code's own default value; nil when the
    /// help names none.
    var defaultValue: String?

    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .flag, help: help)
    }

    static func option(_ long: String, short: Character? = nil, value: String, _ help: String,
                       default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .value(value), help: help, defaultValue: defaultValue)
    }

    static func choice(_ long: String, short: Character? = nil, value: String, of allowed: [String], _ help: String,
                       default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .choice(value, allowed: allowed), help: help, defaultValue: defaultValue)
    }

    static func list(_ long: String, short: Character? = nil, value: String, of allowed: [String], whole: [String] = [],
                     _ help: String, default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .list(value, allowed: allowed, whole: whole), help: help,
                   defaultValue: defaultValue)
    }

    /// What the value is, as an error names it: `--output needs a folder`.
    var valueNoun: String {
        guard let placeholder = kind.placeholder else { return "no value" }
        return Self.nouns[placeholder] ?? placeholder
    }

    private static let nouns = [
        "DIR": "a folder", "FILE": "a file", "N": "a number", "SECONDS": "a number of seconds", "BYTES": "a number of bytes",
        "URL": "a URL", "PPI": "a resolution", "PIXELS": "a number of pixels", "LANGS": "languages", "MODE": "a mode",
        "LIST": "a list", "STEPS": "steps", "DETECTOR": "a detector", "ENGINE": "an engine", "K/N": "a shard",
    ]

    /// Checks a value against `kind`'s allowed values.
    func check(_ value: String) throws {
        let allowed = kind.allowed
        guard !allowed.isEmpty else { return }
        switch kind {
        case .list(_, let items, let whole):
            if whole.contains(value) { return }
            let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let wrong = parts.first(where: { !items.contains($0.lowercased()) }) else { return }
            throw UsageError("--\(long) takes " + (whole.isEmpty ? "" : Self.alternatives(whole) + ", or ")
                             + "a comma-separated list of " + items.joined(separator: ", ") + "; '\(wrong)' is none of them")
        default:
            guard !allowed.contains(value) else { return }
            throw UsageError("--\(long) takes \(Self.alternatives(allowed)), not '\(value)'")
        }
    }

    /// `a, b or c`.
    static func alternatives(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// A wrong command line: says what is wrong, and the command exits with status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A command as it is declared: its usage line, what it does, and its options. Its parser and
/// its help are both made from this.
struct CommandSpec {
    var usage: String
    var summary: String
    var options: [OptionSpec]

    func parse(_ words: ArraySlice<String>) throws -> ParsedArguments {
        try ParsedArguments(words, options: options)
    }

    var help: String { helpText(usage: usage, summary: summary, options: options) }
}

/// The words of a command line sorted into options and operands.
struct ParsedArguments {
    var operands: [String] = []
    private var values: [String: [String]] = [:]

    func has(_ long: String) -> Bool { values[long] != nil }

    /// The last value given for an option (a later one overrides an earlier one).
    func value(_ long: String) -> String? { values[long]?.last }

    func integer(_ long: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(long) else { return nil }
        guard let number = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
            throw UsageError("--\(long) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// The units of a number of bytes, largest first: `500M`, `2G`.
    static let byteUnits: [(letter: Character, size: Int)] = [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]

    /// A number of bytes: digits, with an optional K, M or G for KiB, MiB or GiB (`500M`, `2G`).
    func byteCount(_ long: String) throws -> Int? {
        guard let text = value(long) else { return nil }
        let unit = text.last.flatMap { letter in Self.byteUnits.first { String($0.letter) == letter.uppercased() }?.size }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard let number = Int(digits), number > 0, number <= (1 << 40) / (unit ?? 1) else {
            throw UsageError("--\(long) takes a number of bytes, such as 500M or 2G, not '\(text)'")
        }
        return number * (unit ?? 1)
    }

    /// A number of bytes as `byteCount` reads it, in the largest unit that divides it: `2G`.
    static func byteText(_ count: Int) -> String {
        guard let unit = byteUnits.first(where: { count % $0.size == 0 }) else { return String(count) }
        return "\(count / unit.size)\(unit.letter)"
    }

    /// A positive number of seconds, as a duration.
    func seconds(_ long: String) throws -> Duration? {
        guard let text = value(long) else { return nil }
        guard let seconds = Double(text), seconds > 0, seconds < 1e6 else {
            throw UsageError("--\(long) takes a number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Sorts `words` by `options`: `--name value`, `--name=value`, `-n value`, `-nvalue`,
    /// packed flags (`-qo out`, `-qj2`), and operands; `--` ends the options, and `-` alone is
    /// an operand. A value that looks like an option is refused, so `--output --force` cannot
    /// write into a folder named `--force`; `--name=-value` gives one on purpose.
    init(_ words: ArraySlice<String>, options: [OptionSpec]) throws {
        var rest = words
        func take(_ spec: OptionSpec, inline: String?, as written: String) throws {
            if spec.kind == .flag {
                guard inline == nil else { throw UsageError("--\(spec.long) takes no value") }
                values[spec.long, default: []].append("")
                return
            }
            let value: String
            if let inline {
                value = inline
            } else if let next = rest.first {
                guard !Self.looksLikeOption(next) else {
                    let what = Self.spec(for: next, in: options) != nil ? "is an option" : "looks like an option"
                    throw UsageError("\(written) needs \(spec.valueNoun); \(next) \(what)"
                                     + (what == "is an option" ? "" : " (write --\(spec.long)=\(next) if it is the value)"))
                }
                value = next
                rest.removeFirst()
            } else {
                throw UsageError("\(written) needs \(spec.valueNoun) (\(spec.kind.placeholder!))")
            }
            try spec.check(value)
            values[spec.long, default: []].append(value)
        }
        while let word = rest.popFirst() {
            if word == "--" {
                operands += rest
                break
            }
            guard Self.looksLikeOption(word) else {
                operands.append(word)
                continue
            }
            if word.hasPrefix("--") {
                let (name, inline) = Self.split(word.dropFirst(2))
                guard let spec = options.first(where: { $0.long == name }) else {
                    throw UsageError("unknown option '--\(name)'" + Self.suggestion(for: name, in: options))
                }
                try take(spec, inline: inline, as: "--" + name)
                continue
            }
            // Short options, perhaps packed: flags, then at most one that takes the rest as its value.
            var letters = Substring(word.dropFirst())
            while let letter = letters.popFirst() {
                guard let spec = options.first(where: { $0.short == letter }) else {
                    throw UsageError("unknown option '-\(letter)'" + (word.count > 2 ? " in '\(word)'" : ""))
                }
                if spec.kind == .flag {
                    if letters.first == "=" { throw UsageError("-\(letter) (--\(spec.long)) takes no value") }
                    try take(spec, inline: nil, as: "-\(letter)")
                } else {
                    let inline = letters.isEmpty ? nil : String(letters.first == "=" ? letters.dropFirst() : letters)
                    try take(spec, inline: inline, as: "-\(letter)")
                    break
                }
            }
        }
    }

    /// An option is a word starting with `-`, other than `-` itself (stdin, by convention).
    static func looksLikeOption(_ word: String) -> Bool { word.hasPrefix("-") && word != "-" }

    /// The option `word` names, if any: `--name`, `--name=value`, or `-n`.
    private static func spec(for word: String, in options: [OptionSpec]) -> OptionSpec? {
        if word.hasPrefix("--") {
            let name = split(word.dropFirst(2)).name
            return options.first { $0.long == name }
        }
        return word.count == 2 ? options.first { $0.short == word.last } : nil
    }

    private static func split(_ body: Substring) -> (name: String, inline: String?) {
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }

    /// `; did you mean --format?`: the one option `name` starts, or else the nearest by edit
    /// distance, when it is near enough to be a typo; empty when none is.
    static func suggestion(for name: String, in options: [OptionSpec]) -> String {
        let longs = options.map(\.long)
        let extended = longs.filter { $0.hasPrefix(name) }
        if !name.isEmpty, extended.count == 1 { return "; did you mean --\(extended[0])?" }
        let scored = longs.map { (name: $0, distance: editDistance(name, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= max(1, min(3, name.count / 3)) else { return "" }
        return "; did you mean --\(best.name)?"
    }

    /// The number of letters inserted, deleted, replaced, or two side by side swapped, that turn
    /// `a` into `b` (the optimal string alignment distance).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var before = [Int](), previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous) = (previous, current)
        }
        return previous[b.count]
    }
}

/// The help text of a command: usage line, summary, and its options in aligned columns, each
/// with the values it allows and its default, from the declarations.
func helpText(usage: String, summary: String, options: [OptionSpec]) -> String {
    let labels = options.map { spec -> String in
        let short = spec.short.map { "-\($0), " } ?? "    "
        return short + "--" + spec.long + (spec.kind.placeholder.map { " " + $0 } ?? "")
    }
    let width = (labels.map(\.count).max() ?? 0) + 2
    let lines = zip(labels, options).map { label, spec in
        var text = spec.help
        if case .choice = spec.kind { text += "; one of " + spec.kind.allowed.joined(separator: ", ") }
        if case .list(_, let items, let whole) = spec.kind {
            text += "; " + (whole.isEmpty ? "" : whole.joined(separator: ", ") + ", or ")
                + "some of " + items.joined(separator: ",")
        }
        if let value = spec.defaultValue { text += " (default: \(value))" }
        return "  " + label + String(repeating: " ", count: width - label.count) + text
    }
    return "Usage: \(usage)\n\n\(summary)\n\nOptions:\n" + lines.joined(separator: "\n") + "\n"
}
