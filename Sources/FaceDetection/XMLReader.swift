// A small XML reader for OpenCV's FileStorage files.
//
// Cascade files use a tiny subset of XML: elements, attributes, text, comments and a prolog.
// Reading them ourselves (instead of FoundationXML) keeps libxml2 out of the binary, is several
// times faster on the 2.7 MB files, and lets every error name the element path precisely.

/// One element: its name, attributes, child elements and the text directly inside it.
struct XMLNode: Sendable {
    var name: String
    var attributes: [String: String] = [:]
    var children: [XMLNode] = []
    /// Character data directly inside this element (comments removed), as bytes.
    var text: [UInt8] = []

    init(name: String) { self.name = name }

    /// The first child element called `name`.
    func child(_ name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    var textString: String { String(decoding: text, as: UTF8.self) }
}

/// A defect found while reading; `path` lists the open elements, outermost first.
struct XMLReadError: Error {
    var path: [String]
    var message: String
}

enum XMLReader {
    /// The document element of `bytes`.
    static func parse(_ bytes: [UInt8]) throws(XMLReadError) -> XMLNode {
        var parser = Parser(bytes: bytes)
        return try parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var stack: [XMLNode] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Each open element's position among its parent's children.
        var indices: [Int] = []

        /// The open elements, list items (`_`) with their index: `stages/_[3]/weakClassifiers`.
        var path: [String] {
            zip(stack, indices).map { node, index in node.name == "_" ? "_[\(index)]" : node.name }
        }

        mutating func open(_ node: XMLNode) {
            indices.append(stack.last?.children.count ?? 0)
            stack.append(node)
        }

        func fail(_ message: String) -> XMLReadError {
            XMLReadError(path: path, message: message)
        }

        func starts(with literal: StaticString) -> Bool {
            let n = literal.utf8CodeUnitCount
            guard i + n <= bytes.count else { return false }
            return literal.withUTF8Buffer { lit in
                for k in 0..<n where bytes[i + k] != lit[k] { return false }
                return true
            }
        }

        /// Moves past the next occurrence of `literal`, or fails with `what`.
        mutating func skip(past literal: StaticString, what: String) throws(XMLReadError) {
            let n = literal.utf8CodeUnitCount
            let found: Int? = literal.withUTF8Buffer { lit in
                var j = i
                while j + n <= bytes.count {
                    if bytes[j] == lit[0] {
                        var same = true
                        for k in 1..<n where bytes[j + k] != lit[k] { same = false; break }
                        if same { return j }
                    }
                    j += 1
                }
                return nil
            }
            guard let found else { throw fail("unterminated \(what)") }
            i = found + n
        }

        static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        static func isNameByte(_ c: UInt8) -> Bool {
            !(isSpace(c) || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
              || c == UInt8(ascii: "<") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'"))
        }

        mutating func name() throws(XMLReadError) -> String {
            let start = i
            while i < bytes.count && Parser.isNameByte(bytes[i]) { i += 1 }
            guard i > start else { throw fail(i >= bytes.count ? "unexpected end of file" : "expected a name") }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        mutating func skipSpace() {
            while i < bytes.count && Parser.isSpace(bytes[i]) { i += 1 }
        }

        mutating func document() throws(XMLReadError) -> XMLNode {
            // Byte order mark.
            if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
            var root: XMLNode?
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "<") {
                    if starts(with: "<!--") {
                        try skip(past: "-->", what: "comment")
                    } else if starts(with: "<![CDATA[") {
                        let begin = i + 9
                        try skip(past: "]]>", what: "CDATA section")
                        guard !stack.isEmpty else { throw fail("character data outside the document element") }
                        stack[stack.count - 1].text.append(contentsOf: bytes[begin..<(i - 3)])
                    } else if starts(with: "<?") {
                        try skip(past: "?>", what: "processing instruction")
                    } else if starts(with: "<!") {
                        try skip(past: ">", what: "declaration")
                    } else if starts(with: "</") {
                        i += 2
                        let closing = try name()
                        skipSpace()
                        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("unterminated end tag </\(closing)") }
                        i += 1
                        guard let open = stack.last else { throw fail("end tag </\(closing)> without a start tag") }
                        guard open.name == closing else { throw fail("end tag </\(closing)> does not match <\(open.name)>") }
                        let done = stack.removeLast()
                        indices.removeLast()
                        if stack.isEmpty {
                            root = done
                            // Only comments, prolog-like markup and space may follow.
                        } else {
                            stack[stack.count - 1].children.append(done)
                        }
                    } else {
                        i += 1
                        if root != nil && stack.isEmpty { throw fail("more than one document element") }
                        var node = XMLNode(name: try name())
                        var selfClosing = false
                        while true {
                            skipSpace()
                            guard i < bytes.count else { open(node); throw fail("unexpected end of file in start tag") }
                            if bytes[i] == UInt8(ascii: ">") { i += 1; break }
                            if starts(with: "/>") { i += 2; selfClosing = true; break }
                            let key = try name()
                            skipSpace()
                            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { open(node); throw fail("attribute \(key) has no value") }
                            i += 1
                            skipSpace()
                            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                                open(node); throw fail("attribute \(key) is not quoted")
                            }
                            let quote = bytes[i]
                            i += 1
                            let start = i
                            while i < bytes.count && bytes[i] != quote { i += 1 }
                            guard i < bytes.count else { open(node); throw fail("unterminated attribute \(key)") }
                            node.attributes[key] = String(decoding: bytes[start..<i], as: UTF8.self)
                            i += 1
                        }
                        if selfClosing {
                            if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
                        } else {
                            open(node)
                        }
                    }
                } else {
                    let start = i
                    while i < bytes.count && bytes[i] != UInt8(ascii: "<") { i += 1 }
                    if stack.isEmpty {
                        for k in start..<i where !Parser.isSpace(bytes[k]) { throw fail("text outside the document element") }
                    } else {
                        stack[stack.count - 1].text.append(contentsOf: bytes[start..<i])
                    }
                }
            }
            guard stack.isEmpty else { throw fail("unexpected end of file (element not closed)") }
            guard let root else { throw fail("no document element") }
            return root
        }
    }
}
