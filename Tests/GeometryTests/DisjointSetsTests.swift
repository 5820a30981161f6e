import GlossGeometry
import Testing

struct DisjointSetsTests {
    @Test("joined items share a root, others do not; added items start alone")
    func joinsAndRoots() {
        var sets = DisjointSets(count: 6)
        sets.join(0, 1)
        sets.join(2, 1)
        sets.join(4, 5)
        #expect(sets.root(0) == sets.root(2))
        #expect(sets.root(4) == sets.root(5))
        #expect(sets.root(0) != sets.root(4))
        #expect(sets.root(3) == 3)
        let added = sets.add()
        #expect(added == 6 && sets.count == 7 && sets.root(added) == added)
        sets.join(added, 3)
        sets.join(3, 0)
        #expect(sets.root(added) == sets.root(1))
        #expect(sets.root(added) != sets.root(5))
    }
}
