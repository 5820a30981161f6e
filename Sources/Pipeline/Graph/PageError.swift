import GlossContract
import GlossPDFGraft
import GlossGeometry
import GlossImaging

/// Why one page of one file failed: the file, the page, the stage and the underlying error.
/// A batch records it for that page and goes on with the others; the text is made only where
/// it is shown (the report, the terminal).
public struct PageError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var pageIndex: Int
    public var stage: Stage
    public var cause: any Error

    public init(file: String, pageIndex: Int, stage: Stage, cause: any Error) {
        self.file = file
        self.pageIndex = pageIndex
        self.stage = stage
        self.cause = cause
    }

    /// The cause in words, without the file name, which `description` adds itself.
    public var reason: String {
        switch cause {
        case let error as ImagingError: error.reasonText
        case let error as FetchError: error.reasonText
        case let error as PDFGraftError: error.reasonText
        case is CancellationError: "cancelled"
        default: String(describing: cause)
        }
    }

    public var description: String {
        pageIndex == 0 ? "\(file): \(reason) (\(stage))" : "\(file), page \(pageIndex + 1): \(reason) (\(stage))"
    }
}

/// A page that ran longer than the batch allows, and the stage it was stopped in when known.
public struct PageTimeoutError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var pageIndex: Int
    public var timeout: Duration
    public var stage: Stage?

    public init(file: String, pageIndex: Int, timeout: Duration, stage: Stage? = nil) {
        self.file = file
        self.pageIndex = pageIndex
        self.timeout = timeout
        self.stage = stage
    }

    public var description: String {
        let place = pageIndex == 0 ? file : "\(file), page \(pageIndex + 1)"
        return "\(place): timed out after \(DecimalText.format(timeout.secondsValue)) s" + (stage.map { " (\($0))" } ?? "")
    }
}
