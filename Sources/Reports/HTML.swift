/// A piece of markup that is safe to insert into a page.
///
/// Text from a scan or a file name becomes `HTML` only through `init(escaping:)`, so a template
/// cannot receive raw text by accident: `</script>` in a scan shows up as text.
public struct HTML: Sendable, Equatable, CustomStringConvertible {
    public let rendered: String

    /// Text escaped for an HTML or SVG element's content or a quoted attribute value.
    public init(escaping text: String) {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}", "\u{FFFE}", "\u{FFFF}":
                out += "\u{FFFD}"  // not allowed in HTML or XML
            default: out.unicodeScalars.append(scalar)
            }
        }
        rendered = out
    }

    /// Markup built by Gloss itself from other `HTML` values and numbers.
    init(trusted markup: String) { rendered = markup }

    public var description: String { rendered }

    static func + (a: HTML, b: HTML) -> HTML { HTML(trusted: a.rendered + b.rendered) }

    static func joined(_ parts: [HTML], separator: String = "\n") -> HTML {
        HTML(trusted: parts.map(\.rendered).joined(separator: separator))
    }
}

/// Fills `{{name}}` slots of a template with markup.
struct Template {
    let source: String

    /// The template with every slot filled; a slot without a value is a programming error.
    func render(_ values: [String: HTML]) -> String {
        var output = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                preconditionFailure("unclosed slot in template")
            }
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else { preconditionFailure("template slot {{\(name)}} has no value") }
            output += value.rendered
            rest = rest[close.upperBound...]
        }
        return output + rest
    }
}
