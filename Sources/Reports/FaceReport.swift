import GlossGeometry

/// A face on the page, in page pixels. Filled by the face detector.
public struct FaceReport: Codable, Sendable, Equatable {
    public var box: PixelRect
    public var confidence: Double
    public var leftEye: PixelPoint?
    public var rightEye: PixelPoint?
    public var mouth: PixelPoint?
    public var hasSmile: Bool

    public init(box: PixelRect, confidence: Double, leftEye: PixelPoint? = nil, rightEye: PixelPoint? = nil,
                mouth: PixelPoint? = nil, hasSmile: Bool = false) {
        self.box = box
        self.confidence = confidence
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.mouth = mouth
        self.hasSmile = hasSmile
    }
}
