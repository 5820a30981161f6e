import GlossImaging
import GlossTextRecognition

/// Everything that decides what a page's results are. A finished page is only reused by a
/// later run with equal settings.
public struct AnnotationSettings: Sendable, Codable, Hashable {
    public var recognition: RecognitionOptions
    /// Images whose header claims more pixels are refused before decoding.
    public var pixelLimit: Int
    /// The longest side of the display copy written beside each page's HTML.
    public var displayDimension: Int

    public init(
        recognition: RecognitionOptions = RecognitionOptions(),
        pixelLimit: Int = ImageFile.defaultPixelLimit,
        displayDimension: Int = 2000
    ) {
        self.recognition = recognition
        self.pixelLimit = pixelLimit
        self.displayDimension = displayDimension
    }
}

/// The version written into manifests and reports.
public let glossVersion = "0.1.0"
