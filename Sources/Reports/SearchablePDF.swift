import GlossContract
import GlossGeometry

/// One page of a searchable PDF: what was read on it and its picture.
public struct SearchablePDFPage: Sendable {
    public var report: PageReport
    /// Nil for a page that could not be read: it is left blank, so that the PDF's pages still
    /// match the input's one for one.
    public var picture: PDFPicture?
    /// Pixels per inch of the report's pixels as the file states it; nil when it states none.
    public var resolution: Double?
    /// Whether `resolution` is known rather than stated (a PDF page drawn at it): it is then
    /// taken as it is, where a stated one must be believable (`PDFPageSize`).
    public var resolutionIsExact: Bool
    /// The decoded pixels, when `picture` is a file's own bytes that a standard may not hold
    /// (a CMYK JPEG under PDF/A, whose OutputIntent is sRGB); nil otherwise.
    public var decodedPicture: PDFPicture?

    public init(report: PageReport, picture: PDFPicture?, resolution: Double?, resolutionIsExact: Bool = false,
                decodedPicture: PDFPicture? = nil) {
        self.report = report
        self.picture = picture
        self.resolution = resolution
        self.resolutionIsExact = resolutionIsExact
        self.decodedPicture = decodedPicture
    }
}

/// A searchable PDF (ISO 32000-1, PDF 1.7): every page shows its picture and carries the
/// recognised words as invisible text (rendering mode 3) over their boxes, so a PDF reader
/// selects, copies and finds them where they are printed.
///
/// The words are set in a Type 3 font whose glyphs draw nothing and are all half an em wide,
/// each mapped back to its character by a ToUnicode CMap. It is written here rather than taken
/// from Tesseract's PDF renderer, whose GlyphLessFont places whole lines: here every word gets
/// its line's font size and baseline and the horizontal scaling (`Tz`) that makes its advance
/// its box's width, so text tools report each word's own left and right edges and its line's
/// top and bottom (`pdftotext -bbox` gives them back to a pixel), and select a line as one. A Type 3 font is also part of the file, so nothing is
/// substituted for it, and it is simple: codes are bytes, up to 256 characters a font, with
/// more fonts for a document that uses more characters. The pages share the fonts, which are
/// written last, each with every character the pages gave it.
///
/// Pages are written as they are added and the file ends with `finish()`; the bytes go to
/// `sink` as they are made, so a document of hundreds of pages never sits in memory. The file
/// is PDF/A-2b unless the context's `pdfStandard` is `.none` (`PDFArchive`); the page size is
/// `PDFPageSize`'s.
public struct SearchablePDF {
    private var file: PDFFile
    private let catalog: Int
    private let pageTree: Int
    private let emptyGlyph: Int
    private let fontDescriptor: Int
    private var pages: [Int] = []
    /// The text fonts' codes, for the whole document: each font is written once, at the end,
    /// with every character any page gave it, so pages share their fonts.
    private var characters = CharacterCodes()
    /// Each text font's object, reserved when a page first uses it.
    private var fontObjects: [Int] = []
    private let context: ReportContext
    private let title: String
    /// The PDF/A parts' objects, for a PDF/A document: the XMP stream and the ICC profile.
    private let archive: (metadata: Int, profile: Int)?

    /// Starts a document; `title` (the input file's name) goes into its information dictionary.
    public init(context: ReportContext, title: String, sink: @escaping ([UInt8]) throws -> Void) throws {
        self.context = context
        self.title = PDFArchive.printable(title)
        file = try PDFFile(sink: sink)
        catalog = file.reserve()
        pageTree = file.reserve()
        emptyGlyph = file.reserve()
        fontDescriptor = file.reserve()
        archive = context.pdfStandard == .none ? nil : (file.reserve(), file.reserve())
        if let archive {
            try file.write(archive.profile, stream: PDFArchive.profileDictionary, data: Deflater.compress(PDFArchive.sRGBProfile))
        }
        // The one glyph of the text font: half an em wide, drawing nothing.
        try file.write(emptyGlyph, stream: "", data: Array("\(Self.glyphWidth) 0 d0\n".utf8))
        try file.write(fontDescriptor, """
            << /Type /FontDescriptor /FontName /GlossInvisibleText /Flags 4 /FontBBox [0 \(-Self.descent) \
            \(Self.glyphWidth) \(Self.ascent)] /ItalicAngle 0 /Ascent \(Self.ascent) /Descent \(-Self.descent) \
            /CapHeight \(Self.ascent) /StemV 80 >>
            """)
    }

    /// The whole document in memory.
    public static func render(_ pages: [SearchablePDFPage], context: ReportContext, title: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var document = try SearchablePDF(context: context, title: title) { bytes += $0 }
        for page in pages { try document.add(page) }
        try document.finish()
        return bytes
    }

    /// Writes one page: its picture, its text font and its content.
    public mutating func add(_ page: SearchablePDFPage) throws {
        let report = page.report
        let hasPicture = page.picture != nil && report.width > 0 && report.height > 0
        let size = PDFPageSize.of(hasPicture ? report.size : PixelSize(width: 0, height: 0), resolution: page.resolution,
                                  exact: page.resolutionIsExact)
        var resources: [String] = []
        var content = ""
        if var picture = page.picture, hasPicture {
            if !context.pdfStandard.holds(picture), let decoded = page.decodedPicture { picture = decoded }
            let image = PDFImageStream(picture)
            let number = file.reserve()
            try file.write(number, stream: image.dictionary, data: image.data)
            resources.append("/XObject << /Im0 \(number) 0 R >>")
            content += "q " + Self.placement(of: picture, width: size.width, height: size.height) + " cm /Im0 Do Q\n"
        }
        let words = hasPicture ? report.words.filter { !$0.text.isEmpty } : []
        if !words.isEmpty {
            let text = TextLayer(words: words, pageHeight: size.height, pointsPerPixel: size.pointsPerPixel, codes: &characters)
            resources.append("/Font << " + fontResources(text.fonts) + " >>")
            content += text.operators
        }
        let contents = file.reserve()
        try file.write(contents, stream: "/Filter /FlateDecode", data: Deflater.compress(Array(content.utf8)))
        let number = file.reserve()
        try file.write(number, """
            << /Type /Page /Parent \(pageTree) 0 R /MediaBox [0 0 \(Self.number(size.width)) \(Self.number(size.height))] \
            /Resources << \(resources.joined(separator: " ")) >> /Contents \(contents) 0 R >>
            """)
        pages.append(number)
    }

    /// Writes a page holding only the invisible words of `report`, to be laid over a page of
    /// another document (`GlossPDFGraft`): `frame` gives the page's size and where the report's
    /// pixels lie on it. It has no picture, and no text operators when the page has no words.
    public mutating func addTextLayer(_ report: PageReport, frame: (width: Double, height: Double, pointsPerPixel: Double,
                                                                     pictureLeft: Double, pictureTop: Double)) throws {
        let words = report.words.filter { !$0.text.isEmpty }
        var fonts: [String] = []
        var content = ""
        if !words.isEmpty {
            let text = TextLayer(words: words, pageHeight: frame.pictureTop, pointsPerPixel: frame.pointsPerPixel, codes: &characters)
            fonts = [fontResources(text.fonts)]
            content = "1 0 0 1 " + Self.number(frame.pictureLeft) + " 0 cm\n" + text.operators
        }
        let contents = file.reserve()
        try file.write(contents, stream: "/Filter /FlateDecode", data: Deflater.compress(Array(content.utf8)))
        let number = file.reserve()
        try file.write(number, """
            << /Type /Page /Parent \(pageTree) 0 R /MediaBox [0 0 \(Self.number(frame.width)) \(Self.number(frame.height))] \
            /Resources << /Font << \(fonts.joined(separator: " ")) >> >> /Contents \(contents) 0 R >>
            """)
        pages.append(number)
    }

    /// Writes the page tree, the catalog, the information dictionary (and for PDF/A the XMP
    /// that says the same) and the cross-reference table.
    public mutating func finish() throws {
        for (font, object) in fontObjects.enumerated() { try writeFont(characters.fonts[font], as: object) }
        try file.write(pageTree, "<< /Type /Pages /Kids [\(pages.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        let producer = context.softwareName + " " + context.softwareVersion
        if let archive {
            let xmp = PDFArchive.metadata(title: title, producer: producer, creator: producer)
            try file.write(archive.metadata, stream: "/Type /Metadata /Subtype /XML", data: Array(xmp.utf8))
            try file.write(catalog, "<< /Type /Catalog /Pages \(pageTree) 0 R /Metadata \(archive.metadata) 0 R "
                + "/OutputIntents [\(PDFArchive.outputIntent(profile: archive.profile))] >>")
        } else {
            try file.write(catalog, "<< /Type /Catalog /Pages \(pageTree) 0 R >>")
        }
        let info = file.reserve()
        try file.write(info, "<< /Title \(Self.textString(title)) /Producer \(Self.textString(producer)) /Creator \(Self.textString(producer)) >>")
        try file.finish(root: catalog, info: info)
    }

    // MARK: The text font

    /// Glyph metrics in thousandths of an em: every glyph is `glyphWidth` wide; ascent and
    /// descent add up to one em, so a font size of a word box's height spans the box. Half an em
    /// is also the width poppler assumes for a Type 3 font's glyphs, so it takes the font size
    /// as it is.
    static let glyphWidth = 500
    static let ascent = 800
    static let descent = 200

    /// A page's `/Font` entries for the document's fonts `used` (by index), each font's object
    /// reserved as a page first needs it.
    private mutating func fontResources(_ used: [Int]) -> String {
        used.map { font in
            while fontObjects.count <= font { fontObjects.append(file.reserve()) }
            return "/F\(font) \(fontObjects[font]) 0 R"
        }.joined(separator: " ")
    }

    /// One Type 3 font for up to 256 characters, by code, as object `number`.
    private mutating func writeFont(_ characters: [Int: Unicode.Scalar], as number: Int) throws {
        let toUnicode = file.reserve()
        try file.write(toUnicode, stream: "/Filter /FlateDecode", data: Deflater.compress(Array(Self.toUnicode(characters).utf8)))
        let codes = characters.keys.sorted()
        // Every code from the first to the last is the one glyph, which draws nothing: each
        // width has its glyph, and the characters are told apart by the ToUnicode map alone.
        let range = (codes.first ?? 0)...(codes.last ?? 0)
        try file.write(number, """
            << /Type /Font /Subtype /Type3 /FontBBox [0 \(-Self.descent) \(Self.glyphWidth) \(Self.ascent)] \
            /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /g \(emptyGlyph) 0 R >> \
            /Encoding << /Type /Encoding /Differences [\(range.lowerBound)\(String(repeating: " /g", count: range.count))] >> \
            /FirstChar \(range.lowerBound) /LastChar \(range.upperBound) \
            /Widths [\(Array(repeating: String(Self.glyphWidth), count: range.count).joined(separator: " "))] \
            /FontDescriptor \(fontDescriptor) 0 R /ToUnicode \(toUnicode) 0 R /Resources << >> >>
            """)
    }

    /// The CMap that maps each code back to its character (9.10.3), for copying and searching.
    static func toUnicode(_ characters: [Int: Unicode.Scalar]) -> String {
        var cmap = """
            /CIDInit /ProcSet findresource begin
            12 dict begin
            begincmap
            /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
            /CMapName /Adobe-Identity-UCS def
            /CMapType 2 def
            1 begincodespacerange
            <00> <FF>
            endcodespacerange

            """
        // At most 100 mappings a block (9.10.3, Adobe's Technical Note 5411).
        let mapped = characters.sorted { $0.key < $1.key }
        for start in stride(from: 0, to: mapped.count, by: 100) {
            let block = mapped[start..<min(start + 100, mapped.count)]
            cmap += "\(block.count) beginbfchar\n"
            for (code, character) in block {
                let units = String(character).utf16.map { HexText.format($0, digits: 4, uppercase: true) }.joined()
                cmap += "<" + HexText.format(code, digits: 2, uppercase: true) + "> <" + units + ">\n"
            }
            cmap += "endbfchar\n"
        }
        cmap += "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
        return cmap
    }

    // MARK: Helpers

    /// The `cm` matrix that draws the image's unit square over the whole page. A JPEG keeps its
    /// stored pixels, so its orientation is applied here: each corner of the stored image goes
    /// where the upright picture has it (image space has its origin at the bottom left, as
    /// normalised points do).
    static func placement(of picture: PDFPicture, width: Double, height: Double) -> String {
        var orientation = Orientation.up
        if case .jpeg(_, _, let stored) = picture.content { orientation = stored }
        let origin = orientation.upright(NormalizedPoint(x: 0, y: 0))
        let right = orientation.upright(NormalizedPoint(x: 1, y: 0))
        let up = orientation.upright(NormalizedPoint(x: 0, y: 1))
        return [(right.x - origin.x) * width, (right.y - origin.y) * height, (up.x - origin.x) * width,
                (up.y - origin.y) * height, origin.x * width, origin.y * height].map(number).joined(separator: " ")
    }

    static func number(_ value: Double) -> String { DecimalText.format(value, maximumFractionDigits: 3) }

    /// `value` as `number` writes it.
    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// A PDF text string: literal when it is plain ASCII, else UTF-16BE with its byte order mark.
    static func textString(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && !"()\\".unicodeScalars.contains($0) }
        if plain { return "(" + text + ")" }
        return "<FEFF" + text.utf16.map { HexText.format($0, digits: 4, uppercase: true) }.joined() + ">"
    }
}

/// The codes of a document's characters. Printable ASCII keeps its own code in the first font,
/// so most words are written as literal strings, `(word)`, which are half the bytes of hex
/// strings and deflate better; every other character takes the next code free, in the first
/// font's codes ASCII leaves (controls and 127 to 255), then in further fonts of 256.
struct CharacterCodes {
    /// The characters of each font, by code; a code no character has is absent.
    private(set) var fonts: [[Int: Unicode.Scalar]] = [[:]]
    private var codes: [Unicode.Scalar: (font: Int, code: Int)] = [:]
    /// How many of the current font's free codes are taken.
    private var taken = 0

    static func isPrintableASCII(_ value: Int) -> Bool { (0x20..<0x7F).contains(value) }

    /// The codes the first font gives to characters other than printable ASCII, in order, and
    /// those of every further font.
    static let firstFontFreeCodes = (0..<256).filter { !isPrintableASCII($0) }
    static let laterFontCodes = Array(0..<256)

    static func freeCodes(font: Int) -> [Int] { font == 0 ? firstFontFreeCodes : laterFontCodes }

    mutating func code(for character: Unicode.Scalar) -> (font: Int, code: Int) {
        if let known = codes[character] { return known }
        let assigned: (font: Int, code: Int)
        if Self.isPrintableASCII(Int(character.value)) {
            assigned = (0, Int(character.value))
        } else {
            if taken == Self.freeCodes(font: fonts.count - 1).count { fonts.append([:]); taken = 0 }
            assigned = (fonts.count - 1, Self.freeCodes(font: fonts.count - 1)[taken])
            taken += 1
        }
        fonts[assigned.font][assigned.code] = character
        codes[character] = assigned
        return assigned
    }
}

/// The invisible words of one page: the operators that place each word on its box, in the
/// document's fonts (`codes`, which gains the characters it did not have).
struct TextLayer {
    /// The fonts the page uses, by index, in order.
    private(set) var fonts: [Int] = []
    private(set) var operators = ""

    /// The words of a line share one font size and one baseline, from the top of the line's
    /// highest word to the bottom of its lowest: a reader that groups text by size and baseline
    /// (poppler, and so most viewers' selection) then keeps the line whole, where a size per
    /// word split it into blocks. Each word keeps its own left and right edges.
    init(words: [PageReport.Word], pageHeight: Double, pointsPerPixel scale: Double, codes: inout CharacterCodes) {
        operators = "BT\n3 Tr\n"
        let spans = Self.lineSpans(of: words)
        var current: (font: Int, size: Double)?
        var previous: (x: Double, y: Double)?
        for (index, word) in words.enumerated() {
            // A space after every word but a line's last, so copied text keeps its spaces.
            let endsLine = index + 1 == words.count || words[index + 1].line != word.line
            let characters = Array(word.text.unicodeScalars)
            let span = spans[word.line] ?? (word.box.y, word.box.maxY)
            let size = Double(max(span.bottom - span.top, 1)) * scale
            let advance = Double(characters.count * SearchablePDF.glyphWidth) / 1000 * size
            let scaling = 100 * Double(max(word.box.width, 1)) * scale / advance
            let baseline = pageHeight - Double(span.bottom) * scale + Double(SearchablePDF.descent) / 1000 * size
            // The first word is placed by `Tm`, each next one by `Td` from the one before:
            // the differences of the positions as written, so nothing accumulates, and a
            // line's words repeat `0 Td`, which deflate packs: a third off the layer's bytes.
            let origin = (x: SearchablePDF.rounded(Double(word.box.x) * scale), y: SearchablePDF.rounded(baseline))
            operators += Self.scalingText(scaling, advance: advance, tolerance: scale / 4) + " Tz "
            if let previous {
                operators += SearchablePDF.number(origin.x - previous.x) + " " + SearchablePDF.number(origin.y - previous.y) + " Td\n"
            } else {
                operators += "1 0 0 1 " + SearchablePDF.number(origin.x) + " " + SearchablePDF.number(origin.y) + " Tm\n"
            }
            previous = origin
            var run: [Int] = []
            for character in characters + (endsLine ? [] : [" "]) {
                let (font, code) = codes.code(for: character)
                if !fonts.contains(font) { fonts.append(font) }
                if current?.font != font || current?.size != size {
                    if !run.isEmpty { operators += Self.string(run) + " Tj " }
                    run = []
                    operators += "/F\(font) " + SearchablePDF.number(size) + " Tf "
                    current = (font, size)
                }
                run.append(code)
            }
            operators += Self.string(run) + " Tj\n"
        }
        operators += "ET\n"
    }

    /// The horizontal scaling `Tz` to the fewest decimals that keep the word's right edge
    /// within `tolerance` points (a quarter of a pixel) of its box: most words are short enough
    /// for a whole percent, and the scalings were a third of a layer's deflated bytes at three
    /// decimals (`jbig2.pdf`: 7,396 bytes, 4,801 without them).
    static func scalingText(_ scaling: Double, advance: Double, tolerance: Double) -> String {
        for digits in 0..<3 {
            var unit = 1.0
            for _ in 0..<digits { unit /= 10 }
            let rounded = (scaling / unit).rounded() * unit
            if abs(rounded - scaling) / 100 * advance <= tolerance {
                return DecimalText.format(scaling, maximumFractionDigits: digits)
            }
        }
        return SearchablePDF.number(scaling)
    }

    /// One-byte `codes` as a PDF string: literal, `(...)`, with `(`, `)` and `\` escaped and
    /// other bytes in octal, unless hex, `<...>`, is shorter (a run of codes beyond ASCII).
    static func string(_ codes: [Int]) -> String {
        var literal = "("
        for code in codes {
            switch code {
            case 0x28, 0x29, 0x5C: literal += "\\" + String(UnicodeScalar(UInt8(code)))
            case let printable where CharacterCodes.isPrintableASCII(printable): literal += String(UnicodeScalar(UInt8(code)))
            default:
                let octal = String(code, radix: 8)
                literal += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        literal += ")"
        return literal.utf8.count <= 2 * codes.count + 2 ? literal
            : "<" + codes.map { HexText.format($0, digits: 2, uppercase: true) }.joined() + ">"
    }

    /// The vertical extent of each line's words, in pixels, by line index.
    static func lineSpans(of words: [PageReport.Word]) -> [Int: (top: Int, bottom: Int)] {
        words.reduce(into: [:]) { spans, word in
            let known = spans[word.line] ?? (word.box.y, word.box.maxY)
            spans[word.line] = (min(known.top, word.box.y), max(known.bottom, word.box.maxY))
        }
    }

}
