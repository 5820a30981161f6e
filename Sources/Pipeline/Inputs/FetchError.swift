import Foundation
import GlossGeometry

/// Why a remote input could not be fetched: the URL, the cause and how many attempts were made,
/// worded to stand alone as a failed page's error.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Cause: Sendable, Hashable {
        /// Not an `http` or `https` URL with a host.
        case unsupportedURL
        /// The server answered with a status outside 200...299.
        case httpStatus(Int, reason: String)
        /// The transfer failed below HTTP: `code` is the `URLError` code.
        case network(code: Int, message: String)
        /// The body is over `limit` bytes: announced by `Content-Length` (`announced`), or
        /// found while streaming, when `size` is what had arrived when it was stopped.
        case tooLarge(size: Int64, limit: Int, announced: Bool)
        /// No response header within the connect timeout.
        case connectTimedOut(after: Duration)
        /// The total timeout ran out.
        case timedOut(after: Duration)

        /// Worth another attempt: the server or the network may do better shortly.
        var isTransient: Bool {
            switch self {
            case .httpStatus(let status, _): return (500...599).contains(status)
            case .network(let code, _): return Self.transientNetworkCodes.contains(code)
            case .connectTimedOut: return true
            case .unsupportedURL, .tooLarge, .timedOut: return false
            }
        }

        /// Dropped, refused or unanswered connections. Corelibs reports a connection cut
        /// mid-body (curl's "transfer closed with bytes remaining") as `.unknown`, so that counts.
        private static let transientNetworkCodes: Set<Int> = [
            URLError.Code.unknown, .timedOut, .cannotConnectToHost, .networkConnectionLost,
            .notConnectedToInternet, .dnsLookupFailed, .badServerResponse,
        ].reduce(into: []) { $0.insert($1.rawValue) }
    }

    public var url: URL
    public var cause: Cause
    /// Requests made; 0 when the URL was refused before any.
    public var attempts: Int

    public init(url: URL, cause: Cause, attempts: Int) {
        self.url = url
        self.cause = cause
        self.attempts = attempts
    }

    /// Names the URL as reports show it (`RedactedURL`): a failed page's error is published too.
    public var description: String { "\(RedactedURL.shown(url.absoluteString)): \(reasonText)" }

    /// The cause alone, for places that name the URL already.
    public var reasonText: String {
        let what: String
        switch cause {
        case .unsupportedURL:
            what = "not an http or https URL"
        case .httpStatus(let status, let reason):
            what = "HTTP \(status) \(reason)"
        case .network(let code, let message):
            // A transfer error may quote the URL it was given.
            what = "network error \(code): " + message.replacingOccurrences(of: url.absoluteString, with: RedactedURL.shown(url.absoluteString))
        case .tooLarge(let size, let limit, announced: true):
            what = "Content-Length of \(bytes(size)) is over the limit of \(bytes(Int64(limit))) (see --max-file-size)"
        case .tooLarge(let size, let limit, announced: false):
            what = "body is over the limit of \(bytes(Int64(limit))) (see --max-file-size); stopped at \(bytes(size))"
        case .connectTimedOut(let after):
            what = "no response within \(seconds(after))"
        case .timedOut(let after):
            what = "timed out after \(seconds(after))"
        }
        switch attempts {
        case 0: return what
        case 1: return "\(what) (1 attempt)"
        default: return "\(what) (\(attempts) attempts)"
        }
    }

    private func bytes(_ count: Int64) -> String {
        guard count >= 1 << 20 else { return "\(count) bytes" }
        return "\(count) bytes (" + DecimalText.format(Double(count) / Double(1 << 20), maximumFractionDigits: 1) + " MiB)"
    }

    private func seconds(_ duration: Duration) -> String {
        DecimalText.format(duration.secondsValue, maximumFractionDigits: 3) + " s"
    }
}
