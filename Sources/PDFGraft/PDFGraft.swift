import CQPDFContent
import Foundation

/// Grafting Gloss's text layer onto a PDF: the input document written again by libqpdf with a
/// page of invisible words laid over each page Gloss read, and nothing else changed. The layer
/// is a PDF of Gloss's own (`SearchablePDF.addTextLayer`), one page per page to cover; qpdf's
/// overlay (`qpdf in.pdf --overlay layer.pdf --to=… -- out.pdf`) makes each of its pages a
/// form XObject drawn last on its page, inside `q … Q`, after the page's own content streams,
/// which stay as they are. Stream data is preserved, so every image's bytes are the input's.
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
    }

    /// Reads the document's pages' geometry and text; throws for a document a graft would
    /// break (encrypted, signed) or that libqpdf cannot read.
    public static func inspect(_ path: String) throws -> Document {
        let document = try QPDFDocument(path: path)
        if document.isEncrypted { throw PDFGraftError(path: path, cause: .encrypted) }
        if document.isSigned { throw PDFGraftError(path: path, cause: .signed) }
        let geometry = try (0..<document.pageCount).map(document.geometry(ofPage:))
        var kinds = [Int32](repeating: 0, count: geometry.count)
        var message = [CChar](repeating: 0, count: 512)
        let count = gloss_qpdf_page_text(path, &kinds, Int32(kinds.count), &message, message.count)
        guard count >= 0 else { throw PDFGraftError(path: path, cause: .unreadable(text(of: message))) }
        return Document(pages: geometry, text: kinds.map { PageText(rawValue: Int($0)) }, hasForm: document.hasForm)
    }

    /// `inspect`, its failure kept as a value: the pages are read whatever it says, and only
    /// the grafted document fails.
    public static func inspection(of path: String) -> Result<Document, PDFGraftError> {
        do {
            return .success(try inspect(path))
        } catch let error as PDFGraftError {
            return .failure(error)
        } catch {
            return .failure(PDFGraftError(path: path, cause: .unreadable(String(describing: error))))
        }
    }

    /// Writes to `output` the document at `input` with page `i` of `layer` laid over page
    /// `covered[i]` (0-based) and, first, the invisible text of the pages `stripping` removed.
    /// With neither, `output` is a copy of `input`.
    public static func graft(input: String, layer: String?, covering covered: [Int], stripping: [Int], output: String) throws {
        let document = try QPDFDocument(path: input)
        if document.isEncrypted { throw PDFGraftError(path: input, cause: .encrypted) }
        if document.isSigned { throw PDFGraftError(path: input, cause: .signed) }
        let pageCount = document.pageCount
        if let outside = (covered + stripping).first(where: { $0 < 0 || $0 >= pageCount }) {
            throw PDFGraftError(path: input, cause: .unreadable("it has no page \(outside + 1)"))
        }
        var source = input
        let stripped = output + ".stripped"
        defer { unlink(stripped) }
        if !stripping.isEmpty {
            var message = [CChar](repeating: 0, count: 512)
            let pages = stripping.map(Int32.init)
            guard gloss_qpdf_strip_invisible_text(input, stripped, pages, Int32(pages.count), &message, message.count) == 0 else {
                throw PDFGraftError(path: input, cause: .failed(text(of: message)))
            }
            source = stripped
        }
        guard let layer, !covered.isEmpty else {
            do {
                try? FileManager.default.removeItem(atPath: output)
                try FileManager.default.copyItem(atPath: source, toPath: output)
            } catch {
                throw PDFGraftError(path: input, cause: .failed("cannot copy it: \(error.localizedDescription)"))
            }
            return
        }
        try QPDFJob().run([
            "inputFile": source,
            "outputFile": output,
            // Every stream as it was read: no image decoded and compressed again.
            "streamData": "preserve",
            "overlay": [
                "file": layer,
                "to": covered.map { String($0 + 1) }.joined(separator: ","),
                "from": "1-\(covered.count)",
            ] as [String: Any],
        ], naming: input)
    }

    /// The terminated message a C function wrote into `buffer`.
    static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
