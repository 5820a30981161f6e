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
    public var recognizeText: Bool
    public var detectFaces: Bool
    /// The longest side of the copy the face detector scans: faces need far fewer pixels than
    /// text, and the scan's cost grows with the pixel count.
    public var faceDimension: Int

    public init(
        recognition: RecognitionOptions = RecognitionOptions(),
        pixelLimit: Int = ImageFile.defaultPixelLimit,
        displayDimension: Int = 2000,
        recognizeText: Bool = true,
        detectFaces: Bool = true,
        faceDimension: Int = 1024
    ) {
        self.recognition = recognition
        self.pixelLimit = pixelLimit
        self.displayDimension = displayDimension
        self.recognizeText = recognizeText
        self.detectFaces = detectFaces
        self.faceDimension = faceDimension
    }
}

/// The version written into manifests and reports.
public let glossVersion = "0.1.0"
