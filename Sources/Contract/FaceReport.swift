import GlossGeometry

/// A face on the page, in page pixels with a top-left origin.
public struct FaceReport: Codable, Sendable, Equatable {
    /// A facial feature's position, and whether a cascade saw it or geometry placed it.
    public struct Landmark: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// `detected` or `estimated`.
        public var source: String

        public init(x: Double, y: Double, source: String) {
            self.x = x
            self.y = y
            self.source = source
        }
    }

    public var box: PixelRect
    /// 0...1, grows with the number of merged detections; a ranking aid, not a probability.
    public var confidence: Double
    /// Raw detections merged into this face (OpenCV's neighbour count).
    public var neighbors: Int
    /// The eye on the image's left (the subject's right eye), as Core Image defines it.
    public var leftEye: Landmark?
    public var rightEye: Landmark?
    public var mouth: Landmark?
    public var hasSmile: Bool
    /// Added with the CNN detector; null for cascade faces and absent from older reports.
    public var nose: Landmark?
    public var mouthLeft: Landmark?
    public var mouthRight: Landmark?

    public init(box: PixelRect, confidence: Double, neighbors: Int, leftEye: Landmark? = nil,
                rightEye: Landmark? = nil, mouth: Landmark? = nil, hasSmile: Bool = false) {
        self.box = box
        self.confidence = confidence
        self.neighbors = neighbors
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.mouth = mouth
        self.hasSmile = hasSmile
    }

    /// The detector's face, from the normalised currency to pixels of a page of `size`.
    public init(_ face: Face, in size: PixelSize) {
        func landmark(_ point: Face.Landmark?) -> Landmark? {
            point.map {
                let pixel = PixelPoint($0.position, in: size)
                return Landmark(x: (pixel.x * 10).rounded() / 10, y: (pixel.y * 10).rounded() / 10,
                                source: $0.source.rawValue)
            }
        }
        self.init(box: PixelRect(face.box, in: size), confidence: (face.confidence * 1000).rounded() / 1000,
                  neighbors: face.neighbors, leftEye: landmark(face.leftEye), rightEye: landmark(face.rightEye),
                  mouth: landmark(face.mouth), hasSmile: face.hasSmile)
        nose = landmark(face.nose)
        mouthLeft = landmark(face.mouthLeft)
        mouthRight = landmark(face.mouthRight)
    }

    private enum CodingKeys: String, CodingKey {
        case box, confidence, neighbors, leftEye, rightEye, mouth, hasSmile, nose, mouthLeft, mouthRight
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        box = try container.decode(PixelRect.self, forKey: .box)
        confidence = try container.decode(Double.self, forKey: .confidence)
        neighbors = try container.decode(Int.self, forKey: .neighbors)
        leftEye = try container.decodeIfPresent(Landmark.self, forKey: .leftEye)
        rightEye = try container.decodeIfPresent(Landmark.self, forKey: .rightEye)
        mouth = try container.decodeIfPresent(Landmark.self, forKey: .mouth)
        hasSmile = try container.decode(Bool.self, forKey: .hasSmile)
        nose = try container.decodeIfPresent(Landmark.self, forKey: .nose)
        mouthLeft = try container.decodeIfPresent(Landmark.self, forKey: .mouthLeft)
        mouthRight = try container.decodeIfPresent(Landmark.self, forKey: .mouthRight)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(box, forKey: .box)
        try container.encode(confidence, forKey: .confidence)
        try container.encode(neighbors, forKey: .neighbors)
        // A landmark nobody placed is written as null, not left out.
        for (key, landmark) in [(CodingKeys.leftEye, leftEye), (.rightEye, rightEye), (.mouth, mouth), (.nose, nose),
                                (.mouthLeft, mouthLeft), (.mouthRight, mouthRight)] {
            if let landmark { try container.encode(landmark, forKey: key) } else { try container.encodeNil(forKey: key) }
        }
        try container.encode(hasSmile, forKey: .hasSmile)
    }
}
