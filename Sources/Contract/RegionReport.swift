import GlossGeometry

/// A region on the page, in page pixels with a top-left origin.
public struct RegionReport: Codable, Sendable, Equatable {
    public var kind: String
    public var box: PixelRect
    public var label: String?
    public var confidence: Double?

    public init(kind: String, box: PixelRect, label: String? = nil, confidence: Double? = nil) {
        self.kind = kind
        self.box = box
        self.label = label
        self.confidence = confidence
    }

    /// The analyzer's region, from the normalised currency to pixels of a page of `size`.
    public init(_ region: Region, in size: PixelSize) {
        self.init(kind: region.kind, box: PixelRect(region.box, in: size), label: region.label,
                  confidence: region.confidence.map { ($0 * 1000).rounded() / 1000 })
    }

    private enum CodingKeys: String, CodingKey { case kind, box, label, confidence }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(box, forKey: .box)
        // Like the page's other optional fields, a missing value is null rather than absent.
        if let label { try container.encode(label, forKey: .label) } else { try container.encodeNil(forKey: .label) }
        if let confidence { try container.encode(confidence, forKey: .confidence) } else { try container.encodeNil(forKey: .confidence) }
    }
}
