import Synchronization

/// Bounds the pixels decoded at once across a batch's workers, so that a run of 600 ppi scans
/// cannot exhaust memory however many workers there are: a page waits for room before it is
/// decoded. A page larger than the whole budget still runs, alone.
final class PixelBudget: Sendable {
    private struct Waiter {
        var ticket: Int
        var pixels: Int
        var resume: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inUse = 0
        var waiting: [Waiter] = []
        var tickets = 0
        /// Tickets cancelled before their waiter queued.
        var withdrawn: Set<Int> = []
    }

    private let limit: Int
    private let state = Mutex(State())
    /// Run between taking a ticket and queueing: the moment a release can fall into, which the
    /// tests use to make it fall there.
    private let afterTicket: (@Sendable () -> Void)?

    init(limit: Int, afterTicket: (@Sendable () -> Void)? = nil) {
        self.limit = max(1, limit)
        self.afterTicket = afterTicket
    }

    /// Waits until `pixels` fit in the budget, then takes them. Returns what it took, for
    /// `release`. Throws `CancellationError`, having taken nothing, when the task is cancelled
    /// while it waits.
    func acquire(_ pixels: Int) async throws -> Int {
        let share = min(max(1, pixels), limit)
        try Task.checkCancellation()
        let ticket: Int? = state.withLock { state in
            if state.waiting.isEmpty && state.inUse + share <= limit {
                state.inUse += share
                return nil
            }
            state.tickets += 1
            return state.tickets
        }
        guard let ticket else { return share }
        afterTicket?()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (resume: CheckedContinuation<Void, any Error>) in
                // Asked again under the lock: a release between the two sections saw no one
                // waiting and woke no one, and the share may fit now.
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if state.withdrawn.remove(ticket) != nil { return .failure(CancellationError()) }
                    if state.waiting.isEmpty && state.inUse + share <= limit {
                        state.inUse += share
                        return .success(true)
                    }
                    state.waiting.append(Waiter(ticket: ticket, pixels: share, resume: resume))
                    return .success(false)
                }
                switch outcome {
                case .failure(let cancelled): resume.resume(throwing: cancelled)
                case .success(true): resume.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            withdraw(ticket)
        }
        return share
    }

    func release(_ share: Int) {
        let ready: [Waiter] = state.withLock { state in
            state.inUse -= share
            return Self.admitted(&state, limit: limit)
        }
        for waiter in ready { waiter.resume.resume() }
    }

    /// The waiters at the head of the queue that fit now, taken off it with their shares
    /// counted. First come, first served: a big page is not overtaken forever by small ones.
    private static func admitted(_ state: inout State, limit: Int) -> [Waiter] {
        var ready: [Waiter] = []
        while let next = state.waiting.first, state.inUse + next.pixels <= limit {
            state.waiting.removeFirst()
            state.inUse += next.pixels
            ready.append(next)
        }
        return ready
    }

    /// A waiter whose task was cancelled leaves the queue without taking anything; those behind
    /// it that fit now go on.
    private func withdraw(_ ticket: Int) {
        let (waiter, ready): (Waiter?, [Waiter]) = state.withLock { state in
            guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                state.withdrawn.insert(ticket)
                return (nil, [])
            }
            return (state.waiting.remove(at: index), Self.admitted(&state, limit: limit))
        }
        waiter?.resume.resume(throwing: CancellationError())
        for next in ready { next.resume.resume() }
    }
}
