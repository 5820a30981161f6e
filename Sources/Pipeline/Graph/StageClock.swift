import GlossContract
import Synchronization

/// Wall time per stage for one page, recorded from all its analyzers at once.
final class StageClock: Sendable {
    private let pageStart = ContinuousClock.now
    private let state = Mutex((timings: StageTimings(), timeline: [StageSpan]()))

    func time<Output>(_ stage: Stage, _ body: () async throws -> Output) async throws -> Output {
        let start = ContinuousClock.now
        let output = try await body()
        let end = ContinuousClock.now
        state.withLock {
            $0.timings.record(stage.rawValue, end - start)
            $0.timeline.append(StageSpan(stage: stage.rawValue, start: (start - pageStart).milliseconds,
                                         end: (end - pageStart).milliseconds))
        }
        return output
    }

    /// Adds the timings an analyzer measured of its own parts.
    func record(_ parts: StageTimings) {
        state.withLock { for stage in parts.stages { $0.timings.record(stage.name, milliseconds: stage.milliseconds) } }
    }

    var recorded: StageTimings { state.withLock { $0.timings } }
    var timeline: [StageSpan] { state.withLock { $0.timeline } }
}
