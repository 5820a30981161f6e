import GlossGeometry

/// How Tesseract reads a page. Part of a batch's settings: changing it invalidates earlier results.
public struct RecognitionOptions: Sendable, Hashable, Codable {
    /// Tesseract language codes, tried together (`eng`, `eng+deu`).
    public var languages: [String]
    /// Tesseract's page segmentation mode, 0...13 (`--psm`); 3 is fully automatic layout analysis.
    public var pageSegmentationMode: Int
    /// Where the `.traineddata` files are; nil for `TESSDATA_PREFIX` or Debian's location.
    public var dataPath: String?

    public init(languages: [String] = ["eng"], pageSegmentationMode: Int = 3, dataPath: String? = nil) {
        self.languages = languages
        self.pageSegmentationMode = pageSegmentationMode
        self.dataPath = dataPath
    }

    /// The resolution assumed when a file states none, or one too low to be real. Many writers
    /// store 72 ppi as a placeholder; Tesseract's size heuristics need a plausible scan resolution.
    public static let assumedResolution = 300

    /// What Tesseract is told for a resolution it is given. Whether a file's resolution is
    /// believed is decided before, by `StatedResolution` (through `TextScale`): a reading
    /// that tells Tesseract a placeholder 96 does so on purpose, to compare it with the
    /// reading told 300 (`TextAnalyzer`), or because `--prepare none` reads a page as the
    /// `tesseract` command does. Only what no page can be (72 and less, above the believable
    /// range) is replaced here.
    static func effectiveResolution(_ stated: Int?) -> Int {
        guard let stated, stated > 72, stated <= StatedResolution.believable.upperBound else { return assumedResolution }
        return stated
    }
}

/// Why text recognition could not run. The pipeline adds the file and the page.
public struct TextRecognitionError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        case missingLanguage(String, searched: [String])
        case invalidPageSegmentationMode(Int)
        case engineFailed(String)
    }

    public var reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case .missingLanguage(let language, let searched):
            "no Tesseract model for language '\(language)' (looked for \(language).traineddata in "
                + "\(searched.joined(separator: ", "))); install the Debian package \(Self.debianPackage(for: language))"
        case .invalidPageSegmentationMode(let mode):
            "page segmentation mode \(mode) is not one of Tesseract's 0...13"
        case .engineFailed(let what): "Tesseract failed: \(what)"
        }
    }

    /// The Debian package that provides a language's model: `tesseract-ocr-fra`,
    /// `tesseract-ocr-chi-sim` for `chi_sim`.
    static func debianPackage(for language: String) -> String {
        "tesseract-ocr-" + String(language.lowercased().map { $0 == "_" ? "-" : $0 })
    }
}
