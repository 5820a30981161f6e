import Foundation
import GlossTestSupport
import Testing

/// `gloss search DIR words…` reads the words as the report's search box reads what is typed
/// into it, and says so when nothing matches.
@Suite(.serialized)
struct SearchWordsTests {
    @Test func wordsWithoutQuotesAreOneQueryAndNoMatchSaysSo() throws {
        let scratch = try ScratchFolder()
        let output = scratch.path + "/out"
        #expect(try Gloss.run(["annotate", Fixtures.path("text/two-pages.tif"), "-o", output, "--no-faces", "-q"]).status == 0)

        let unquoted = try Gloss.run(["search", output, "staff", "changes"])
        let quoted = try Gloss.run(["search", output, "staff changes"])
        #expect(unquoted.status == 0, "\(unquoted.standardError)")
        #expect(unquoted.standardOutput == quoted.standardOutput && unquoted.standardOutput.contains("page 2"))
        let either = try Gloss.run(["search", output, "staff", "OR", "annual", "--json"])
        #expect(either.status == 0 && either.standardOutput.contains("\"query\" : \"staff OR annual\""), "\(either.standardOutput)")

        let none = try Gloss.run(["search", output, "Morgan", "Stanley"])
        #expect(none.status == 1)
        #expect(none.standardOutput.isEmpty)
        #expect(none.standardError == "gloss: no page matches 'Morgan Stanley'\n", "\(none.standardError)")
        let faceless = try Gloss.run(["search", output, "--faces", "3"])
        #expect(faceless.status == 1 && faceless.standardError == "gloss: no page has at least 3 faces\n", "\(faceless.standardError)")
    }
}
