import Foundation
import GlossImaging
import GlossReading
import GlossReports
import GlossTextRecognition

/// Everything that decides what a page's results are. A finished page is only reused by a
/// later run with equal settings.
///
/// Each setting is declared twice, side by side: here with its default, and in `fields` with
/// its JSON key, how records from before it existed read, and its part of the fingerprint.
/// Decoding, encoding and the fingerprint are all made from `fields`.
public struct AnnotationSettings: Sendable, Codable, Hashable {
    public var recognition = RecognitionOptions()
    /// Images whose header claims more pixels are refused before decoding.
    public var pixelLimit = ImageFile.defaultPixelLimit
    /// The longest side of the display copy written beside each page's HTML.
    public var displayDimension = 2000
    /// What is written for every page (`--format`).
    public var formats = OutputFormat.defaults
    public var recognizeText = true
    public var detectFaces = true
    /// Which detector finds the faces.
    public var faceDetector = FaceDetectorKind.cnn
    /// The longest side of the copy the face detector scans: faces need far fewer pixels than
    /// text, and the scan's cost grows with the pixel count. Nil: the detector's own default.
    public var faceDimension: Int?
    /// A YuNet model to use instead of the one built in (`--face-model`), in Gloss's format.
    public var faceModelPath: String?
    /// Whether OpenCV's smile cascade runs in each face YuNet finds, for `hasSmile`
    /// (`--smiles`). Off: measured against what a person sees it agreed on 0.74 of faces (it
    /// calls 44 % of unsmiling faces smiling) and cost as much as the network on a photo of
    /// three faces (docs/faces.md). The cascade detector (`--faces cascade`) always runs it:
    /// its mouth comes from it.
    public var detectSmiles = false
    /// The batch as IIIF Presentation 3.0 (`--format iiif`, `--iiif-base`); nil writes none.
    /// A batch-level output, written from the page JSON at the end of a run, so it is not an
    /// `OutputFormat` (those are files per page) and the base URL is not in the fingerprint.
    public var iiif: IIIFOutput?
    /// The resolution of PDF pages that are not one full-page scan (`--pdf-resolution`); a
    /// scan is rendered at its own.
    public var pdfResolution = ImageFile.defaultPDFResolution
    /// Which PDF pages holding text are read again, and whether their old invisible text stays
    /// (`--pdf-mode`; `--skip-text` is `skip`). The default reads every page, as Gloss always has.
    public var pdfMode = PDFMode.force
    /// What the searchable PDF keeps to (`--pdf-standard`): PDF/A-2b unless asked otherwise.
    public var pdfStandard = PDFStandard.default
    /// Whether pages are prepared for reading: turned upright, levelled, scaled, and their
    /// dropped text read again (`--prepare`).
    public var prepare = PreparationSteps.auto
    /// Which reader reads the text (`--engine`) when one reader reads it alone (`fast`).
    public var textEngine = TextEngine.tesseract
    /// How the text is read (`--text`): `accurate` fuses both readers line by line by the
    /// reading plan (`Sources/Reading`), `fast` reads with `textEngine` alone.
    public var textMode = TextMode.accurate

    /// The default settings, but for the formats and whether faces are looked for, when given.
    public init(formats: Set<OutputFormat>? = nil, detectFaces: Bool? = nil) {
        if let formats { self.formats = formats }
        if let detectFaces { self.detectFaces = detectFaces }
    }
}

extension AnnotationSettings {
    /// Every setting as it is recorded, in the order it is written. A setting added to the
    /// struct is added here in one line; a record from before it existed must read as it did.
    static var fields: [Field] {
        [
            Field("recognition", \.recognition),
            Field("pixelLimit", \.pixelLimit),
            Field("displayDimension", \.displayDimension, aspect: .rendering),
            // A set has no order of its own: written sorted, so that the same settings give the
            // same bytes in every process (manifest, database, merged shards). The fingerprint
            // names them after its JSON, with `display` when IIIF asks each page for a display
            // copy that HTML does not already make.
            Field("formats", \.formats, stored: { $0.sorted { $0.rawValue < $1.rawValue } }, read: Set.init, aspect: .rendering,
                  fingerprint: .names(standingAs: []) { settings in
                      settings.formats.map(\.rawValue) + (settings.iiif != nil && !settings.formats.contains(.html) ? ["display"] : [])
                  }),
            Field("recognizeText", \.recognizeText),
            Field("detectFaces", \.detectFaces),
            // Settings recorded before the CNN detector existed were read with the cascade.
            Field("faceDetector", \.faceDetector, recorded: .absentMeans(.cascade)),
            Field("faceDimension", \.faceDimension, recorded: .absentMeans(nil)),
            Field("faceModelPath", \.faceModelPath, recorded: .absentMeans(nil)),
            // Every face was looked at for a smile before the setting existed: a record without
            // it means so, and `--smiles` fingerprints as those batches did.
            Field("detectSmiles", \.detectSmiles, recorded: .omittedAt(true)),
            // Written for the whole batch at the end of a run: a run that adds it or moves its
            // base rewrites the manifest and reads no page again.
            Field("iiif", \.iiif, recorded: .omittedAt(nil), fingerprint: .ignored(as: nil)),
            // Left out at their defaults: settings from before PDF input fingerprint as they
            // did, so their finished pages stay finished.
            Field("pdfResolution", \.pdfResolution, recorded: .omittedAtDefault),
            Field("pdfMode", \.pdfMode, recorded: .omittedAtDefault),
            // Settings from before it wrote plain PDFs, as `none` does. Only a batch that writes
            // PDF/A fingerprints it: one without PDFs, or with plain ones, fingerprints as before.
            Field("pdfStandard", \.pdfStandard, recorded: .omittedAt(.none), aspect: .rendering,
                  fingerprint: .names(standingAs: .none) { settings in
                      settings.formats.contains(.pdf) && settings.pdfStandard != .none ? ["pdf-standard-" + settings.pdfStandard.rawValue] : []
                  }),
            // Without preparation a page reads as it did before it existed, and fingerprints so;
            // with it, pages finished by an older Gloss are read again, and pages prepared under
            // another `PreparationPolicy` (its version is named).
            Field("prepare", \.prepare, recorded: .omittedAt(PreparationSteps.none),
                  fingerprint: .valueAndNames { settings in
                      settings.prepare == .none ? [] : ["preparation-policy-\(PreparationPolicy().version)"]
                  }),
            // Left out at Tesseract, which read every page before the neural reader existed: a
            // batch read as before fingerprints as before.
            Field("textEngine", \.textEngine, recorded: .omittedAtDefault),
            // Left out at `fast`, as every page was read before the plan existed; `accurate`
            // adds the plan's policy version, so a batch read under another is read again.
            Field("textMode", \.textMode, recorded: .omittedAt(.fast),
                  fingerprint: .names(standingAs: .fast) { settings in
                      switch settings.textMode {
                      case .fast: []
                      case .accurate: ["accurate", "fusion-policy-\(FusionPolicy().version)"]
                      }
                  }),
        ]
    }

    /// How a setting is recorded, so that records written before it existed still read.
    enum Recorded<Value> {
        /// Always written; every record holds it.
        case required
        /// Always written; a record without it meant `Value`.
        case absentMeans(Value)
        /// Written unless it is `Value`, which a record without it means.
        case omittedAt(Value)
        /// Written unless it is the default, which a record without it means.
        case omittedAtDefault
    }

    /// What a setting adds to the fingerprint.
    enum FingerprintPart<Value> {
        /// Its value, as recorded.
        case value
        /// Nothing: the fingerprint is made as if it were `Value`.
        case ignored(as: Value)
        /// The names given, sorted, after the JSON, in which it stands as `standingAs`.
        case names(standingAs: Value, (AnnotationSettings) -> [String])
        /// Its value, as recorded, and the names given after the JSON.
        case valueAndNames((AnnotationSettings) -> [String])
    }

    /// What a setting decides: what a page reads as, or only how its files are written from
    /// that reading (its formats, its display copy), which a run can do again from the page's
    /// JSON without reading it (`readingFingerprint`).
    enum Aspect {
        case reading
        case rendering
    }

    /// One setting's JSON key, how it is read and written, and its part of the fingerprint.
    struct Field {
        let aspect: Aspect
        /// Sets the setting to its default: how a rendering setting stands in the reading fingerprint.
        let standAtDefault: (inout AnnotationSettings) -> Void
        let key: Key
        let encode: (AnnotationSettings, inout KeyedEncodingContainer<Key>) throws -> Void
        let decode: (inout AnnotationSettings, KeyedDecodingContainer<Key>) throws -> Void
        /// Sets the setting as the fingerprint's JSON holds it.
        let standIn: (inout AnnotationSettings) -> Void
        /// What the setting adds after the fingerprint's JSON, if anything.
        let names: ((AnnotationSettings) -> [String])?

        init<Value: Codable & Equatable>(
            _ key: String, _ path: WritableKeyPath<AnnotationSettings, Value>, recorded: Recorded<Value> = .required,
            aspect: Aspect = .reading, fingerprint: FingerprintPart<Value> = .value
        ) {
            self.init(key, path, stored: { $0 }, read: { $0 }, recorded: recorded, aspect: aspect, fingerprint: fingerprint)
        }

        /// A setting written in another form, `stored`, and read back from it by `read`.
        init<Value: Equatable, Stored: Codable>(
            _ key: String, _ path: WritableKeyPath<AnnotationSettings, Value>, stored: @escaping (Value) -> Stored,
            read: @escaping (Stored) -> Value, recorded: Recorded<Value> = .required, aspect: Aspect = .reading,
            fingerprint: FingerprintPart<Value> = .value
        ) {
            let key = Key(key)
            self.key = key
            self.aspect = aspect
            standAtDefault = { $0[keyPath: path] = AnnotationSettings()[keyPath: path] }
            let absent: Value? = switch recorded {
            case .required: nil
            case .absentMeans(let value), .omittedAt(let value): value
            case .omittedAtDefault: AnnotationSettings()[keyPath: path]
            }
            let omitted: Value? = switch recorded {
            case .required, .absentMeans: nil
            case .omittedAt, .omittedAtDefault: absent
            }
            encode = { settings, container in
                let value = settings[keyPath: path]
                if let omitted, value == omitted { return }
                try container.encode(stored(value), forKey: key)
            }
            decode = { settings, container in
                if let absent {
                    settings[keyPath: path] = try container.decodeIfPresent(Stored.self, forKey: key).map(read) ?? absent
                } else {
                    settings[keyPath: path] = read(try container.decode(Stored.self, forKey: key))
                }
            }
            switch fingerprint {
            case .value:
                standIn = { _ in }
                names = nil
            case .ignored(let value):
                standIn = { $0[keyPath: path] = value }
                names = nil
            case .names(let value, let list):
                standIn = { $0[keyPath: path] = value }
                names = list
            case .valueAndNames(let list):
                standIn = { _ in }
                names = list
            }
        }
    }

    /// A setting's JSON key.
    struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init()
        for field in Self.fields { try field.decode(&self, container) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for field in Self.fields { try field.encode(self, &container) }
    }
}

extension AnnotationSettings {
    /// Whether each page gets a display copy: the page view shows it, and the IIIF canvas is
    /// painted with it.
    var writesDisplayCopy: Bool { formats.contains(.html) || iiif != nil }

    /// Page formats the batch-level outputs are made from: the IIIF annotations, from the JSON.
    var requiredFormats: Set<OutputFormat> { iiif != nil ? [.json] : [] }

    /// A digest of everything that decides a page's results and outputs: equal settings, equal
    /// fingerprint. Each setting's part is declared in `fields`: the JSON of the settings with
    /// their keys sorted, each standing as its part says, then the names some add, then the
    /// version of Gloss.
    var fingerprint: String { fingerprint(triage: TriagePolicy()) }

    /// The same of the settings that decide what a page reads as, every rendering setting
    /// standing at its default: equal for two runs whose pages read alike and are written
    /// otherwise (another `--format`, display size or PDF standard), whose files a run makes
    /// again from the page JSON.
    var readingFingerprint: String { fingerprint(triage: TriagePolicy(), readingOnly: true) }

    /// The fingerprint under a given triage policy. The triage runs in every mode, and decides
    /// each page's review flags: its version is named from 2 on, so that batches triaged under
    /// version 1 (every batch on disk) fingerprint as they did, and any later version reads
    /// pages again, as `PreparationPolicy` and `FusionPolicy` do.
    func fingerprint(triage: TriagePolicy, readingOnly: Bool = false) -> String {
        var settings = self
        var names: [String] = []
        for field in Self.fields {
            if readingOnly, field.aspect == .rendering {
                field.standAtDefault(&settings)
                continue
            }
            field.standIn(&settings)
            if let list = field.names { names.append(list(self).sorted().joined(separator: ",")) }
        }
        // The face detector's copy is made from the display copy when there is one, so where
        // faces are found, whether and at what size a display copy is made is part of the reading.
        if readingOnly { names.append("reading" + (detectFaces && writesDisplayCopy ? "-display-\(displayDimension)" : "")) }
        if triage.version > 1 { names.append("triage-policy-\(triage.version)") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Plain values and strings: encoding them cannot fail.
        let bytes = (try? encoder.encode(settings)).map { Array($0) } ?? []
        return String(SHA256.hex(of: bytes + Array((names.joined() + glossVersion).utf8)).prefix(16))
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
        ReportContext(softwareVersion: glossVersion, languages: recognition.languages, pdfStandard: pdfStandard, date: Date())
    }
}
