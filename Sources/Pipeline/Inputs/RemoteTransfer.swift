import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request: its own session, fed through the delegate callbacks, finished exactly once by
/// whichever comes first of the body's end, an error, the size limit, a timer or cancellation.
///
/// The caller's side never waits for URLSession. On Linux, `cancel()` and even starting a new
/// session can block for as long as another transfer keeps a socket busy (a server streaming at
/// full speed, which `cancel()` cannot interrupt), so every URLSession call runs on `control`, a
/// private serial queue with a thread of its own, and finishing resumes the caller first. Swift's
/// cooperative pool, two threads here, is never held by the network.
final class RemoteTransfer: NSObject, URLSessionDataDelegate, Sendable {
    /// Why an attempt ended without a body.
    struct Failure: Error {
        var cause: FetchError.Cause
    }

    private struct State {
        var continuation: CheckedContinuation<[UInt8], any Error>?
        var task: URLSessionDataTask?
        var body: [UInt8] = []
        var responded = false
        /// Set once; a result that arrives before the request starts waits here.
        var finished: Result<[UInt8], any Error>?
    }

    private let url: URL
    private let limit: Int
    private let state = Mutex(State())
    private let control = DispatchQueue(label: "gloss.fetch.control")
    /// Under the delegate's operation queue, which holds it unowned.
    private let callbacks = DispatchQueue(label: "gloss.fetch.callbacks")

    init(url: URL, limit: Int) {
        self.url = url
        self.limit = limit
    }

    /// The body, or why there is none. The transfer and its two timers are children of one task
    /// group: whichever ends the transfer first wins, and the others are cancelled with it.
    func run(
        connectTimeout: Duration, deadline: ContinuousClock.Instant, totalTimeout: Duration
    ) async throws -> [UInt8] {
        try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { try await self.transfer(deadline: deadline) }
            group.addTask {
                try await Task.sleep(for: connectTimeout)
                self.connectTimerFired(after: connectTimeout)
                return nil
            }
            group.addTask {
                try await Task.sleep(until: deadline)
                self.finish(.failure(Failure(cause: .timedOut(after: totalTimeout))))
                return nil
            }
            // A timer that fires ends the transfer, whose child then returns or throws.
            while let outcome = try await group.next() {
                if let body = outcome {
                    group.cancelAll()
                    return body
                }
            }
            preconditionFailure("the transfer's child always ends with a body or an error")
        }
    }

    /// Starts the request and waits for `finish`.
    private func transfer(deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = state.withLock { state -> Result<[UInt8], any Error>? in
                    if let finished = state.finished { return finished }
                    state.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(with: early)
                    return
                }
                control.async { self.open(remaining: deadline - .now) }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// Starts the request, on `control`.
    private func open(remaining: Duration) {
        // Corelibs' own timeout is an idle timer cut to whole seconds (0.5 s would fire at once)
        // and its resource timeout is not enforced; the timers in `run` do the work, this is a
        // backstop, generous so that it never fires first on a loaded machine.
        let backstop = (remaining.secondsValue * 2 + 5).rounded(.up)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: backstop)
        request.setValue("Gloss", forHTTPHeaderField: "User-Agent")

        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.underlyingQueue = callbacks
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: delegateQueue)
        let task = session.dataTask(with: request)
        let wanted = state.withLock { state in
            guard state.finished == nil else { return false }
            state.task = task
            return true
        }
        if wanted {
            task.resume()
            session.finishTasksAndInvalidate()
        } else {
            session.invalidateAndCancel()
        }
    }

    private func connectTimerFired(after timeout: Duration) {
        guard !state.withLock({ $0.responded }) else { return }
        finish(.failure(Failure(cause: .connectTimedOut(after: timeout))))
    }

    private func finish(_ result: Result<[UInt8], any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<[UInt8], any Error>?, URLSessionDataTask?)? in
            guard state.finished == nil else { return nil }
            state.finished = result
            state.body = []
            defer { state.continuation = nil; state.task = nil }
            return (state.continuation, state.task)
        }
        guard let (continuation, task) = taken else { return }
        continuation?.resume(with: result)
        if case .failure = result, let task {
            control.async { task.cancel() }
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        // Corelibs ignores the disposition (a refusal is a cancel, in `finish`); Darwin waits for it.
        completionHandler(.allow)
        if let http = response as? HTTPURLResponse, !(200...299).contains(http.statusCode) {
            finish(.failure(Failure(cause: Self.status(http))))
            return
        }
        let announced = response.expectedContentLength
        if announced > limit {
            finish(.failure(Failure(cause: .tooLarge(size: announced, limit: limit, announced: true))))
            return
        }
        // A compressed body is decompressed on the way (libcurl, under URLSession): its
        // announced length is not the length of what arrives here.
        let encoding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        let exact = announced > 0 && (encoding == nil || encoding == "identity")
        state.withLock { state in
            state.responded = true
            guard state.finished == nil else { return }
            state.body.reserveCapacity(exact ? Int(announced) : min(limit, Self.largestReservation))
        }
    }

    /// The most room set aside for a body at once. The room for the whole body is taken when
    /// the response starts, up to the cap, so that the body is never moved as it grows: an array
    /// that doubles copies its bytes into a new buffer, and held the old and the new together,
    /// 1.3 times the cap (377 MB for a 200 MiB cap, 100 MB of it the process). Room not filled
    /// is address space only: the kernel gives a page memory when it is first written.
    static let largestReservation = 1 << 30

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = state.withLock { state -> Int? in
            guard state.finished == nil else { return nil }
            let total = state.body.count + data.count
            guard total <= limit else { return total }
            // One copy of the chunk's bytes as a block: the delegate queue must keep up with
            // libcurl, or the chunks it has not taken yet pile up in memory beside the body.
            data.withUnsafeBytes { state.body.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
            return nil
        }
        if let overflow {
            finish(.failure(Failure(cause: .tooLarge(size: Int64(overflow), limit: limit, announced: false))))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            finish(.failure(Failure(cause: Self.cause(of: error))))
        } else if let http = task.response as? HTTPURLResponse, !(200...299).contains(http.statusCode) {
            // Redirects that are not followed reach here without a response callback.
            finish(.failure(Failure(cause: Self.status(http))))
        } else {
            finish(.success(state.withLock { $0.body }))
        }
    }

    private static func status(_ response: HTTPURLResponse) -> FetchError.Cause {
        .httpStatus(response.statusCode, reason: HTTPURLResponse.localizedString(forStatusCode: response.statusCode))
    }

    private static func cause(of error: any Error) -> FetchError.Cause {
        guard let error = error as? URLError else { return .network(code: URLError.Code.unknown.rawValue, message: "\(error)") }
        return .network(code: error.code.rawValue, message: error.localizedDescription)
    }
}
