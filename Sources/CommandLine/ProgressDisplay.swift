import Foundation
import GlossPipeline

#if canImport(Glibc)
import Glibc
#endif

/// Renders a batch's events on stderr: one updating line on a terminal; otherwise a plain line
/// per finished page, for logs. Errors are always shown, one line each.
final class ProgressDisplay {
    private let quiet: Bool
    private let interactive = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private var files = 0
    private var filesDone = Set<String>()
    private var pages = 0
    private var failed = 0
    private var skipped = 0
    private var lineShown = false

    init(quiet: Bool) { self.quiet = quiet }

    func show(_ event: BatchEvent) {
        switch event {
        case .started(let count):
            files = count
        case .pageStarted:
            break
        case .analyzerUnavailable(let name, let reason):
            clearLine()
            printError("gloss: \(name) cannot run, so pages are read without it: \(reason)")
        case .batchFolderSkipped(let folder):
            clearLine()
            printError("gloss: \(folder) holds a Gloss batch; its files are outputs, not read as inputs")
        case .indexRebuilt(let path, let problem, let pages):
            clearLine()
            printError("gloss: \(path) was damaged (\(problem)); rebuilt it from \(pages) page JSON \(pages == 1 ? "file" : "files")")
        case .pageSkipped(let entry):
            skipped += 1
            count(entry)
        case .pageFinished(let entry):
            count(entry)
            if let error = entry.error, entry.status != .ok {
                clearLine()
                printError("gloss: \(error)")
            } else if !quiet && !interactive {
                let page = entry.pageIndex == 0 ? "" : " page \(entry.pageIndex + 1)"
                printError("gloss: ok \(entry.source)\(page): \(entry.words) words, \(entry.faces) faces")
            }
        }
        if interactive && !quiet { redraw() }
    }

    /// Ends the updating line, so what follows starts on a line of its own.
    func close() {
        clearLine()
    }

    private func count(_ entry: ManifestEntry) {
        pages += 1
        if entry.status != .ok { failed += 1 }
        filesDone.insert(entry.source)
    }

    private func redraw() {
        let elapsed = ContinuousClock.now - started
        let minutes = elapsed.secondsValue / 60
        var parts = ["\(filesDone.count)/\(files) files", "\(pages) pages", "\(failed) failed"]
        if skipped > 0 { parts.append("\(skipped) already done") }
        let worked = pages - skipped
        if minutes > 0.02, worked > 0 {
            parts.append("\(Int((Double(worked) / minutes).rounded())) pages/min")
            let remaining = Double(files - filesDone.count) * minutes / Double(max(1, filesDone.count))
            parts.append("ETA " + Self.duration(minutes: remaining))
        }
        FileHandle.standardError.write(Data(("\r\u{1B}[2Kgloss: " + parts.joined(separator: " · ")).utf8))
        lineShown = true
    }

    private func clearLine() {
        guard lineShown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
        lineShown = false
    }

    private static func duration(minutes: Double) -> String {
        let seconds = Int(minutes * 60)
        return seconds >= 3600 ? "\(seconds / 3600)h\(seconds % 3600 / 60)m" : "\(seconds / 60)m\(seconds % 60)s"
    }
}
