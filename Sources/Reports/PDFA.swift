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
    /// (Sources/Reports/Profiles/README.md), compiled in.
    public static var sRGBProfile: [UInt8] { PackageResources.sRGB_icc }

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

    /// The XMP packet (ISO 16684-1) of a PDF/A-2b file. It says what the information dictionary
    /// says (ISO 19005-2, 6.6.2.3): the title as `dc:title`, the producer as `pdf:Producer`, the
    /// creator as `xmp:CreatorTool`. Neither has dates: the same pages and settings give the
    /// same bytes, and PDF/A asks for none. UTF-8, uncompressed, so that a tool that does not
    /// read PDF finds it.
    public static func metadata(title: String, producer: String, creator: String) -> String {
        func text(_ value: String) -> String { HTML(escaping: value).rendered }
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
               <dc:title><rdf:Alt><rdf:li xml:lang="x-default">\(text(title))</rdf:li></rdf:Alt></dc:title>
               <pdf:Producer>\(text(producer))</pdf:Producer>
               <xmp:CreatorTool>\(text(creator))</xmp:CreatorTool>
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="r"?>
            """
    }
}
