/// Why an image could not be read. Always names the file, so a batch can report it and go on.
public struct ImagingError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The file could not be opened or read; the text is the system's reason.
        case unreadable(String)
        case empty
        /// The file holds more bytes than `--max-file-size` allows; nothing was read.
        case fileTooLarge(size: Int, limit: Int)
        /// The file holds far more bytes than its header's pixels can account for (`justified`:
        /// twice their raw size, plus room for metadata); nothing past the header was read.
        case unjustifiedSize(fileSize: Int, width: Int, height: Int, justified: Int)
        /// The bytes are not an image format Gloss can decode.
        case unsupportedFormat
        /// The header claims more pixels than the limit allows; nothing was decoded.
        case tooLarge(width: Int, height: Int, limit: Int)
        /// The header claims more pixels than the format's decoder can hold within Gloss's
        /// memory bound (`why` says what the decoder holds); nothing was decoded.
        case tooLargeForDecoder(width: Int, height: Int, limit: Int, why: String)
        /// The header was read but the pixels could not be decoded (truncated or corrupt data).
        case corrupt(String)
        case noSuchPage(Int, pageCount: Int)
        /// The PDF is password-protected; Gloss opens none.
        case encrypted
        /// The document holds no page (a PDF whose page tree is empty or unreadable).
        case noPages
        /// The document claims more pages than Gloss reads from one file.
        case tooManyPages(Int, limit: Int)
        /// The decoded pixels could not be encoded for display.
        case encodingFailed(String)
        /// A PDF page draws an image whose declared size is above the limit; nothing of it was
        /// decoded.
        case drawsTooLargeImage(width: Int, height: Int, limit: Int)
        /// Drawing a PDF page needed more memory than the pixel limit allows its renderer.
        case renderNeedsTooMuchMemory(megabytes: Int, limit: Int)
        /// The process drawing a PDF page could not run or stopped without an answer.
        case renderFailed(String)
    }

    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reasonText)" }

    /// The reason alone, for places that show the file name already.
    /// `WxH = N pixels`; without the count where it overflows (a PDF page a kilometre wide).
    static func size(_ width: Int, _ height: Int) -> String {
        let (count, overflows) = width.multipliedReportingOverflow(by: height)
        return overflows ? "\(width)x\(height) pixels" : "\(width)x\(height) = \(count) pixels"
    }

    public var reasonText: String {
        switch reason {
        case .unreadable(let why): "cannot read file: \(why)"
        case .empty: "file is empty"
        case .fileTooLarge(let size, let limit): "file is \(size) bytes, above the limit of \(limit) (see --max-file-size)"
        case .unjustifiedSize(let size, let w, let h, let justified):
            "image data is corrupt: the file is \(size) bytes, more than a \(w)x\(h) image can justify (at most \(justified))"
        case .unsupportedFormat: "not an image in a supported format (PNG, JPEG, TIFF, PNM, WebP, GIF, BMP, PDF)"
        case .tooLarge(let w, let h, let limit):
            "image is \(Self.size(w, h)), above the limit of \(limit) (see --max-pixels)"
        case .tooLargeForDecoder(let w, let h, let limit, let why):
            "image is \(Self.size(w, h)), above the limit of \(limit) for this kind of image (\(why))"
        case .corrupt(let detail): "image data is corrupt or truncated (\(detail))"
        case .noSuchPage(let index, let count): "page \(index + 1) asked for, but the file has \(count)"
        case .encodingFailed(let why): "cannot encode image: \(why)"
        case .encrypted: "encrypted: Gloss cannot read password-protected PDFs"
        case .noPages: "the document has no pages (its page tree is empty or unreadable)"
        case .tooManyPages(let count, let limit): "the document claims \(count) pages, more than the \(limit) Gloss reads from one file"
        case .drawsTooLargeImage(let w, let h, let limit):
            "the page draws an image of \(Self.size(w, h)), above the limit of \(limit) (see --max-pixels)"
        case .renderNeedsTooMuchMemory(let megabytes, let limit):
            "drawing the page needs more than the \(megabytes) MB its renderer may use under the limit of \(limit) pixels (see --max-pixels)"
        case .renderFailed(let why): "the page could not be drawn: \(why)"
        }
    }
}
