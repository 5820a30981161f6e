import GlossContract

/// What a page's triage is decided on, all measured while it was read: nothing here is a guess
/// about the page's kind, and a field is nil when its mode does not measure it.
public struct TriageEvidence: Sendable, Equatable {
    /// The share of the page's ink in text-like rows no word covers (`InkCoverage.textShare`),
    /// and that ink as a share of the page's area.
    public var textInk: Double
    public var textInkArea: Double
    /// The share of the detector's lines no kept word covers; nil without the detector
    /// (`--text fast`) or when it found no line.
    public var unreadLines: Double?
    /// Of the lines both readers read, the share of characters on which they differ; nil when
    /// no line was read by both.
    public var disagreement: Double?
    /// The words kept, and their mean confidence (0...100) as the index shows it.
    public var words: Int
    public var meanConfidence: Double?
    /// Faces found on the page, and the share of its area the word boxes cover: a photo has
    /// faces, or text on a small part of it.
    public var faces: Int
    public var wordArea: Double

    public init(textInk: Double = 0, textInkArea: Double = 0, unreadLines: Double? = nil, disagreement: Double? = nil,
                words: Int, meanConfidence: Double?, faces: Int = 0, wordArea: Double = 0) {
        self.textInk = textInk
        self.textInkArea = textInkArea
        self.unreadLines = unreadLines
        self.disagreement = disagreement
        self.words = words
        self.meanConfidence = meanConfidence
        self.faces = faces
        self.wordArea = wordArea
    }

    /// A picture with stray words: a handful of words, or faces with words on under
    /// `policy.photoWordArea` of it. A photo of a sign or a label, its words covering more, is read as text.
    public func isPhotoWithStrayWords(_ policy: TriagePolicy) -> Bool {
        words < policy.photoWords || (faces > 0 && wordArea < policy.photoWordArea)
    }
}

/// Why a page is flagged for review.
public enum TriageReason: String, Sendable, CaseIterable, Codable {
    /// The detector found lines of text that no reading covers.
    case unreadLines = "unread-lines"
    /// Text-like ink has no words on it (the layout dropped a column, a caption).
    case inkWithoutWords = "ink-without-words"
    /// The two readers read the same lines differently.
    case readersDisagree = "readers-disagree"
    /// The words of a page of text are unsure.
    case unsureWords = "unsure-words"

    /// Whether the reason makes the page suspect (text missing or wrong whatever the
    /// confidence says) rather than of low confidence.
    public var isSuspect: Bool {
        switch self {
        case .unreadLines, .inkWithoutWords, .readersDisagree: true
        case .unsureWords: false
        }
    }
}

/// The triage's thresholds in one value; the measurement behind each is beside it
/// (`bench/reading/triage.py`, tuned on the tune half of the 73 bench pages and the face photos).
public struct TriagePolicy: Sendable, Equatable {
    /// Named in the settings' fingerprint beyond 1 (the version batches on disk were triaged
    /// under): a batch triaged under another policy is read again. Raise it with any threshold.
    public var version = 1

    /// Text-like ink without words, as a share of the page's ink and of its area. Text pages
    /// leave under 2% uncovered, a page with a dropped grey column 20% and more (docs/report.md);
    /// 0.16 rather than the earlier 0.12 is best on the tune half: it leaves a photo of rows of
    /// pebbles (0.145) alone and no page that needs review has text-like ink between the two.
    public var textInk = 0.16
    public var textInkArea = 0.0015
    /// The share of detected lines no kept word covers above which text is missing. On the
    /// bench's text pages (accurate) it is 0 but for one sparse page (0.2, 7 words, a picture):
    /// 0.05 to 0.25 are alike on the tune half; the photos' texture lines are set aside below.
    public var unreadLines = 0.10
    /// The share of differing characters on lines both readers read above which they disagree:
    /// 0.43 on the one tune page that needs review (a photographed ID card), under 0.25 on the rest.
    public var disagreement = 0.35
    /// The mean confidence under which a page of text is of low confidence. The pages whose
    /// words need fixing (receipts, a chart, a photographed letterhead) read at 74-84% in
    /// `fast`; sound pages mostly at 87-97%. 85 is best on the tune half (F1 0.53 against 0 at
    /// the old 70), measure F1 0.62 against 0.50 (bench/reading/triage.py).
    public var lowConfidence = 85.0
    /// A page with fewer words than this, or with faces and words covering less than
    /// `photoWordArea` of it, is a picture with stray words: never of low confidence (a handful
    /// of garbage words on a picture is not a page to proofread), and the detector's unread
    /// lines on it are its texture.
    public var photoWords = 10
    public var photoWordArea = 0.02

    public init() {}
}

/// The triage's verdict on a page, with its reasons.
public struct TriageVerdict: Sendable, Equatable {
    public var reasons: [TriageReason]
    public var suspect: Bool { reasons.contains { $0.isSuspect } }
    public var lowConfidence: Bool { reasons.contains(.unsureWords) }
}

/// Which pages need a reviewer's eye, decided from evidence alone: a pure function.
public enum Triage {
    public static func verdict(_ evidence: TriageEvidence, policy: TriagePolicy = TriagePolicy()) -> TriageVerdict {
        var reasons: [TriageReason] = []
        // The detector finds "lines" in a photo's texture that no reader reads: not missing text.
        if let unread = evidence.unreadLines, unread >= policy.unreadLines, !evidence.isPhotoWithStrayWords(policy) {
            reasons.append(.unreadLines)
        }
        if evidence.textInk >= policy.textInk && evidence.textInkArea >= policy.textInkArea { reasons.append(.inkWithoutWords) }
        if let disagreement = evidence.disagreement, disagreement >= policy.disagreement { reasons.append(.readersDisagree) }
        if let mean = evidence.meanConfidence, mean < policy.lowConfidence,
           !evidence.isPhotoWithStrayWords(policy) {
            reasons.append(.unsureWords)
        }
        return TriageVerdict(reasons: reasons)
    }

    /// The page's review record with the verdict on `evidence`; `measured` carries what the
    /// text analyzer measured (the ink left uncovered).
    public static func review(_ measured: PageReview, evidence: TriageEvidence, policy: TriagePolicy = TriagePolicy()) -> PageReview {
        let verdict = Self.verdict(evidence, policy: policy)
        var review = measured
        review.suspect = verdict.suspect
        review.lowConfidence = verdict.lowConfidence
        review.reasons = verdict.reasons.map(\.rawValue)
        return review
    }

    /// The share of characters on which two readings of a line differ: their edit distance
    /// over the longer's length; 0 for two empty readings.
    public static func difference(_ a: String, _ b: String) -> Double {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty || !b.isEmpty else { return 0 }
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in b.indices {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i - 1] == b[j] ? 0 : 1))
            }
            previous = current
        }
        return Double(a.isEmpty ? b.count : previous[b.count]) / Double(max(a.count, b.count))
    }
}

extension Triage {
    /// The evidence on a read page: what its text analyzer measured (`review`), its words and
    /// faces. Nil for a page whose text was not read.
    public static func evidence(of report: PageReport) -> TriageEvidence? {
        guard let review = report.review else { return nil }
        let area = Double(max(1, report.width * report.height))
        let wordArea = report.words.reduce(0.0) { $0 + Double($1.box.width * $1.box.height) } / area
        return TriageEvidence(textInk: review.textInk ?? 0, textInkArea: review.textInkArea ?? 0,
                              unreadLines: review.unreadLines, disagreement: review.disagreement,
                              words: report.words.count, meanConfidence: report.meanConfidence,
                              faces: report.faces.count, wordArea: wordArea)
    }

    /// `report` with its review flags decided from its evidence; unchanged when its text was not read.
    public static func triaged(_ report: PageReport, policy: TriagePolicy = TriagePolicy()) -> PageReport {
        guard let review = report.review, let evidence = evidence(of: report) else { return report }
        var report = report
        report.review = Self.review(review, evidence: evidence, policy: policy)
        return report
    }
}
