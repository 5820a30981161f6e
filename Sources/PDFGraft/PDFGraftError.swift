/// Why a text layer could not be grafted onto a PDF: the file and the cause, on one line.
public struct PDFGraftError: Error, Sendable, CustomStringConvertible, Equatable {
    public var path: String
    public var cause: Cause

    public enum Cause: Sendable, Equatable {
        /// The document is encrypted: writing it again would need its owner's password and its
        /// permissions, which Gloss does not ask for.
        case encrypted
        /// The document is signed: any change to its pages invalidates the signatures.
        case signed
        /// libqpdf could not read the document, or a page of it.
        case unreadable(String)
        /// libqpdf read it but could not write the grafted document.
        case failed(String)
    }

    public init(path: String, cause: Cause) {
        self.path = path
        self.cause = cause
    }

    public var description: String { path + ": " + reasonText }

    /// The cause in words, without the file name.
    public var reasonText: String {
        switch cause {
        case .encrypted: "encrypted: Gloss does not graft a text layer onto an encrypted PDF"
        case .signed: "signed: grafting a text layer would invalidate the document's signatures"
        case .unreadable(let reason): "cannot graft a text layer: \(reason)"
        case .failed(let reason): "grafting the text layer failed: \(reason)"
        }
    }
}
