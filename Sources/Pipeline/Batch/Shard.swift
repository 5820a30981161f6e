import Foundation

/// One part of a collection split across machines: shard `index` of `count`, counted from 0.
///
/// A file belongs to the shard its relative path hashes to (SHA-256, so every machine and every
/// run agree), which spreads a collection evenly without a coordinator.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1 else { throw ShardError("the shard count must be at least 1, not \(count)") }
        guard (0..<count).contains(index) else {
            throw ShardError("shard \(index) is not one of 0...\(count - 1) (shards count from 0)")
        }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`, as `--shard` takes it.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard: write K/N, as in 0/4")
        }
        try self.init(index: index, count: count)
    }

    /// The shard a scheduler gave this process: a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX` (with `count` from `--shard-count`), or a Slurm job array's
    /// `SLURM_ARRAY_TASK_ID`.
    ///
    /// Under Slurm with `count` given, the task id is the shard index, whichever tasks of the
    /// array were submitted: `sbatch --array=2,5` run again reads shards 2 and 5. Without it, the
    /// array is the collection's shards: `SLURM_ARRAY_TASK_COUNT` of them, numbered from
    /// `SLURM_ARRAY_TASK_MIN` (an array may start at 1); an array that is not a whole range (a
    /// list, a step) could be some of the shards only, and is refused rather than read as all.
    public init(environment: [String: String], count: Int?) throws(ShardError) {
        if let value = environment["JOB_COMPLETION_INDEX"] {
            guard let index = Int(value) else { throw ShardError("JOB_COMPLETION_INDEX is '\(value)', not a number") }
            guard let count else { throw ShardError("JOB_COMPLETION_INDEX is set: give the number of shards with --shard-count") }
            try self.init(index: index, count: count)
        } else if let value = environment["SLURM_ARRAY_TASK_ID"] {
            guard let id = Int(value) else { throw ShardError("SLURM_ARRAY_TASK_ID is '\(value)', not a number") }
            if let count {
                guard (0..<count).contains(id) else {
                    throw ShardError("SLURM_ARRAY_TASK_ID is \(id), not one of 0...\(count - 1): with --shard-count,"
                                     + " the array's task ids are the shard numbers, from 0")
                }
                try self.init(index: id, count: count)
                return
            }
            let number = { (name: String) in environment[name].flatMap { Int($0) } }
            guard let total = number("SLURM_ARRAY_TASK_COUNT") else {
                throw ShardError("SLURM_ARRAY_TASK_COUNT is not set: give the number of shards with --shard-count")
            }
            let minimum = number("SLURM_ARRAY_TASK_MIN") ?? 0
            if let maximum = number("SLURM_ARRAY_TASK_MAX"), maximum - minimum + 1 != total {
                throw ShardError("the job array (tasks \(minimum) to \(maximum), \(total) of them) is not a whole range of"
                                 + " shards: give the number of shards with --shard-count, and the task ids are the shard numbers")
            }
            try self.init(index: id - minimum, count: total)
        } else {
            throw ShardError("--shard auto needs JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm)")
        }
    }

    /// Whether `input` is this shard's to read.
    public func contains(_ input: InputCollector.Input) -> Bool {
        Self.shard(of: input.relativePath, count: count) == index
    }

    static func shard(of relativePath: String, count: Int) -> Int {
        let value = UInt64(SHA256.hex(of: Array(relativePath.utf8)).prefix(16), radix: 16)!
        return Int(value % UInt64(count))
    }

    public var description: String { "\(index)/\(count)" }
}

/// A `--shard` that cannot be used, and why.
public struct ShardError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
