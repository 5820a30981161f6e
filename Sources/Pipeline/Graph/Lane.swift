/// A thread of its own and the engine that lives on it.
///
/// Tesseract, the decoders and the face detector block their thread for up to seconds; on
/// Swift's cooperative pool (one thread per core) two such calls starve every other task. A
/// lane is an actor whose executor is a dedicated thread, so blocking work runs there and
/// `async` callers, progress and cancellation stay responsive. The engine is created on that
/// thread by `start()` and never leaves it, which is what a non-`Sendable` C handle needs.
actor Lane<Engine> {
    private let executor: ThreadExecutor
    private let makeEngine: @Sendable () throws -> Engine
    private var engine: Engine?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(name: String, engine makeEngine: @escaping @Sendable () throws -> Engine) {
        executor = ThreadExecutor(name: name)
        self.makeEngine = makeEngine
    }

    deinit { executor.shutdown() }

    /// Builds the engine on the lane's thread, once; throws when it cannot be built.
    func start() throws {
        if engine == nil { engine = try makeEngine() }
    }

    /// Runs `body` with the engine on the lane's thread.
    func run<Result: Sendable>(_ body: @Sendable (Engine) throws -> Result) throws -> Result {
        try start()
        return try body(engine!)
    }
}
