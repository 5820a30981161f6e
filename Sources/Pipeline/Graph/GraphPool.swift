import Synchronization

/// The batch's page graphs (each a worker with its engines), lent to one page at a time.
///
/// Pages, not files, are the unit of work: the pages of one multi-page file go to whichever
/// graphs are free, so a 300-page PDF keeps every worker busy rather than one. A page that
/// finds no graph free waits for the next one given back, in turn.
final class GraphPool: Sendable {
    private struct State {
        var idle: [PageGraph]
        var waiting: [CheckedContinuation<PageGraph, Never>] = []
    }

    private let state: Mutex<State>
    /// What every graph of the batch shares.
    let settings: AnnotationSettings
    let pageTimeout: Duration?

    init(_ graphs: [PageGraph]) {
        precondition(!graphs.isEmpty, "a batch has at least one worker")
        state = Mutex(State(idle: graphs.reversed()))
        settings = graphs[0].settings
        pageTimeout = graphs[0].pageTimeout
    }

    /// A free graph, once there is one. Cancellation does not end the wait: every graph lent
    /// is given back as soon as its page stops, which a cancelled batch makes quick.
    func borrow() async -> PageGraph {
        await withCheckedContinuation { continuation in
            let graph = state.withLock { state -> PageGraph? in
                if let graph = state.idle.popLast() { return graph }
                state.waiting.append(continuation)
                return nil
            }
            if let graph { continuation.resume(returning: graph) }
        }
    }

    /// Ends a loan: the longest-waiting borrower gets the graph, or it waits for the next.
    func giveBack(_ graph: PageGraph) {
        let next = state.withLock { state -> CheckedContinuation<PageGraph, Never>? in
            guard !state.waiting.isEmpty else {
                state.idle.append(graph)
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume(returning: graph)
    }

    /// Runs `body` with a graph lent for its duration.
    func borrowing<Value: Sendable>(_ body: (PageGraph) async -> Value) async -> Value {
        let graph = await borrow()
        let value = await body(graph)
        giveBack(graph)
        return value
    }
}
