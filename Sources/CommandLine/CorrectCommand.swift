import Foundation
import GlossContract
import GlossPipeline

/// `gloss correct DIR FILE`: applies a file of corrections exported by the page view offline.
extension GlossCommand {
    static let correctCommand = CommandSpec(
        usage: "gloss correct DIR FILE",
        summary: """
            Applies the corrections in FILE (the page view's "Save corrections", or any list of
            corrections, docs/corrections.md) to the batch in DIR: each is added to DIR/gloss.corrections,
            then its page's JSON and every file made from it are written again, and the index updated.
            A page changed since the file was saved is refused and left as it is.
            """,
        options: [
            .flag("wait", "when another gloss run is writing DIR, wait for it rather than stop"),
            .flag("quiet", short: "q", "print only errors"),
            helpOption,
        ])

    static func correct(_ words: ArraySlice<String>) async throws -> Int32 {
        let arguments = try correctCommand.parse(words)
        if arguments.has("help") {
            print(correctCommand.help, terminator: "")
            return 0
        }
        guard arguments.operands.count == 2 else { throw UsageError("correct needs DIR and FILE") }
        let (folder, path) = (arguments.operands[0], arguments.operands[1])
        let file = try CorrectionFile.read(path)
        let batch = try await CorrectableBatch.open(folder, waiting: arguments.has("wait"))
        var failed = 0
        for (page, result) in Corrections.apply(file, batch: batch) {
            switch result {
            case .success(let applied):
                for note in applied.notRewritten { printError("gloss: \(page): not written again: \(note)") }
                if !arguments.has("quiet") {
                    printError("gloss: \(page): \(BatchSummary.count(file.corrections.count { $0.page == page }, "correction")) applied, "
                               + "\(BatchSummary.count(applied.rewritten.count, "file")) written again, version \(applied.version)")
                }
            case .failure(let error):
                failed += 1
                printError("gloss: \(error)")
            }
        }
        return failed == 0 ? 0 : 1
    }
}
