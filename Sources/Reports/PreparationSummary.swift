import GlossContract
import GlossGeometry

/// A page's preparation record told in the words a reviewer uses: what was done to the page
/// before its text was read, one step a line, each with its time. The page view's info panel
/// shows it; a page read as it came says so, so a reviewer never has to guess.
public struct PreparationSummary: Equatable, Sendable {
    /// One step of the preparation: what it did to this page and how long it took.
    public struct Step: Equatable, Sendable {
        /// The step's stable name, written as `data-step` for tests and styles: `orientation`,
        /// `deskew`, `scale`, `binarization`, `reread`, or a timing's own name.
        public var name: String
        /// What the step did, in plain words.
        public var text: String
        /// Whether the step changed the page (or, for the re-reading, added words).
        public var changed: Bool
        /// The step's time in milliseconds; nil when it was not timed.
        public var milliseconds: Double?
    }

    /// Whether nothing at all was changed: the page was read as it came.
    public var readAsItCame: Bool
    /// The steps, in the order they ran.
    public var steps: [Step]
    /// The time of all the steps together, in milliseconds.
    public var totalMilliseconds: Double

    /// The timing names a binarisation recipe may record; the record does not fix one.
    static let binarizationTimings = ["flatten", "binarization", "binarisation", "binarize", "threshold"]

    public init(_ record: PagePreparation) {
        readAsItCame = !record.changedPage
        totalMilliseconds = record.timings.stages.map(\.milliseconds).reduce(0, +)
        var steps: [Step] = []
        var explained: Set<String> = []
        /// The time of a step recorded under any of `names` (several names, older and newer,
        /// for one step), summed.
        func time(_ names: [String]) -> Double? {
            explained.formUnion(names)
            let found = names.compactMap { record.timings[$0] }
            return found.isEmpty ? nil : found.reduce(0, +)
        }

        let orientationTime = time(["orientation", "turn"])
        if let text = Self.orientation(record, timed: orientationTime != nil) {
            steps.append(Step(name: "orientation", text: text, changed: record.rotation != 0, milliseconds: orientationTime))
        }
        let deskewTime = time(["deskew"])
        if record.skew != 0 || deskewTime != nil {
            steps.append(Step(name: "deskew", text: Self.levelling(record.skew), changed: record.skew != 0, milliseconds: deskewTime))
        }
        let scaleTime = time(["scale", "compare"])
        if record.scale != 1 || record.xHeight != nil || scaleTime != nil || record.resolutionSetAside != nil {
            steps.append(Step(name: "scale", text: Self.scaling(record), changed: record.scale != 1, milliseconds: scaleTime))
        }
        let binarizationTime = time(Self.binarizationTimings)
        if record.binarization != "tesseract" || binarizationTime != nil {
            steps.append(Step(name: "binarization", text: Self.binarization(record.binarization),
                              changed: record.binarization != "tesseract", milliseconds: binarizationTime))
        }
        let rereadTime = time(["reread"])
        if record.regionsReread > 0 || record.wordsAdded > 0 || rereadTime != nil {
            steps.append(Step(name: "reread", text: Self.rereading(record), changed: record.wordsAdded > 0, milliseconds: rereadTime))
        }
        // A step added later still shows with its time, under its own name, until it has words here.
        for stage in record.timings.stages where !explained.contains(stage.name) {
            steps.append(Step(name: stage.name, text: stage.name, changed: false, milliseconds: stage.milliseconds))
        }
        self.steps = steps
    }

    /// "Turned 90° clockwise (orientation confidence 12.3)", or "(by 16 rows of letters)" when
    /// its rows settled it; "Already upright" when the
    /// orientation was checked and kept; nil when it was not checked at all. A page read both
    /// ways says which it was read more confidently than.
    static func orientation(_ record: PagePreparation, timed: Bool) -> String? {
        let confidence = record.orientationConfidence.map { " (orientation confidence " + DecimalText.format($0, maximumFractionDigits: 1) + ")" }
            ?? record.rowsRead.map { " (by \($0) rows of letters)" } ?? ""
        let comparison = record.rotationSetAside.map { ", read more confidently than " + (turning($0) ?? "as it came") } ?? ""
        guard let turned = turning(record.rotation) else {
            return timed || !confidence.isEmpty ? "Already upright" + confidence + comparison : nil
        }
        let headline = record.rotation % 360 == 180 ? "Turned 180°: it was upside down" : turned.prefix(1).uppercased() + turned.dropFirst()
        return headline + confidence + comparison
    }

    /// "turned 180°", and so on; nil for no turn.
    static func turning(_ degrees: Int) -> String? {
        switch ((degrees % 360) + 360) % 360 {
        case 0: return nil
        case 90: return "turned 90° clockwise"
        case 180: return "turned 180°"
        case 270: return "turned 90° counter-clockwise"
        case let turn: return "turned \(turn)° clockwise"
        }
    }

    /// "Levelled by turning 1.2° counter-clockwise"; "Lines already level" for a skew of 0.
    static func levelling(_ skew: Double) -> String {
        guard skew != 0 else { return "Lines already level" }
        let way = skew > 0 ? "counter-clockwise" : "clockwise"
        return "Levelled by turning " + DecimalText.format(abs(skew), maximumFractionDigits: 2) + "° " + way
    }

    /// "Letters 7 px high: read enlarged ×2.29", or reduced, or at their own size.
    static func scaling(_ record: PagePreparation) -> String {
        let letters = record.xHeight.map { "Letters " + DecimalText.format($0, maximumFractionDigits: 1) + " px high: " } ?? "Letter size not measured: "
        let factor = "×" + DecimalText.format(record.scale, maximumFractionDigits: 2)
        if record.scale > 1 { return letters + "read enlarged " + factor }
        if record.scale < 1 { return letters + "read reduced " + factor }
        if let tried = record.enlargementSetAside {
            return letters + "read at their own size, more confidently than enlarged ×" + DecimalText.format(tried, maximumFractionDigits: 2)
        }
        if let told = record.resolutionSetAside {
            return letters + "read at their own size and the file's resolution, more confidently than told \(told) ppi"
        }
        return letters + "read at their own size"
    }

    /// How the text copy was made black and white.
    static func binarization(_ recipe: String) -> String {
        switch recipe {
        case "tesseract": return "Black and white by Tesseract's own threshold"
        case "sauvola": return "Black and white by a local threshold (Sauvola), for uneven light"
        case "flattened, stretched": return "Uneven light evened out and contrast stretched"
        case "inverted": return "Light text on a dark page inverted"
        case "flattened, stretched, inverted": return "Uneven light evened out, contrast stretched and light text inverted"
        default: return "Prepared by the \(recipe) recipe"
        }
    }

    /// "12 regions the layout missed read again: 37 words added".
    static func rereading(_ record: PagePreparation) -> String {
        guard record.regionsReread > 0 else { return "No ink the layout missed: nothing read again" }
        let regions = record.regionsReread == 1 ? "1 region" : "\(record.regionsReread) regions"
        let words = record.wordsAdded == 0 ? "no words added" : record.wordsAdded == 1 ? "1 word added" : "\(record.wordsAdded) words added"
        return regions + " the layout missed read again: " + words
    }
}
