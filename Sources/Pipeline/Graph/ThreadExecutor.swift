import Foundation

/// An executor that runs its jobs on one thread of its own, outside Swift's cooperative pool.
///
/// Tesseract and the decoders block their thread for seconds. On the cooperative pool (one
/// thread per core) two such calls starve every other task; measured on two cores, a 100 ms
/// sleep elsewhere was held up 15 s. An actor whose executor is one of these keeps the blocking
/// work on its own thread, so progress, timers and cancellation stay responsive.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    // `@unchecked`: `jobs` and `stopping` are only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish the jobs it has and end.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
