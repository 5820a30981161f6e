/// A command-line option a command accepts.
struct OptionSpec {
    var long: String
    var short: Character?
    /// The placeholder for the option's value, or nil for a flag.
    var value: String?
    var help: String

    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, value: nil, help: help)
    }

    static func option(_ long: String, short: Character? = nil, value: String, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, value: value, help: help)
    }
}

/// A wrong command line: says what is wrong, and the command exits with status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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

    /// A number of bytes: digits, with an optional K, M or G for KiB, MiB or GiB (`500M`, `2G`).
    func byteCount(_ long: String) throws -> Int? {
        guard let text = value(long) else { return nil }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let unit = text.last.flatMap { units[Character($0.uppercased())] }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard let number = Int(digits), number > 0, number <= (1 << 40) / (unit ?? 1) else {
            throw UsageError("--\(long) takes a number of bytes, such as 500M or 2G, not '\(text)'")
        }
        return number * (unit ?? 1)
    }

    /// A positive number of seconds, as a duration.
    func seconds(_ long: String) throws -> Duration? {
        guard let text = value(long) else { return nil }
        guard let seconds = Double(text), seconds > 0, seconds < 1e6 else {
            throw UsageError("--\(long) takes a number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Sorts `words` by `options`: `--name value`, `--name=value`, `-n value`, flags, and
    /// operands; `--` ends the options.
    init(_ words: ArraySlice<String>, options: [OptionSpec]) throws {
        var rest = words
        while let word = rest.popFirst() {
            if word == "--" {
                operands += rest
                break
            }
            guard word.hasPrefix("-"), word != "-" else {
                operands.append(word)
                continue
            }
            let (name, inline) = Self.split(word)
            let spec: OptionSpec?
            if word.hasPrefix("--") {
                spec = options.first { $0.long == name }
            } else {
                spec = name.count == 1 ? options.first { $0.short == name.first } : nil
            }
            guard let spec else { throw UsageError("unknown option '\(word)'") }
            if spec.value == nil {
                guard inline == nil else { throw UsageError("--\(spec.long) takes no value") }
                values[spec.long, default: []].append("")
            } else if let inline {
                values[spec.long, default: []].append(inline)
            } else if let next = rest.popFirst() {
                values[spec.long, default: []].append(next)
            } else {
                throw UsageError("--\(spec.long) needs a value (\(spec.value!))")
            }
        }
    }

    private static func split(_ word: String) -> (name: String, inline: String?) {
        let body = word.drop(while: { $0 == "-" })
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }
}

/// The help text of a command: usage line, summary, and its options in aligned columns.
func helpText(usage: String, summary: String, options: [OptionSpec]) -> String {
    let labels = options.map { spec -> String in
        let short = spec.short.map { "-\($0), " } ?? "    "
        return short + "--" + spec.long + (spec.value.map { " " + $0 } ?? "")
    }
    let width = (labels.map(\.count).max() ?? 0) + 2
    let lines = zip(labels, options).map { label, spec in
        "  " + label + String(repeating: " ", count: width - label.count) + spec.help
    }
    return "Usage: \(usage)\n\n\(summary)\n\nOptions:\n" + lines.joined(separator: "\n") + "\n"
}
