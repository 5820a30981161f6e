import Foundation
import GlossContract
import GlossImaging
@testable import GlossPipeline
import GlossReports
import GlossTestSupport
import Synchronization
import Testing

struct PixelBudgetTests {
    @Test func aPageWaitsForRoomAndGetsItWhenAnotherFinishes() async throws {
        let budget = PixelBudget(limit: 100)
        let first = try await budget.acquire(60)
        let events = Mutex<[String]>([])
        let second = Task {
            let share = try await budget.acquire(60)
            events.withLock { $0.append("second decoded") }
            return share
        }
        try await Task.sleep(for: .milliseconds(200))
        events.withLock { $0.append("first released") }
        budget.release(first)
        budget.release(try await second.value)
        #expect(events.withLock { $0 } == ["first released", "second decoded"])
    }

    @Test func aPageLargerThanTheBudgetRunsAlone() async throws {
        let budget = PixelBudget(limit: 100)
        let share = try await budget.acquire(10_000)
        #expect(share == 100)
        budget.release(share)
        #expect(try await budget.acquire(100) == 100)
    }

    @Test func aCancelledWaiterLeavesTheQueueWithoutTakingRoom() async throws {
        let budget = PixelBudget(limit: 100)
        let first = try await budget.acquire(100)
        let waiter = Task { try await budget.acquire(50) }
        try await Task.sleep(for: .milliseconds(100))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        budget.release(first)
        // Had the cancelled waiter kept its 50, this would not fit.
        #expect(try await budget.acquire(100) == 100)
    }

    /// `body`'s result, or nil when it has not come within `seconds` (then it is cancelled).
    static func within<T: Sendable>(_ seconds: Int, _ body: @escaping @Sendable () async throws -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { try? await body() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The release that falls between a waiter's ticket and its place in the queue saw no one
    /// waiting: the waiter must still get the room, not wait for a release that never comes
    /// (the batch hung there). The budget's hook makes the release fall just there.
    @Test func aReleaseJustBeforeTheWaiterQueuesIsNotLost() async throws {
        let pending = Mutex<(budget: PixelBudget, share: Int)?>(nil)
        let budget = PixelBudget(limit: 100, afterTicket: {
            let held = pending.withLock { held in
                defer { held = nil }
                return held
            }
            if let held { held.budget.release(held.share) }
        })
        let first = try await budget.acquire(100)
        pending.withLock { $0 = (budget, first) }
        let got = await Self.within(5) { try await budget.acquire(100) }
        #expect(got == 100, "the room released as the waiter took its ticket is the waiter's")
    }

    /// A waiter cancelled at the head of the queue lets those behind it that fit now go on,
    /// without waiting for the next release.
    @Test func aCancelledHeadLetsTheWaitersBehindItIn() async throws {
        let budget = PixelBudget(limit: 100)
        let first = try await budget.acquire(60)
        let big = Task { try await budget.acquire(100) }
        try await Task.sleep(for: .milliseconds(100))
        let small = Task { try await budget.acquire(30) }
        try await Task.sleep(for: .milliseconds(100))
        big.cancel()
        let got = await Self.within(5) { try await small.value }
        #expect(got == 30, "the 30 behind a cancelled 100 fit beside the 60 held")
        if got == nil { small.cancel() }
        budget.release(first)
    }
}

/// The blocking call with a timeout, for callers that are not async, is the async path behind a wait.
@Suite(.serialized)
struct SynchronousReadTests {
    /// Runs `body` on a thread of its own, as a non-async caller would, and awaits its result.
    func onPlainThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    @Test func readsAPageWithinItsTime() async throws {
        let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
        let report = try await onPlainThread {
            try annotator.readSynchronously(file: Fixtures.path("text/sans.png"), timeout: .seconds(60))
        }
        #expect(report.status == .ok && report.words.count == 46)
    }

    @Test func givesUpAfterItsTimeAndSaysSo() async throws {
        let scratch = try ScratchFolder()
        let path = scratch.path + "/big.png"
        try BatchTests.writeBigTextPage(to: path)
        let annotator = Annotator(settings: AnnotationSettings.readingFast(detectFaces: false), jobs: 1)
        let started = ContinuousClock.now
        await #expect(throws: PageTimeoutError.self) {
            _ = try await onPlainThread { try annotator.readSynchronously(file: path, timeout: .milliseconds(300)) }
        }
        // It returns once the page has stopped: Tesseract checks its cancel flag after layout analysis.
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}

struct StageGraphTests {
    @Test func textAndFacesRunAtTheSameTime() async throws {
        let report = try await Annotator(settings: .readingFast(), jobs: 1).read(file: Fixtures.path("faces/astronaut.png"))
        #expect(report.status == .ok && report.faces.count == 1)
        let ocr = try #require(report.timeline.first { $0.stage == "ocr" })
        let faces = try #require(report.timeline.first { $0.stage == "faces" })
        let decode = try #require(report.timeline.first { $0.stage == "decode" })
        #expect(ocr.start < faces.end && faces.start < ocr.end, "the branches overlap: \(report.timeline)")
        #expect(decode.end <= ocr.start && decode.end <= faces.start, "both branches wait for the decoded page")
        #expect(report.timings.stages.map(\.name).first == "read", "the file's own stages are the page's first")
        // The face stage's network is timed within it, as a part of its own.
        #expect(Set(report.timings.stages.map(\.name)) == ["read", "decode", "prepare", "copies", "ocr", "faces", "face-network", "convert"])
    }
}
