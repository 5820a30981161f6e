import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long, how often and how much a remote input is fetched.
public struct RemoteFetchOptions: Sendable, Hashable {
    /// Until the response header arrives. A server that accepts but never answers is given up on,
    /// and retried, long before the total timeout runs out.
    public var connectTimeout: Duration
    /// For the whole fetch, retries and the pauses between them included (`--fetch-timeout`).
    public var totalTimeout: Duration
    /// Further attempts after the first, for 5xx answers and dropped or unanswered connections.
    public var retries: Int
    /// The pause before the first retry; each later pause doubles it.
    public var retryDelay: Duration
    /// The largest body accepted, in bytes.
    public var maximumBytes: Int

    public init(
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60), retries: Int = 3,
        retryDelay: Duration = .milliseconds(250), maximumBytes: Int = 200 << 20
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.retries = retries
        self.retryDelay = retryDelay
        self.maximumBytes = maximumBytes
    }
}

/// Downloads `http://` and `https://` inputs into memory through Foundation's `URLSession`.
///
/// Each attempt streams through a delegate rather than `data(for:)`, which on Linux gathers the
/// whole body before returning and so could not stop an oversized one.
public struct RemoteFetcher: Sendable {
    public var options: RemoteFetchOptions

    public init(options: RemoteFetchOptions = RemoteFetchOptions()) {
        self.options = options
    }

    /// Whether an input names a web resource rather than a file.
    public static func isRemote(_ input: String) -> Bool {
        let scheme = input.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// The body of `url`, or a `FetchError`; `CancellationError` if the calling task is cancelled,
    /// which also stops the transfer.
    public func fetch(_ url: URL) async throws -> [UInt8] {
        try await fetch(url, onAttempt: { _ in })
    }

    func fetch(_ url: URL, onAttempt: @Sendable (Int) -> Void) async throws -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { throw FetchError(url: url, cause: .unsupportedURL, attempts: 0) }

        let clock = ContinuousClock()
        let deadline = clock.now + options.totalTimeout
        let attemptsAllowed = max(0, options.retries) + 1
        var attempt = 0
        while true {
            attempt += 1
            onAttempt(attempt)
            let cause: FetchError.Cause
            do {
                return try await RemoteTransfer(url: url, limit: options.maximumBytes).run(
                    connectTimeout: options.connectTimeout, deadline: deadline, totalTimeout: options.totalTimeout)
            } catch let failure as RemoteTransfer.Failure {
                cause = failure.cause
            }
            let pause = options.retryDelay * (1 << min(attempt - 1, 16))
            guard cause.isTransient, attempt < attemptsAllowed, clock.now + pause < deadline else {
                throw FetchError(url: url, cause: cause, attempts: attempt)
            }
            try await Task.sleep(for: pause)
        }
    }
}
