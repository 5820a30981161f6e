import GlossImaging

/// Why one page of one file failed: the file, the page, the stage and the cause.
/// A batch records it for that page and goes on with the others.
public struct PageError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var pageIndex: Int
    public var stage: Stage
    public var cause: String

    public init(file: String, pageIndex: Int, stage: Stage, cause: String) {
        self.file = file
        self.pageIndex = pageIndex
        self.stage = stage
        self.cause = cause
    }

    public var description: String {
        pageIndex == 0 ? "\(file): \(cause) (\(stage.rawValue))" : "\(file), page \(pageIndex + 1): \(cause) (\(stage.rawValue))"
    }
}

/// The reason an error gives, without the file name: the page error adds that itself.
func causeText(of error: any Error) -> String {
    switch error {
    case let error as ImagingError: error.reasonText
    case let error as FetchError: error.reasonText
    default: String(describing: error)
    }
}
