import Foundation
import GlossContract
@testable import GlossIndex
import Testing

/// One page name (page id) for two sources is two pages: the index never lets the second
/// replace the first, whether it is recorded or merged.
struct PageNameClashTests {
    @Test func aPageOfAnotherSourceUnderTheSameNameIsRefusedAndTheFirstKept() throws {
        let scratch = try ScratchIndex([page("in/vol18780/page.png", ["first volume"])])
        var second = indexed(page("in/vol100044/page.png", ["second volume"]), position: 1)
        second.name = indexed(page("in/vol18780/page.png", []), position: 0).name
        #expect(throws: PageNameClash(name: second.name, source: "in/vol100044/page.png", other: "in/vol18780/page.png")) {
            try scratch.index.record(second)
        }
        #expect(try scratch.index.pages().map(\.source) == ["in/vol18780/page.png"])
        #expect(try scratch.index.search("second").isEmpty)
        #expect(try scratch.index.search("first").count == 1)

        // The same source again is the same page, read again: it replaces.
        try scratch.index.record(indexed(page("in/vol18780/page.png", ["first again"]), position: 0))
        #expect(try scratch.index.search("again").count == 1)
    }

    @Test func aMergeOfAnotherSourceUnderTheSameNameIsRefusedWhole() throws {
        let batch = try ScratchIndex([page("in/vol18780/page.png", ["first volume"])])
        let shard = try ScratchIndex([page("elsewhere/vol18780/page.png", ["second volume"]), page("other.png", ["other"])])
        #expect(throws: PageNameClash.self) { try batch.index.merge(from: shard.index.path) }
        #expect(try batch.index.pages().map(\.source) == ["in/vol18780/page.png"], "nothing of the shard is taken")
    }
}
