import Foundation
import GlossContract
import GlossPipeline

#if canImport(Glibc)
import Glibc
#endif

/// Renders a batch's events on stderr. On a terminal: one line, redrawn as pages end and once a
/// second, with the file in flight and the time so far, so a page that takes a minute does not
/// look like a hang. In a log: a line per page that ends, with its time, and a line when a page
/// has run for 30 s, 1, 2, 4... minutes. Errors are always shown, one line each.
final class ProgressDisplay {
    /// Where lines go and what time it is: stderr and the clock, or a test's.
    struct Output: Sendable {
        var interactive: Bool
        /// The terminal's width in columns; nil when unknown.
        var width: @Sendable () -> Int?
        var now: @Sendable () -> ContinuousClock.Instant
        var write: @Sendable (String) -> Void

        static let standardError = Output(
            interactive: isatty(STDERR_FILENO) == 1,
            width: {
                var size = winsize()
                guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
                return Int(size.ws_col)
            },
            now: { .now },
            write: { StandardStreams.writeError($0) })
    }

    /// Which page of which file.
    private struct PageInFlight: Hashable {
        var source: String
        var pageIndex: Int
    }

    /// A page being read, since when, and when a log last said it still was.
    private struct Running {
        var started: ContinuousClock.Instant
        var reported: Duration = .zero
    }

    private let quiet: Bool
    private let output: Output
    private let started: ContinuousClock.Instant
    private(set) var tally = BatchTally()
    private var running: [PageInFlight: Running] = [:]
    private var lineShown = false

    /// A log says a page is still running after this long, then each time its time doubles.
    static let firstStillRunning = Duration.seconds(30)

    init(quiet: Bool, output: Output = .standardError) {
        self.quiet = quiet
        self.output = output
        started = output.now()
    }

    /// The time since the display was made: the batch's elapsed time.
    var elapsed: Duration { output.now() - started }

    func show(_ event: BatchEvent) {
        tally.count(event)
        switch event {
        case .started, .pageSkipped:
            break
        case .pageStarted(let source, let pageIndex):
            running[PageInFlight(source: source, pageIndex: pageIndex)] = Running(started: output.now())
        case .analyzerUnavailable(let name, let reason):
            error("gloss: \(name) cannot run, so pages are read without it: \(reason)")
        case .batchFolderSkipped(let folder):
            error("gloss: \(folder) holds a Gloss batch; its files are outputs, not read as inputs")
        case .indexRebuilt(let path, let problem, let pages):
            error("gloss: \(path) was damaged (\(problem)); rebuilt it from \(BatchSummary.count(pages, "page JSON file"))")
        case .correctionsApplied(let source, let pageIndex, _, let unmatched):
            // Said even with --quiet: a reviewer's work no longer shows on the page.
            for correction in unmatched {
                let words = (correction.old.isEmpty ? correction.new : correction.old).map { "'\($0.text)' at \($0.box)" }
                error("gloss: \(Self.name(source, pageIndex)): a \(correction.kind.rawValue) by \(correction.by) (\(correction.at)) "
                      + "no longer matches the page as read: " + words.joined(separator: ", "))
            }
        case .notArchival(let source, let reason):
            // Said even with --quiet: the document is not what was asked for.
            error("gloss: warning: \(source): not made PDF/A-2b: \(reason)")
        case .inputKept(_, let reason, let pages):
            // Said even with --quiet: the input was not read, though its pages stand. The
            // reason names the input, as a failed page's error does.
            error("gloss: \(reason); its \(BatchSummary.count(pages, "page")) as read before \(pages == 1 ? "is" : "are") kept")
        case .pruned(let pages):
            // Said even with --quiet: files went.
            error("gloss: pruned \(BatchSummary.count(pages, "page")) of inputs no longer named")
        case .pageFinished(let entry), .pageRewritten(let entry):
            let run = running.removeValue(forKey: PageInFlight(source: entry.source, pageIndex: entry.pageIndex))
            if let message = entry.error, entry.status != .ok {
                error("gloss: \(message)")
            } else if !quiet && !output.interactive {
                let time = run.map { " in " + BatchSummary.format(output.now() - $0.started) } ?? ""
                write(line: "gloss: ok \(Self.name(entry.source, entry.pageIndex)): "
                      + "\(BatchSummary.count(entry.words, "word")), \(BatchSummary.count(entry.faces, "face"))\(time)")
            }
        }
        if output.interactive && !quiet { redraw() }
    }

    /// Once a second or so: redraws the line on a terminal, with the time running on; in a log,
    /// says which pages have been running long.
    func tick() {
        guard !quiet else { return }
        if output.interactive {
            redraw()
            return
        }
        let now = output.now()
        for (key, run) in running.sorted(by: { $0.value.started < $1.value.started }) {
            let time = now - run.started
            let due = run.reported == .zero ? Self.firstStillRunning : run.reported * 2
            guard time >= due else { continue }
            running[key]?.reported = due
            write(line: "gloss: still reading \(Self.name(key.source, key.pageIndex)) (\(BatchSummary.format(time)))")
        }
    }

    /// Ends the updating line, so what follows starts on a line of its own.
    func close() {
        clearLine()
    }

    /// The updating line: counts, rate, estimate, time so far, and the page that has been
    /// running longest, its name shortened in the middle to fit the terminal. On a narrow
    /// terminal the rate goes first, to leave the name room.
    func progressLine() -> String {
        let now = output.now()
        let elapsed = now - started
        let minutes = elapsed.secondsValue / 60
        var counts = ["\(tally.filesReached.count)/\(tally.files) files", BatchSummary.count(tally.pages, "page"),
                      "\(tally.failed) failed"]
        if tally.cancelled > 0 { counts.append("\(tally.cancelled) cancelled") }
        if tally.skipped > 0 { counts.append("\(tally.skipped) already done") }
        var rate: String?
        var estimate: [String] = []
        if minutes > 0.02, tally.read > 0 {
            rate = "\(Int((Double(tally.read) / minutes).rounded())) pages/min"
            let reached = tally.filesReached.count
            if reached > 0, reached < tally.files {
                let remaining = Duration.seconds(Double(tally.files - reached) * elapsed.secondsValue / Double(reached))
                estimate.append("ETA " + BatchSummary.format(remaining))
            }
        }
        estimate.append(BatchSummary.format(elapsed))
        let full = "gloss: " + (counts + (rate.map { [$0] } ?? []) + estimate).joined(separator: " · ")
        guard let (key, run) = running.min(by: { $0.value.started < $1.value.started }) else { return full }
        let time = " (\(BatchSummary.format(now - run.started)))"
        let name = TerminalText.escaping(Self.name(key.source, key.pageIndex))
        // Measured in the terminal's columns: a line that wraps is not cleared by the next redraw.
        let columns = (output.width() ?? 80) - 1
        var line = full
        if columns - TerminalText.columns(line) - 3 - time.count < min(TerminalText.columns(name), Self.nameRoom) {
            line = "gloss: " + (counts + estimate).joined(separator: " · ")
        }
        let shown = Self.shortened(name, to: columns - TerminalText.columns(line) - 3 - time.count)
        return shown.isEmpty ? TerminalText.prefix(line, columns: columns) : line + " · " + shown + time
    }

    /// The least room a name in flight is given, at the cost of the rate.
    static let nameRoom = 24

    /// `text` in at most `columns` terminal columns, its middle replaced by an ellipsis: the start of
    /// a path and the file's own name stay (the name whole when there is room for it and a few
    /// characters of the start). Empty when there is no room for a useful part.
    static func shortened(_ text: String, to columns: Int) -> String {
        guard TerminalText.columns(text) > columns else { return text }
        guard columns >= 12 else { return "" }
        let name = TerminalText.columns(text.lastIndex(of: "/").map { String(text[$0...]) } ?? text)
        let tail = min(columns - 5, max((columns - 1) * 2 / 3, name))
        let end = TerminalText.suffix(text, columns: tail)
        return TerminalText.prefix(text, columns: columns - 1 - TerminalText.columns(end)) + "…" + end
    }

    /// A page as a line names it: the file, and the page for any but the first.
    private static func name(_ source: String, _ pageIndex: Int) -> String {
        pageIndex == 0 ? source : "\(source) page \(pageIndex + 1)"
    }

    private func redraw() {
        output.write("\r\u{1B}[2K" + progressLine())
        lineShown = true
    }

    private func error(_ text: String) {
        write(line: text)
    }

    /// One line, its control characters escaped, after clearing the updating line.
    private func write(line: String) {
        clearLine()
        output.write(TerminalText.escaping(line) + "\n")
    }

    private func clearLine() {
        guard lineShown else { return }
        output.write("\r\u{1B}[2K")
        lineShown = false
    }
}
