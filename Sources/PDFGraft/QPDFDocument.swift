import CQPDF
import Foundation

/// A PDF opened with libqpdf's C API, to learn what a graft must respect before it changes
/// anything: encryption, signatures, forms, and each page's boxes and rotation. Owns its
/// `qpdf_data`, freed in `deinit`.
final class QPDFDocument {
    private var handle: qpdf_data?
    let path: String

    init(path: String) throws {
        self.path = path
        handle = qpdf_init()
        qpdf_silence_errors(handle)
        qpdf_set_suppress_warnings(handle, QPDF_TRUE)
        _ = qpdf_read(handle, path, nil)
        if qpdf_has_error(handle) != QPDF_FALSE {
            throw PDFGraftError(path: path, cause: .unreadable(lastError() ?? "libqpdf could not read it"))
        }
    }

    deinit { qpdf_cleanup(&handle) }

    var isEncrypted: Bool { qpdf_is_encrypted(handle) != QPDF_FALSE }

    var pageCount: Int { Int(max(0, qpdf_get_num_pages(handle))) }

    /// Whether the document says it holds signatures (`/AcroForm /SigFlags` bit 1, 12.7.2) or a
    /// signature field has a value: changing any page would invalidate them.
    var isSigned: Bool {
        let form = key("/AcroForm", of: qpdf_get_root(handle))
        if let flags = integer(key("/SigFlags", of: form)), flags & 1 != 0 { return true }
        return fields(of: form).contains { field in
            qpdf_oh_is_name_and_equals(handle, key("/FT", of: field), "/Sig") != QPDF_FALSE
                && qpdf_oh_is_null(handle, key("/V", of: field)) == QPDF_FALSE
        }
    }

    /// Whether the document has an interactive form (`/AcroForm` with fields).
    var hasForm: Bool { !fields(of: key("/AcroForm", of: qpdf_get_root(handle))).isEmpty }

    /// The text of `name` (e.g. `/Author`) in the document's information dictionary, as
    /// UTF-8; nil when it is missing, empty or not a string.
    func info(_ name: String) -> String? {
        let value = key(name, of: key("/Info", of: qpdf_get_trailer(handle)))
        guard qpdf_oh_is_string(handle, value) != QPDF_FALSE, let text = qpdf_oh_get_utf8_value(handle, value) else { return nil }
        let string = String(cString: text)
        return string.isEmpty ? nil : string
    }

    /// The boxes and rotation of page `index` (0-based), inherited ones included.
    func geometry(ofPage index: Int) throws -> PDFPageGeometry {
        let page = qpdf_get_page_n(handle, index)
        guard qpdf_oh_is_dictionary(handle, page) != QPDF_FALSE else {
            throw PDFGraftError(path: path, cause: .unreadable("page \(index + 1) is missing"))
        }
        guard let media = rectangle(inherited("/MediaBox", of: page)) else {
            throw PDFGraftError(path: path, cause: .unreadable("page \(index + 1) has no MediaBox"))
        }
        let crop = rectangle(inherited("/CropBox", of: page))?.intersection(media) ?? media
        // As Poppler, which draws the page Gloss reads: the nearest whole /Rotate up the tree
        // (a real number is passed over), and one that is no multiple of 90 is none.
        let rotation = integer(inherited("/Rotate", of: page, where: { qpdf_oh_is_integer(self.handle, $0) != QPDF_FALSE })) ?? 0
        return PDFPageGeometry(cropBox: crop, rotation: rotation % 90 == 0 ? rotation : 0)
    }

    // MARK: Objects

    private func lastError() -> String? {
        guard qpdf_has_error(handle) != QPDF_FALSE, let error = qpdf_get_error(handle),
              let text = qpdf_get_error_message_detail(handle, error) else { return nil }
        return String(cString: text)
    }

    private func key(_ name: String, of object: qpdf_oh) -> qpdf_oh {
        qpdf_oh_is_dictionary(handle, object) != QPDF_FALSE ? qpdf_oh_get_key(handle, object, name) : qpdf_oh_new_null(handle)
    }

    /// A page attribute, looked up through `/Parent` as 7.7.3.4 allows (at most 64 levels): the
    /// nearest value that is not null and, where `accepted` is given, that it accepts.
    private func inherited(_ name: String, of page: qpdf_oh, where accepted: ((qpdf_oh) -> Bool)? = nil) -> qpdf_oh {
        var node = page
        for _ in 0..<64 {
            let value = key(name, of: node)
            if qpdf_oh_is_null(handle, value) == QPDF_FALSE, accepted?(value) ?? true { return value }
            node = key("/Parent", of: node)
            if qpdf_oh_is_dictionary(handle, node) == QPDF_FALSE { break }
        }
        return qpdf_oh_new_null(handle)
    }

    private func integer(_ object: qpdf_oh) -> Int? {
        qpdf_oh_is_integer(handle, object) != QPDF_FALSE ? Int(qpdf_oh_get_int_value(handle, object)) : nil
    }

    private func rectangle(_ object: qpdf_oh) -> PDFRectangle? {
        guard qpdf_oh_is_array(handle, object) != QPDF_FALSE, qpdf_oh_get_array_n_items(handle, object) == 4 else { return nil }
        let values = (0..<4).map { qpdf_oh_get_numeric_value(handle, qpdf_oh_get_array_item(handle, object, Int32($0))) }
        return PDFRectangle(x0: min(values[0], values[2]), y0: min(values[1], values[3]),
                            x1: max(values[0], values[2]), y1: max(values[1], values[3]))
    }

    private func fields(of form: qpdf_oh) -> [qpdf_oh] {
        let list = key("/Fields", of: form)
        guard qpdf_oh_is_array(handle, list) != QPDF_FALSE else { return [] }
        return (0..<qpdf_oh_get_array_n_items(handle, list)).map { qpdf_oh_get_array_item(handle, list, $0) }
    }
}
