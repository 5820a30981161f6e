import CEmbeddedFiles

/// Which standard a searchable PDF keeps to (`--pdf-standard`).
public enum PDFStandard: String, Sendable, Codable, CaseIterable {
    /// PDF/A-2b (ISO 19005-2, level B, "basic"): what archives deposit. XMP metadata naming
    /// the part and level, an sRGB OutputIntent, and nothing the standard forbids.
    case pdfA2b = "pdfa-2b"
    /// Plain PDF 1.7, without the metadata and the colour profile (3.6 KB smaller a file).
    case none

    /// What a searchable PDF is written as when nothing is asked.
    public static let `default` = PDFStandard.pdfA2b

    /// Whether a page may show `picture` as it is. PDF/A allows a device colour space only when
    /// the OutputIntent's profile is of its kind (ISO 19005-2, 6.2.4.3): grey and RGB under an
    /// sRGB intent, not CMYK.
    func holds(_ picture: PDFPicture) -> Bool {
        self == .none || !picture.isCMYK
    }
}

extension PDFPicture {
    /// Whether the picture is a JPEG of four components, CMYK in PDF.
    public var isCMYK: Bool {
        if case .jpeg(_, let header, _) = content { return header.components == 4 }
        return false
    }
}

/// The parts of a PDF/A-2b file that a plain searchable PDF does not have: the XMP metadata
/// stream that identifies it, and the OutputIntent that names sRGB as the colours' meaning. The
/// rest of PDF/A-2b the writer keeps always: the binary comment after the header, every font
/// in the file (the text layer's Type 3 font is defined there, its widths those of its one
/// glyph), no transparency, encryption, JavaScript or actions, and an `/ID` in the trailer.
public enum PDFArchive {
    /// sRGB IEC 61966-2.1, ICC version 2.3, from Debian's `icc-profiles-free`
    /// (Sources/Reports/Profiles/README.md), compiled in (`Sources/CEmbeddedFiles`).
    public static var sRGBProfile: [UInt8] {
        var count = 0
        guard let start = gloss_embedded_srgb_icc(&count) else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: count))
    }

    /// The OutputIntent dictionary (ISO 32000-1, 14.11.5), its profile in object `profile`.
    static func outputIntent(profile: Int) -> String {
        "<< /Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (sRGB IEC61966-2.1) /RegistryName (http://www.color.org) "
            + "/Info (sRGB IEC61966-2.1) /DestOutputProfile \(profile) 0 R >>"
    }

    /// The ICC stream's dictionary entries: three components.
    static let profileDictionary = "/N 3 /Filter /FlateDecode"

    /// A title as both the information dictionary and the XMP can hold it alike: control
    /// characters and non-characters (which XML may not hold, or whose line ends it rewrites)
    /// become U+FFFD.
    public static func printable(_ title: String) -> String {
        let kept = title.unicodeScalars.map { scalar -> Unicode.Scalar in
            scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF ? "\u{FFFD}" : scalar
        }
        return String(String.UnicodeScalarView(kept))
    }

    /// What the information dictionary and the XMP packet of a PDF/A file both say of it.
    public struct Description: Sendable, Equatable {
        public var title: String
        public var producer: String
        /// The application that made the document (`/Creator`, `xmp:CreatorTool`).
        public var creator: String
        public var author: String?
        public var subject: String?
        public var keywords: String?
        /// Dates as the information dictionary holds them (`D:20200314092653+01'00'`); one
        /// that `xmpDate` cannot read is left out of both.
        public var created: String?
        public var modified: String?

        public init(title: String, producer: String, creator: String, author: String? = nil, subject: String? = nil,
                    keywords: String? = nil, created: String? = nil, modified: String? = nil) {
            self.title = title
            self.producer = producer
            self.creator = creator
            self.author = author
            self.subject = subject
            self.keywords = keywords
            self.created = created.flatMap { PDFArchive.xmpDate($0) == nil ? nil : $0 }
            self.modified = modified.flatMap { PDFArchive.xmpDate($0) == nil ? nil : $0 }
        }

        /// The information dictionary's entries, by key, in the form the XMP repeats them.
        public var information: [(key: String, value: String)] {
            let entries: [(String, String?)] = [("/Title", title), ("/Producer", producer), ("/Creator", creator),
                                                ("/Author", author), ("/Subject", subject), ("/Keywords", keywords),
                                                ("/CreationDate", created), ("/ModDate", modified)]
            return entries.compactMap { key, value in value.map { (key, PDFArchive.printable($0)) } }
        }
    }

    /// The XMP packet (ISO 16684-1) of a PDF/A-2b file. It says what the information dictionary
    /// says (ISO 19005-2, 6.6.2.3): the title as `dc:title`, the producer as `pdf:Producer`, the
    /// creator as `xmp:CreatorTool`, and, when given, the author as `dc:creator`, the subject as
    /// `dc:description`, the keywords as `pdf:Keywords` and the dates as `xmp:CreateDate` and
    /// `xmp:ModifyDate`. Gloss's own PDFs have no dates: the same pages and settings give the
    /// same bytes, and PDF/A asks for none. UTF-8, uncompressed, so that a tool that does not
    /// read PDF finds it.
    public static func metadata(_ description: Description) -> String {
        func text(_ value: String) -> String { HTML(escaping: printable(value)).rendered }
        var optional: [String] = []
        if let author = description.author {
            optional.append("   <dc:creator><rdf:Seq><rdf:li>\(text(author))</rdf:li></rdf:Seq></dc:creator>")
        }
        if let subject = description.subject {
            optional.append("   <dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">\(text(subject))</rdf:li></rdf:Alt></dc:description>")
        }
        if let keywords = description.keywords { optional.append("   <pdf:Keywords>\(text(keywords))</pdf:Keywords>") }
        if let date = description.created.flatMap(xmpDate) { optional.append("   <xmp:CreateDate>\(date)</xmp:CreateDate>") }
        if let date = description.modified.flatMap(xmpDate) { optional.append("   <xmp:ModifyDate>\(date)</xmp:ModifyDate>") }
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"
                xmlns:dc="http://purl.org/dc/elements/1.1/"
                xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
                xmlns:xmp="http://ns.adobe.com/xap/1.0/">
               <pdfaid:part>2</pdfaid:part>
               <pdfaid:conformance>B</pdfaid:conformance>
               <dc:format>application/pdf</dc:format>
               <dc:title><rdf:Alt><rdf:li xml:lang="x-default">\(text(description.title))</rdf:li></rdf:Alt></dc:title>
               <pdf:Producer>\(text(description.producer))</pdf:Producer>
               <xmp:CreatorTool>\(text(description.creator))</xmp:CreatorTool>
            \(optional.map { $0 + "\n" }.joined())  </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="r"?>
            """
    }

    /// The XMP packet of a PDF/A-2b file with only a title, producer and creator.
    public static func metadata(title: String, producer: String, creator: String) -> String {
        metadata(Description(title: title, producer: producer, creator: creator))
    }

    /// A PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`, ISO 32000-1 7.9.4, every part after the year
    /// optional) as XMP writes it (ISO 8601: `2020-03-14T09:26:53+01:00`), to the precision it
    /// has; nil for text that is not such a date.
    public static func xmpDate(_ pdf: String) -> String? {
        var rest = Substring(pdf.trimmingCharacters(in: .whitespaces))
        if rest.hasPrefix("D:") { rest = rest.dropFirst(2) }
        func digits(_ count: Int) -> Int? {
            let part = rest.prefix(count)
            guard part.count == count, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            rest = rest.dropFirst(count)
            return Int(part)
        }
        guard let year = digits(4) else { return nil }
        var parts = [String(format: "%04d", year)]
        let limits = [(1, 12), (1, 31), (0, 23), (0, 59), (0, 59)]
        var values: [Int] = []
        for (low, high) in limits {
            guard let first = rest.first, first.isNumber else { break }
            guard let value = digits(2), (low...high).contains(value) else { return nil }
            values.append(value)
        }
        if values.count >= 1 { parts.append(String(format: "-%02d", values[0])) }
        if values.count >= 2 { parts.append(String(format: "-%02d", values[1])) }
        guard values.count >= 3 else { return rest.isEmpty ? parts.joined() : nil }
        // XMP has no hour without minutes.
        parts.append(String(format: "T%02d:%02d", values[2], values.count >= 4 ? values[3] : 0))
        if values.count >= 5 { parts.append(String(format: ":%02d", values[4])) }
        switch rest.first {
        case nil:
            break
        case "Z":
            // Some writers follow Z with 00'00'.
            parts.append("Z")
            rest = rest.dropFirst()
            rest = rest.drop { $0.isNumber || $0 == "'" }
        case "+", "-":
            let sign = rest.removeFirst()
            guard let hours = digits(2), hours <= 23 else { return nil }
            if rest.first == "'" { rest = rest.dropFirst() }
            let minutes = rest.first?.isNumber == true ? digits(2) : 0
            guard let minutes, minutes <= 59 else { return nil }
            parts.append(String(sign) + String(format: "%02d:%02d", hours, minutes))
            if rest.first == "'" { rest = rest.dropFirst() }
        default:
            return nil
        }
        return rest.isEmpty ? parts.joined() : nil
    }
}
