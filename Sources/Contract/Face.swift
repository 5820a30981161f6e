import GlossGeometry

/// A face found in an image, described like Core Image's `CIFaceFeature`, in Gloss's normalised
/// bottom-left coordinates.
public struct Face: Hashable, Sendable {
    /// A facial feature's position and whether a detector actually saw it.
    ///
    /// A cascade finds eyes only when they are open, frontal and large enough; the rest is
    /// inferred from face geometry. Callers that crop, align or redact by landmark must be able
    /// to tell a measurement from a guess, so every landmark says which it is.
    public struct Landmark: Hashable, Sendable {
        public enum Source: String, Hashable, Sendable {
            /// A cascade fired at this spot (centre of its merged detection).
            case detected
            /// Placed from the face box or the other landmarks, not seen.
            case estimated
        }

        public var position: NormalizedPoint
        public var source: Source

        public init(position: NormalizedPoint, source: Source) {
            self.position = position
            self.source = source
        }
    }

    /// The face rectangle, normalised, origin bottom-left.
    public var box: NormalizedRect
    /// 0...1, grows with the number of merged raw detections (`neighbors / (neighbors + 5)`).
    /// A ranking aid, not a calibrated probability: a cascade has no such thing.
    public var confidence: Double
    /// Raw detections merged into this face (OpenCV's neighbour count).
    public var neighbors: Int
    /// How clearly the best window passed the last stage (sum minus threshold).
    public var stageMargin: Double
    /// The eye on the image's left, as Core Image defines `leftEyePosition`: "the left side of
    /// the face from the observer's perspective", i.e. the subject's right eye.
    public var leftEye: Landmark?
    /// The eye on the image's right (the subject's left eye).
    public var rightEye: Landmark?
    /// Centre of the mouth: detected when the smile cascade fired, estimated otherwise.
    public var mouth: Landmark?
    /// True when the smile cascade fired in the lower part of the face: always looked for by
    /// the cascade detector, by YuNet's only with `--smiles` (false otherwise).
    public var hasSmile: Bool
    /// The tip of the nose, and the corners of the mouth on the image's left and right: what a
    /// CNN detector places and a cascade does not (nil then).
    public var nose: Landmark?
    public var mouthLeft: Landmark?
    public var mouthRight: Landmark?

    public init(box: NormalizedRect, confidence: Double, neighbors: Int, stageMargin: Double,
                leftEye: Landmark?, rightEye: Landmark?, mouth: Landmark?, hasSmile: Bool) {
        self.box = box
        self.confidence = confidence
        self.neighbors = neighbors
        self.stageMargin = stageMargin
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.mouth = mouth
        self.hasSmile = hasSmile
    }
}
