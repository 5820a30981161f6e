import GlossContract

/// How thoroughly a page's text is read (`--text`).
public enum TextMode: String, Sendable, Codable, Hashable, CaseIterable {
    /// Tesseract reads the page, the neural detector finds its lines, and the neural reader
    /// reads the lines Tesseract left uncovered or was unsure of (on calibrated probability).
    case accurate
    /// Tesseract reads the page alone, with its own layout and the cheap steps of preparation.
    case fast

    /// Whether the detector's lines are among the page's signals: the plan needs them.
    public var detectsLines: Bool {
        switch self {
        case .accurate: true
        case .fast: false
        }
    }
}

/// The plan's rules, each by the stable name the page JSON records when it fires
/// (`preparation.rules`) and docs/reading.md tabulates.
public enum PlanRule: String, Sendable, Codable, Hashable, CaseIterable {
    /// `fast`: Tesseract reads the page with its own layout, alone.
    case tesseractPage = "tesseract-page"
    /// `accurate`, and the detector found no line: Tesseract's reading stands alone.
    case noDetectedLines = "no-detected-lines"
    /// `accurate`: Tesseract reads the page, and its words are fused with the detector's lines.
    case fuseLines = "fuse-lines"
    /// A detected line holding no Tesseract word (text its layout dropped): the neural reader
    /// reads it.
    case uncoveredLine = "uncovered-line"
    /// A detected line Tesseract read unsure (under `FusionPolicy.unsureLine`): the neural
    /// reader reads it too, and the reading of higher calibrated probability is kept.
    case unsureLine = "unsure-line"
    /// A detected line Tesseract read surely: its words stand.
    case confidentLine = "confident-line"
    /// Tesseract words in no detected line, sure ones (`FusionPolicy.sureOutsideWord`): they
    /// stay, in their own lines, but for one the line reader read too (the same text where
    /// their boxes meet), which is not kept twice.
    case wordsOutsideLines = "words-outside-lines"
    /// Tesseract words in no detected line it was unsure of: dropped (rules and specks of
    /// pictures read as letters, mostly).
    case unsureOutsideWords = "unsure-outside-words"
    /// The page reader kept most of the detected lines: the fused lines in its layout's order.
    case pageReaderOrder = "page-reader-order"
    /// It kept fewer (a receipt, a photo it half read): in the order of the lines' geometry.
    case geometricOrder = "geometric-order"
    /// `accurate`, a page whose way up the orientation detectors doubted, and the detected lines
    /// stand upright (`FusionPolicy.uprightLines`): Tesseract reads it once, the way it was given.
    case linesSettleWayUp = "lines-settle-way-up"
    /// `accurate`: Tesseract's first reading, of the page the way it was given, is sure of every
    /// line (`FusionPolicy.unsureLine`), of enough lines (`surePageLines`), leaves no text-like
    /// ink without words (`surePageText`) and, when the way up was in doubt, settles it
    /// (`SecondReadings.settlesWayUp`). It stands; the detector is not run, as every line it
    /// found would be kept as Tesseract read it.
    case surePage = "sure-page"
    /// `accurate`: the detector was given the median height of the first reading's sure words
    /// (`FusionPolicy.sureWordHeight`), and its input is shrunk where that height allows
    /// (`DetectionPolicy.shrinkingWordHeight`).
    case wordsSizeDetector = "words-size-detector"
}

/// What Tesseract's first reading of a page says of it: the evidence of `sure-page`.
public struct PageEvidence: Sendable, Equatable {
    /// The mean calibrated probability of each line's words, in reading order.
    public var lineProbabilities: [Double]
    /// The share of the page's ink in text-like rows no word covers.
    public var uncoveredText: Double
    /// Whether the page's way up was sure, or this reading settles it.
    public var settlesWayUp: Bool

    public init(lineProbabilities: [Double], uncoveredText: Double, settlesWayUp: Bool) {
        self.lineProbabilities = lineProbabilities
        self.uncoveredText = uncoveredText
        self.settlesWayUp = settlesWayUp
    }

    /// The evidence of `text`, its confidences on `scale`.
    public init(text: RecognizedText, scale: ConfidenceScale, uncoveredText: Double, settlesWayUp: Bool) {
        lineProbabilities = text.lines.compactMap { line in RecognizedText.mean(of: line.words.map { scale.probability($0.confidence) }) }
        self.uncoveredText = uncoveredText
        self.settlesWayUp = settlesWayUp
    }
}

/// What is read, by which reader, before any reading is made: a pure function of the page's
/// signals, the mode and the policy.
public struct ReadingPlan: Sendable, Equatable {
    /// The reader that reads the whole page with its own layout first.
    public var pageReader: LineReader
    /// How the detector's lines are read after it; nil when the page reader's reading stands.
    public var lines: LinePlan?
    /// The page's rules that fired in making the plan.
    public var rules: [PlanRule]
    /// Whether the page reader reads the page only the way it was given, though the orientation
    /// detectors doubted it: the detected lines settled its way up.
    public var wayUpSettled = false

    /// Whether Tesseract reads the page the way it was given before the detector runs, so that
    /// a sure reading can stand alone (`sure-page`): in `accurate`, unless the orientation
    /// detectors were unsure of the page's way up. Such a page is read its other ways too unless
    /// its detected lines settle it (`lines-settle-way-up`), so a reading made first would be
    /// made again: on 51 bench pages turned 90, 180 and 270 degrees, reading them first cost
    /// up to 1.4 times the CPU on a page (a chart on its side, 12.5 -> 17.4 s).
    public static func readsPageFirst(signals: PageSignals, mode: TextMode) -> Bool {
        mode.detectsLines && !signals.detectorsUnsure
    }

    /// The plan of a page read first whose reading stands (`sure-page`); nil when the
    /// detector's lines are needed.
    public static func standing(_ evidence: PageEvidence, policy: FusionPolicy) -> ReadingPlan? {
        guard evidence.settlesWayUp, evidence.lineProbabilities.count >= policy.surePageLines,
              evidence.lineProbabilities.allSatisfy({ $0 >= policy.unsureLine }),
              evidence.uncoveredText <= policy.surePageText else { return nil }
        return ReadingPlan(pageReader: .tesseract, lines: nil, rules: [.surePage])
    }

    init(pageReader: LineReader, lines: LinePlan?, rules: [PlanRule]) {
        self.pageReader = pageReader
        self.lines = lines
        self.rules = rules
    }

    public init(signals: PageSignals, mode: TextMode, policy: FusionPolicy) {
        pageReader = .tesseract
        switch mode {
        case .fast:
            lines = nil
            rules = [.tesseractPage]
        case .accurate:
            guard let detected = signals.lines, !detected.isEmpty else {
                lines = nil
                rules = [.noDetectedLines]
                return
            }
            lines = LinePlan(lines: detected, lineReader: .neural, unsureBelow: policy.unsureLine)
            rules = [.fuseLines]
            if signals.wayUpInDoubt && policy.settlesWayUp(detected) {
                wayUpSettled = true
                rules.append(.linesSettleWayUp)
            }
        }
    }
}

/// The detector's lines, and what becomes of each once the page reader has read the page.
public struct LinePlan: Sendable, Equatable {
    /// The detected lines, in the detector's order.
    public var lines: [LineSignals]
    /// The reader of the lines the page reader left uncovered or was unsure of.
    public var lineReader: LineReader
    /// The page reader's calibrated line probability under which the line reader reads too.
    public var unsureBelow: Double

    public init(lines: [LineSignals], lineReader: LineReader, unsureBelow: Double) {
        self.lines = lines
        self.lineReader = lineReader
        self.unsureBelow = unsureBelow
    }

    /// What is done with one line, from what the page reader made of it: a pure decision.
    public func action(for evidence: LineEvidence) -> LineAction {
        guard let probability = evidence.pageReaderProbability else { return .readInstead }
        return probability < unsureBelow ? .readAlso : .keep
    }
}

/// What the page reader made of one detected line.
public struct LineEvidence: Sendable, Equatable {
    /// The line, as detected.
    public var line: LineSignals
    /// The calibrated probabilities of the page reader's words assigned to the line.
    public var probabilities: [Double]

    public init(line: LineSignals, probabilities: [Double]) {
        self.line = line
        self.probabilities = probabilities
    }

    /// The mean of `probabilities`; nil when the page reader put no word on the line.
    public var pageReaderProbability: Double? { RecognizedText.mean(of: probabilities) }
}

/// What becomes of one detected line.
public enum LineAction: Sendable, Equatable, CaseIterable {
    /// The page reader's words stand.
    case keep
    /// The page reader put no word on it: the line reader reads it.
    case readInstead
    /// The page reader was unsure: the line reader reads it too, and the reading of higher
    /// calibrated probability is kept.
    case readAlso

    /// The rule that decided it.
    public var rule: PlanRule {
        switch self {
        case .keep: .confidentLine
        case .readInstead: .uncoveredLine
        case .readAlso: .unsureLine
        }
    }

    /// Whether the line reader reads the line.
    public var readsLine: Bool {
        switch self {
        case .keep: false
        case .readInstead, .readAlso: true
        }
    }
}
