import Foundation
import GlossImaging
import GlossReports
import GlossTextRecognition

/// Everything that decides what a page's results are. A finished page is only reused by a
/// later run with equal settings.
public struct AnnotationSettings: Sendable, Codable, Hashable {
    public var recognition: RecognitionOptions
    /// Images whose header claims more pixels are refused before decoding.
    public var pixelLimit: Int
    /// The longest side of the display copy written beside each page's HTML.
    public var displayDimension: Int
    /// What is written for every page (`--format`).
    public var formats: Set<OutputFormat>
    public var recognizeText: Bool
    public var detectFaces: Bool
    /// The longest side of the copy the face detector scans: faces need far fewer pixels than
    /// text, and the scan's cost grows with the pixel count.
    public var faceDimension: Int

    public init(
        recognition: RecognitionOptions = RecognitionOptions(),
        pixelLimit: Int = ImageFile.defaultPixelLimit,
        displayDimension: Int = 2000,
        formats: Set<OutputFormat> = OutputFormat.defaults,
        recognizeText: Bool = true,
        detectFaces: Bool = true,
        faceDimension: Int = 1024
    ) {
        self.recognition = recognition
        self.pixelLimit = pixelLimit
        self.displayDimension = displayDimension
        self.formats = formats
        self.recognizeText = recognizeText
        self.detectFaces = detectFaces
        self.faceDimension = faceDimension
    }
}

extension AnnotationSettings {
    private enum CodingKeys: String, CodingKey {
        case recognition, pixelLimit, displayDimension, formats, recognizeText, detectFaces, faceDimension
    }

    /// Written with the formats sorted: a set has no order of its own, and the same settings
    /// must give the same bytes in every process (manifest, database, merged shards).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recognition, forKey: .recognition)
        try container.encode(pixelLimit, forKey: .pixelLimit)
        try container.encode(displayDimension, forKey: .displayDimension)
        try container.encode(formats.sorted { $0.rawValue < $1.rawValue }, forKey: .formats)
        try container.encode(recognizeText, forKey: .recognizeText)
        try container.encode(detectFaces, forKey: .detectFaces)
        try container.encode(faceDimension, forKey: .faceDimension)
    }
}

extension AnnotationSettings {
    /// A digest of everything that decides a page's results and outputs: equal settings, equal
    /// fingerprint.
    var fingerprint: String {
        // Sets encode in no fixed order; sorted keys alone would not make this stable.
        var settings = self
        settings.formats = []
        let formats = self.formats.map(\.rawValue).sorted().joined(separator: ",")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Plain values and strings: encoding them cannot fail, and the formats are in the suffix.
        let bytes = (try? encoder.encode(settings)).map { Array($0) } ?? []
        return String(SHA256.hex(of: bytes + Array((formats + glossVersion).utf8)).prefix(16))
    }
}

/// The version written into manifests and reports.
public let glossVersion = "0.1.0"

extension AnnotationSettings {
    /// What hOCR and ALTO name as their maker.
    var reportContext: ReportContext {
        ReportContext(softwareVersion: glossVersion, languages: recognition.languages)
    }
}
