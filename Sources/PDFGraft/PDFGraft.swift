import CQPDFContent
import Foundation

/// Grafting Gloss's text layer onto a PDF: the input document written again by libqpdf with a
/// page of invisible words laid over each page Gloss read, and nothing else changed. The layer
/// is a PDF of Gloss's own (`SearchablePDF.addTextLayer`), one page per page to cover; each of
/// its pages becomes a form XObject drawn last on its page, after the page's own content
/// streams, which stay as they are inside `q … Q`. Stream data is preserved, so every image's
/// bytes are the input's.
///
/// This is what `qpdf --overlay` does, placed by Gloss instead: qpdf 11.3's overlay also turns
/// the page's own content into a form XObject and, on a page whose crop box does not start at
/// its media box's corner, draws it moved (by -3, -2 pt on `pdf/turned.pdf`'s second page).
public enum PDFGraft {
    /// The kinds of text a page shows, in its content and the form XObjects it draws.
    public struct PageText: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Text in a rendering mode that paints: a born-digital page's words.
        public static let visible = PageText(rawValue: Int(GLOSS_QPDF_VISIBLE_TEXT))
        /// Text in rendering mode 3, painted nowhere: an OCR tool's layer.
        public static let invisible = PageText(rawValue: Int(GLOSS_QPDF_INVISIBLE_TEXT))
    }

    /// What a graft needs to know of a document before Gloss reads its pages.
    public struct Document: Sendable {
        /// Each page's boxes and rotation.
        public var pages: [PDFPageGeometry]
        /// Each page's kinds of text.
        public var text: [PageText]
        /// Whether the document has an interactive form; its fields and their annotations are
        /// kept as they are.
        public var hasForm: Bool
        /// The information dictionary's text entries that the XMP of a PDF/A file repeats
        /// (`Title`, `Author`, `Subject`, `Keywords`, `Creator`, `CreationDate`, `ModDate`), by
        /// name without the slash.
        public var information: [String: String]
        /// Why a graft of this document cannot be PDF/A-2b (`archiveRefusal(_:)`); nil when it
        /// can, or when it was not asked.
        public var archiveRefusal: String?
    }

    /// The information entries `Document.information` holds.
    static let informationKeys = ["Title", "Author", "Subject", "Keywords", "Creator", "CreationDate", "ModDate"]

    /// Reads the document's pages' geometry and text, and with `archival`, why it cannot be
    /// PDF/A-2b; throws for a document a graft would break (encrypted, signed) or that libqpdf
    /// cannot read.
    public static func inspect(_ path: String, archival: Bool = false) throws -> Document {
        let document = try QPDFDocument(path: path)
        if document.isEncrypted { throw PDFGraftError(path: path, cause: .encrypted) }
        if document.isSigned { throw PDFGraftError(path: path, cause: .signed) }
        let geometry = try (0..<document.pageCount).map(document.geometry(ofPage:))
        var kinds = [Int32](repeating: 0, count: geometry.count)
        var message = [CChar](repeating: 0, count: 512)
        let count = gloss_qpdf_page_text(path, &kinds, Int32(kinds.count), &message, message.count)
        guard count >= 0 else { throw PDFGraftError(path: path, cause: .unreadable(text(of: message))) }
        var information: [String: String] = [:]
        for key in informationKeys { information[key] = document.info("/" + key) }
        return Document(pages: geometry, text: kinds.map { PageText(rawValue: Int($0)) }, hasForm: document.hasForm,
                        information: information, archiveRefusal: archival ? archiveRefusal(path) : nil)
    }

    /// `inspect`, its failure kept as a value: the pages are read whatever it says, and only
    /// the grafted document fails.
    public static func inspection(of path: String, archival: Bool = false) -> Result<Document, PDFGraftError> {
        do {
            return .success(try inspect(path, archival: archival))
        } catch let error as PDFGraftError {
            return .failure(error)
        } catch {
            return .failure(PDFGraftError(path: path, cause: .unreadable(String(describing: error))))
        }
    }

    /// One page of a text layer and the page of the input it goes on.
    public struct Cover: Sendable {
        /// The input's page, 0-based.
        public var page: Int
        /// The layer page's place on it: `PDFPageGeometry.shownToUserSpace`.
        public var placement: [Double]

        public init(page: Int, placement: [Double]) {
            self.page = page
            self.placement = placement
        }
    }

    /// What makes a grafted document PDF/A-2b: the XMP packet, the sRGB profile for the
    /// OutputIntent, and the information dictionary's entries the XMP repeats, written over the
    /// input's (its other entries stay).
    public struct Archive: Sendable {
        public var metadata: String
        public var profile: [UInt8]
        public var information: [(key: String, value: String)]

        public init(metadata: String, profile: [UInt8], information: [(key: String, value: String)]) {
            self.metadata = metadata
            self.profile = profile
            self.information = information
        }
    }

    /// Why the document at `path` cannot be made PDF/A-2b by a graft (it is encrypted, has
    /// JavaScript or actions, transparency, fonts not embedded, LZW, embedded files, or claims
    /// another PDF/A part), checked with libqpdf's object model; nil when it can.
    public static func archiveRefusal(_ path: String) -> String? {
        var message = [CChar](repeating: 0, count: 512)
        switch gloss_qpdf_archive_refusal(path, &message, message.count) {
        case 0: return nil
        case 1: return text(of: message)
        default: return "libqpdf cannot read it: " + text(of: message)
        }
    }

    /// Writes to `output` the document at `input` with page `i` of `layer` drawn last on
    /// `covers[i].page`, after, first, the invisible text of the pages `stripping` lists (0-based)
    /// was removed. With neither, `output` is a copy of `input`'s bytes.
    public static func graft(input: String, layer: String?, covers: [Cover], stripping: [Int], archive: Archive? = nil,
                             output: String) throws {
        let document = try QPDFDocument(path: input)
        if document.isEncrypted { throw PDFGraftError(path: input, cause: .encrypted) }
        if document.isSigned { throw PDFGraftError(path: input, cause: .signed) }
        let pageCount = document.pageCount
        if let outside = (covers.map(\.page) + stripping).first(where: { $0 < 0 || $0 >= pageCount }) {
            throw PDFGraftError(path: input, cause: .unreadable("it has no page \(outside + 1)"))
        }
        guard !covers.isEmpty || !stripping.isEmpty || archive != nil else {
            do {
                try FileManager.default.copyItem(atPath: input, toPath: output)
            } catch {
                throw PDFGraftError(path: input, cause: .failed("cannot copy it: \(error.localizedDescription)"))
            }
            return
        }
        guard covers.allSatisfy({ $0.placement.count == 6 }), covers.isEmpty || layer != nil else {
            throw PDFGraftError(path: input, cause: .failed("a layer page without its placement"))
        }
        let pages = covers.map { Int32($0.page) }, matrices = covers.flatMap(\.placement), strip = stripping.map(Int32.init)
        var message = [CChar](repeating: 0, count: 512)
        let profile = archive?.profile ?? []
        let information = archive?.information ?? []
        let status = withCStrings(information.map(\.key)) { keys in
            withCStrings(information.map(\.value)) { values in
                gloss_qpdf_graft_archive(input, layer, pages, matrices, Int32(pages.count), strip, Int32(strip.count), output,
                                         archive?.metadata, profile, profile.count, keys, values, Int32(information.count),
                                         &message, message.count)
            }
        }
        guard status == 0 else { throw PDFGraftError(path: input, cause: .failed(text(of: message))) }
    }

    /// `body` given `strings` as C strings, alive for its call.
    static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> Result) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) })
    }

    /// The terminated message a C function wrote into `buffer`.
    static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
