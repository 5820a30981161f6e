import Foundation
import GlossContract

/// What a batch did, counted from its events: the figures of the progress line and of the
/// summary a person reads when it ends.
public struct BatchTally: Sendable, Equatable {
    /// Input files, as `started` gave them.
    public var files = 0
    /// Input files with at least one page ended or skipped.
    public var filesReached: Set<String> = []
    /// Pages this run read (whatever became of them) and pages an earlier run had finished.
    public var read = 0
    public var skipped = 0
    /// Pages written again from an earlier run's reading (`BatchEvent.pageRewritten`).
    public var rewritten = 0
    /// Pages not read: failed or timed out.
    public var failed = 0
    /// Pages stopped by an interruption (Ctrl-C, SIGTERM): not failed, to be read by the next run.
    public var cancelled = 0
    /// Words and faces of every page read or skipped.
    public var words = 0
    public var faces = 0
    /// Pages whose review flag is raised (`PageReview.suspect`).
    public var suspect = 0
    /// Corrections applied again to pages read again, and those that no longer match their page.
    public var correctionsKept = 0
    public var correctionsUnmatched = 0
    /// Inputs that could not be opened, whose earlier reading was kept (`BatchEvent.inputKept`).
    public var inputsKept = 0

    public init() {}

    /// Pages ended or skipped.
    public var pages: Int { read + skipped + rewritten }
    /// Input files of which no page was reached: not started when the batch was stopped.
    public var notStarted: Int { max(0, files - filesReached.count) }

    public mutating func count(_ event: BatchEvent) {
        switch event {
        case .started(let count): files = count
        case .pageFinished(let entry):
            read += 1
            add(entry)
        case .pageSkipped(let entry):
            skipped += 1
            add(entry)
        case .pageRewritten(let entry):
            rewritten += 1
            add(entry)
        case .correctionsApplied(_, _, let applied, let unmatched):
            correctionsKept += applied
            correctionsUnmatched += unmatched.count
        case .inputKept: inputsKept += 1
        case .pageStarted, .analyzerUnavailable, .batchFolderSkipped, .indexRebuilt, .pruned, .notArchival: break
        }
    }

    private mutating func add(_ entry: ManifestEntry) {
        filesReached.insert(entry.source)
        switch entry.status {
        case .ok: break
        case .cancelled: cancelled += 1
        default: failed += 1
        }
        words += entry.words
        faces += entry.faces
        if entry.suspect == true { suspect += 1 }
    }
}

/// The lines Gloss prints when a batch ends: what was read, how long it took, and where to
/// look next.
public struct BatchSummary: Sendable {
    public var tally: BatchTally
    public var elapsed: Duration
    /// The batch folder, as the user named it.
    public var folder: String

    public init(tally: BatchTally, elapsed: Duration, folder: String) {
        self.tally = tally
        self.elapsed = elapsed
        self.folder = folder
    }

    /// Three lines, without line ends, each to follow `gloss: ` as every line Gloss prints does:
    ///
    ///     done in 1m12s: 12 pages read, 3 skipped (finished in an earlier run), 1 failed
    ///     4310 words, 7 faces; 2 pages suspect (text may be missing)
    ///     open out/index.html, or search: gloss search out WORD
    ///
    /// A batch that was stopped also counts its cancelled pages and the inputs it did not start.
    public var lines: [String] {
        var found = [Self.count(tally.words, "word"), Self.count(tally.faces, "face")].joined(separator: ", ")
        if tally.suspect > 0 { found += "; " + Self.count(tally.suspect, "page") + " suspect (text may be missing)" }
        if tally.correctionsKept + tally.correctionsUnmatched > 0 {
            found += "; " + Self.count(tally.correctionsKept, "correction") + " kept"
            if tally.correctionsUnmatched > 0 { found += ", \(tally.correctionsUnmatched) no longer matching (listed above)" }
        }
        let next = "open \((folder as NSString).appendingPathComponent("index.html")), "
            + "or search: gloss search \(Self.shellWord(folder)) WORD"
        return ["done in \(Self.format(elapsed)): " + counts, found, next]
    }

    /// `12 pages read, 3 skipped (finished in an earlier run), 1 failed`, then `2 cancelled` and
    /// `24 inputs not started` when the batch was stopped before them.
    public var counts: String {
        var counts = [Self.count(tally.read - tally.failed - tally.cancelled, "page") + " read"]
        if tally.rewritten > 0 { counts.append("\(tally.rewritten) written again from an earlier reading") }
        if tally.skipped > 0 { counts.append("\(tally.skipped) skipped (finished in an earlier run)") }
        if tally.cancelled > 0 { counts.append("\(tally.cancelled) cancelled") }
        counts.append("\(tally.failed) failed")
        if tally.inputsKept > 0 { counts.append(Self.count(tally.inputsKept, "input") + " not opened (kept as read before)") }
        if tally.notStarted > 0 { counts.append(Self.count(tally.notStarted, "input") + " not started") }
        return counts.joined(separator: ", ")
    }

    /// `1 page`, `2 pages`.
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(number == 1 ? noun : noun + "s")"
    }

    /// A duration as people read it: `0.4s`, `12s`, `3m05s`, `2h07m`.
    public static func format(_ duration: Duration) -> String {
        let seconds = duration.secondsValue
        if seconds < 10 { return String(format: "%.1fs", max(0, seconds)) }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" + String(format: "%02ds", whole % 60) }
        return "\(whole / 3600)h" + String(format: "%02dm", whole % 3600 / 60)
    }

    /// `word` as a shell reads it back: as it is when it holds only safe characters, else in
    /// single quotes.
    public static func shellWord(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,")
        if !word.isEmpty, word.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
