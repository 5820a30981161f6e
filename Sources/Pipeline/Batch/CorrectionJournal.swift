import Foundation
import GlossContract
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The batch's journal of corrections, `DIR/gloss.corrections`: one JSON line per
/// `Correction`, appended before the correction is applied and never rewritten, so that no
/// correction is lost, whatever happens to the page files after it.
///
/// A line a killed process left half-written does not decode and is skipped on reading.
public enum CorrectionJournal {
    public static let fileName = "gloss.corrections"

    public static func path(in folder: String) -> String { folder + "/" + fileName }

    /// Every correction the journal holds, in the order they were made; none when there is no journal.
    public static func read(in folder: String) throws(CorrectionError) -> [Correction] {
        let path = path(in: folder)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path: path, cause: "cannot be read") }
        return parse(Array(data))
    }

    /// The corrections of JSON lines; a line that does not decode (a partial last line) is skipped.
    static func parse(_ bytes: [UInt8]) -> [Correction] {
        bytes.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONOutput.decode(Correction.self, from: Array($0)) }
    }

    /// The corrections in force for each page, in order: those after the page's last `discard`.
    public static func inForce(_ corrections: [Correction]) -> [String: [Correction]] {
        var byPage: [String: [Correction]] = [:]
        for correction in corrections {
            if correction.kind == .discard { byPage[correction.page] = nil } else { byPage[correction.page, default: []].append(correction) }
        }
        return byPage
    }

    /// Appends `corrections` to the journal in `folder` with one write, then flushes it to the
    /// disk: once this returns, they are kept. All of them or none: a failed write is cut back.
    /// Appends `corrections` whole, or none of them, and returns the journal's length before
    /// them (for `takeBack`).
    @discardableResult
    static func append(_ corrections: [Correction], in folder: String) throws(CorrectionError) -> Int {
        guard !corrections.isEmpty else { return -1 }
        let path = path(in: folder)
        var bytes: [UInt8] = []
        do {
            for correction in corrections { bytes += try JSONOutput.encode(correction, pretty: false) + [UInt8(ascii: "\n")] }
        } catch {
            throw .file(path: path, cause: "cannot encode a correction: \(error)")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .file(path: path, cause: systemError()) }
        defer { close(descriptor) }
        let end = lseek(descriptor, 0, SEEK_END)
        do {
            try AtomicFile.writeAll(bytes, to: descriptor, naming: path)
            guard fsync(descriptor) == 0 else { throw OutputError(path: path, cause: systemError()) }
        } catch {
            if end >= 0 { _ = ftruncate(descriptor, end) }
            throw .file(path: path, cause: String(describing: error))
        }
        return Int(end)
    }

    /// Cuts the journal back to `length` (what `append` returned): the corrections appended
    /// last are taken back when the page they correct could not be written. Under the batch's
    /// serial lock, so nothing was appended since.
    static func takeBack(to length: Int, in folder: String) {
        guard length >= 0 else { return }
        let descriptor = open(path(in: folder), O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        if ftruncate(descriptor, off_t(length)) == 0 { _ = fsync(descriptor) }
    }
}

/// What a batch's run does with the corrections of the pages it reads again.
final class CorrectionReplay: Sendable {
    /// The corrections in force, by page id; empty with `--discard-corrections`.
    let inForce: [String: [Correction]]
    /// Pages whose corrections a run with `--discard-corrections` no longer applies.
    let discarding: Set<String>
    let folder: String
    private let journalLock = Mutex(())

    init(folder: String, discard: Bool) throws(CorrectionError) {
        let all = CorrectionJournal.inForce(try CorrectionJournal.read(in: folder))
        self.folder = folder
        inForce = discard ? [:] : all
        discarding = discard ? Set(all.keys) : []
    }

    /// The page `report` with its id's corrections applied on top, in order, and those that no
    /// longer match it (a word no longer where it was). With `--discard-corrections`, the page as
    /// read, and a `discard` line in the journal so later runs apply its corrections no more.
    func apply(to report: PageReport, id: String) -> (report: PageReport, unmatched: [Correction]) {
        if discarding.contains(id) {
            journalLock.withLock { _ in
                _ = try? CorrectionJournal.append([Correction(page: id, kind: .discard, by: "gloss annotate --discard-corrections",
                                                          at: Correction.timestamp())], in: folder)
            }
            return (report, [])
        }
        guard let corrections = inForce[id], report.status == .ok else { return (report, []) }
        var page = report, unmatched: [Correction] = []
        for correction in corrections {
            do { page = try page.applying(correction) } catch { unmatched.append(correction) }
        }
        return (page, unmatched)
    }
}
