/// Items 0..<count gathered into sets by joining pairs (union-find, with path halving): which
/// marks make one row, which lines one block, which boxes one group. Two items are in one set
/// when their roots are equal; which item is a set's root says nothing more.
public struct DisjointSets: Sendable {
    @usableFromInline var parent: [Int]

    /// `count` items, each in a set of its own.
    @inlinable public init(count: Int = 0) { parent = Array(0..<count) }

    /// How many items there are.
    @inlinable public var count: Int { parent.count }

    /// A new item in a set of its own; its index.
    @inlinable public mutating func add() -> Int {
        parent.append(parent.count)
        return parent.count - 1
    }

    /// The root of `item`'s set.
    @inlinable public mutating func root(_ item: Int) -> Int {
        var item = item
        while parent[item] != item {
            parent[item] = parent[parent[item]]
            item = parent[item]
        }
        return item
    }

    /// Puts `a` and `b` in one set.
    @inlinable public mutating func join(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (root(a), root(b))
        if rootA != rootB { parent[rootA] = rootB }
    }
}
