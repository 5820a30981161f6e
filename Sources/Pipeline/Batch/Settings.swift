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
    /// Which detector finds the faces.
    public var faceDetector: FaceDetectorKind
    /// The longest side of the copy the face detector scans: faces need far fewer pixels than
    /// text, and the scan's cost grows with the pixel count. Nil: the detector's own default.
    public var faceDimension: Int?
    /// A YuNet model to use instead of the one built in (`--face-model`), in Gloss's format.
    public var faceModelPath: String?
    /// The batch as IIIF Presentation 3.0 (`--format iiif`, `--iiif-base`); nil writes none.
    /// A batch-level output, written from the page JSON at the end of a run, so it is not an
    /// `OutputFormat` (those are files per page) and the base URL is not in the fingerprint.
    public var iiif: IIIFOutput?
    /// The resolution of PDF pages that are not one full-page scan (`--pdf-resolution`); a
    /// scan is rendered at its own.
    public var pdfResolution: Int = ImageFile.defaultPDFResolution
    /// Keep the text a PDF page already holds instead of reading it again (`--skip-text`).
    public var skipText: Bool = false
    /// Whether pages are prepared for reading: turned upright, levelled, scaled, and their
    /// dropped text read again (`--prepare`).
    public var prepare: PreparationSteps = .auto

    public init(
        recognition: RecognitionOptions = RecognitionOptions(),
        pixelLimit: Int = ImageFile.defaultPixelLimit,
        displayDimension: Int = 2000,
        formats: Set<OutputFormat> = OutputFormat.defaults,
        recognizeText: Bool = true,
        detectFaces: Bool = true,
        faceDetector: FaceDetectorKind = .cnn,
        faceDimension: Int? = nil,
        faceModelPath: String? = nil
    ) {
        self.recognition = recognition
        self.pixelLimit = pixelLimit
        self.displayDimension = displayDimension
        self.formats = formats
        self.recognizeText = recognizeText
        self.detectFaces = detectFaces
        self.faceDetector = faceDetector
        self.faceDimension = faceDimension
        self.faceModelPath = faceModelPath
    }
}

extension AnnotationSettings {
    private enum CodingKeys: String, CodingKey {
        case recognition, pixelLimit, displayDimension, formats, recognizeText, detectFaces, faceDetector, faceDimension
        case faceModelPath, iiif, pdfResolution, skipText, prepare
    }

    /// Settings recorded before the CNN detector existed were read with the cascade.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recognition = try container.decode(RecognitionOptions.self, forKey: .recognition)
        pixelLimit = try container.decode(Int.self, forKey: .pixelLimit)
        displayDimension = try container.decode(Int.self, forKey: .displayDimension)
        formats = try container.decode(Set<OutputFormat>.self, forKey: .formats)
        recognizeText = try container.decode(Bool.self, forKey: .recognizeText)
        detectFaces = try container.decode(Bool.self, forKey: .detectFaces)
        faceDetector = try container.decodeIfPresent(FaceDetectorKind.self, forKey: .faceDetector) ?? .cascade
        faceDimension = try container.decodeIfPresent(Int.self, forKey: .faceDimension)
        faceModelPath = try container.decodeIfPresent(String.self, forKey: .faceModelPath)
        iiif = try container.decodeIfPresent(IIIFOutput.self, forKey: .iiif)
        pdfResolution = try container.decodeIfPresent(Int.self, forKey: .pdfResolution) ?? ImageFile.defaultPDFResolution
        skipText = try container.decodeIfPresent(Bool.self, forKey: .skipText) ?? false
        // Settings recorded before preparation existed read pages as they came.
        prepare = try container.decodeIfPresent(PreparationSteps.self, forKey: .prepare) ?? PreparationSteps.none
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
        try container.encode(faceDetector, forKey: .faceDetector)
        try container.encode(faceDimension, forKey: .faceDimension)
        try container.encode(faceModelPath, forKey: .faceModelPath)
        // Left out when off, so that settings without it encode (and fingerprint) as before.
        try container.encodeIfPresent(iiif, forKey: .iiif)
        // Likewise left out at their defaults: settings from before PDF input fingerprint as
        // they did, so their finished pages stay finished.
        if pdfResolution != ImageFile.defaultPDFResolution { try container.encode(pdfResolution, forKey: .pdfResolution) }
        if skipText { try container.encode(skipText, forKey: .skipText) }
        // Without preparation a page reads as it did before it existed, and fingerprints so;
        // with it, pages finished by an older Gloss are read again.
        if !prepare.isEmpty { try container.encode(prepare, forKey: .prepare) }
    }
}

extension AnnotationSettings {
    /// Whether each page gets a display copy: the page view shows it, and the IIIF canvas is
    /// painted with it.
    var writesDisplayCopy: Bool { formats.contains(.html) || iiif != nil }

    /// Page formats the batch-level outputs are made from: the IIIF annotations, from the JSON.
    var requiredFormats: Set<OutputFormat> { iiif != nil ? [.json] : [] }

    /// A digest of everything that decides a page's results and outputs: equal settings, equal
    /// fingerprint.
    ///
    /// The IIIF output is written for the whole batch at the end of a run, so neither it nor its
    /// base URL counts: a run that adds it or moves the base rewrites the manifest and reads no
    /// page again. What it asks of each page does count: a display copy, when HTML does not
    /// already make one.
    var fingerprint: String {
        // Sets encode in no fixed order; sorted keys alone would not make this stable.
        var settings = self
        settings.formats = []
        settings.iiif = nil
        var names = self.formats.map(\.rawValue)
        if iiif != nil && !self.formats.contains(.html) { names.append("display") }
        let formats = names.sorted().joined(separator: ",")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Plain values and strings: encoding them cannot fail, and the formats are in the suffix.
        let bytes = (try? encoder.encode(settings)).map { Array($0) } ?? []
        return String(SHA256.hex(of: bytes + Array((formats + glossVersion).utf8)).prefix(16))
    }
}

/// Which steps prepare a page before its text is read (`--prepare`). Each step in the set is
/// still decided page by page from what the page shows; one left out never runs.
public struct PreparationSteps: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Turn a page lying on its side or upside down upright (Tesseract's orientation detector).
    public static let orientation = PreparationSteps(rawValue: 1)
    /// Level a page scanned askew.
    public static let deskew = PreparationSteps(rawValue: 2)
    /// Enlarge small letters or reduce huge ones, and tell Tesseract the resolution they imply.
    public static let scale = PreparationSteps(rawValue: 4)
    /// Read again, region by region, the text the layout analysis dropped.
    public static let reread = PreparationSteps(rawValue: 8)
    /// Flatten uneven paper and stretch its contrast, and invert a dark page, before reading.
    public static let flatten = PreparationSteps(rawValue: 16)

    /// Every step: `--prepare auto`, the default.
    public static let auto: PreparationSteps = [.orientation, .deskew, .flatten, .scale, .reread]
    /// None: the page as it came, read once (`--prepare none`).
    public static let none: PreparationSteps = []

    /// The steps by the names `--prepare` and the settings use, in the order they run.
    public static let named: [(name: String, step: PreparationSteps)] = [
        ("orientation", .orientation), ("deskew", .deskew), ("flatten", .flatten), ("scale", .scale), ("reread", .reread),
    ]

    /// `auto`, `none` or a comma-separated list of step names; nil for anything else.
    public init?(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        default:
            var steps = PreparationSteps.none
            for name in text.split(separator: ",") {
                guard let step = Self.named.first(where: { $0.name == name })?.step else { return nil }
                steps.insert(step)
            }
            guard !steps.isEmpty else { return nil }
            self = steps
        }
    }

    public var names: [String] { Self.named.filter { contains($0.step) }.map(\.name) }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        guard let steps = PreparationSteps(parsing: names.joined(separator: ",")) ?? (names.isEmpty ? PreparationSteps.none : nil) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown preparation step in \(names)"))
        }
        self = steps
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names)
    }
}

/// The IIIF Presentation output of a batch.
public struct IIIFOutput: Sendable, Codable, Hashable {
    /// Where the batch folder is published (`https://archive.example/batch1/`): every id is
    /// absolute under it. Nil: ids relative to the files that hold them.
    public var base: String?

    public init(base: String? = nil) { self.base = base }
}

/// The version written into manifests and reports.
public let glossVersion = "0.1.0"

extension AnnotationSettings {
    /// What hOCR and ALTO name as their maker.
    var reportContext: ReportContext {
        ReportContext(softwareVersion: glossVersion, languages: recognition.languages)
    }
}
