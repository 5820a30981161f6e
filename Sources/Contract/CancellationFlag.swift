import Synchronization

/// A flag that one thread raises and a blocking engine polls, to stop work that Swift's task
/// cancellation cannot reach by itself (Tesseract runs for seconds inside one C call).
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .relaxed) }

    public func raise() { raised.store(true, ordering: .relaxed) }
}
