import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A request as libmicrohttpd parsed it: Gloss reads HTTP through it and parses none itself.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path as libmicrohttpd gives it, percent-escapes decoded, without the query.
    public var path: String
    /// The query's arguments, decoded; the last of a repeated name.
    public var query: [String: String]
    /// Header fields by lowercased name.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// What a handler answers: a status, header fields, and bytes or an open file.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// A file the response sends and then closes (libmicrohttpd owns the descriptor once queued).
        case file(descriptor: Int32, size: UInt64)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An error: the status and a reason, as plain text.
    public static func error(_ status: Int, _ reason: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
                     body: .bytes(Array("\(status) \(reasonPhrase(status)): \(reason)\n".utf8)))
    }

    /// The bytes a `.bytes` body holds (empty for a file), for tests and logs.
    public var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 428: "Precondition Required"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}

/// Answers requests. libmicrohttpd's own threads call it, several at once, so it is `Sendable`.
public protocol HTTPHandler: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// Where and how the server listens, and what it takes from a client.
public struct HTTPServerOptions: Sendable {
    /// A numeric IPv4 or IPv6 address: 127.0.0.1 unless told otherwise.
    public var address = "127.0.0.1"
    /// 0 picks a free port (`HTTPServer.port` says which).
    public var port: UInt16 = 8000
    /// The daemon's thread pool: each thread answers one request at a time.
    public var threads = 4
    /// The largest request body taken; a larger one is answered 413 without being read.
    public var maximumBodyBytes = 1 << 20
    /// The memory libmicrohttpd gives a connection for its request line and header fields;
    /// a request whose head does not fit is refused by libmicrohttpd itself (431 or 414).
    public var connectionMemory = 64 << 10
    public var maximumConnections = 256
    /// Seconds a connection may stay idle.
    public var idleTimeout = 30

    public init() {}
}

/// The server could not start: the address, and why.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var address: String
    public var port: UInt16
    public var reason: String
    public var description: String { "cannot serve on \(address) port \(port): \(reason)" }
}

/// A running libmicrohttpd daemon: it serves from `init` until this value is released, and
/// `deinit` stops it (waiting for the requests under way) and frees it.
public final class HTTPServer {
    private let daemon: OpaquePointer
    private let context: Unmanaged<ServerContext>
    /// The port it listens on (the one chosen when the options asked for 0).
    public let port: UInt16
    public let address: String

    public init(options: HTTPServerOptions, handler: any HTTPHandler) throws {
        var storage = sockaddr_storage()
        var flags: UInt32 = 0
        var ipv4 = in_addr(), ipv6 = in6_addr()
        if inet_pton(AF_INET, options.address, &ipv4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = options.port.bigEndian
                address.pointee.sin_addr = ipv4
            }
        } else if inet_pton(AF_INET6, options.address, &ipv6) == 1 {
            flags |= MHD_USE_IPv6.rawValue
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = options.port.bigEndian
                address.pointee.sin6_addr = ipv6
            }
        } else {
            throw HTTPServerError(address: options.address, port: options.port, reason: "not a numeric IPv4 or IPv6 address")
        }
        let context = Unmanaged.passRetained(ServerContext(handler: handler, maximumBodyBytes: options.maximumBodyBytes))
        let started = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                gloss_mhd_start(flags, address, UInt32(max(1, options.threads)), options.connectionMemory,
                                UInt32(options.maximumConnections), UInt32(options.idleTimeout),
                                accessHandler, context.toOpaque(), requestCompleted)
            }
        }
        guard let started else {
            context.release()
            throw HTTPServerError(address: options.address, port: options.port,
                                  reason: "libmicrohttpd did not start (the port is taken, or the address is not this machine's)")
        }
        daemon = started
        self.context = context
        port = gloss_mhd_port(started)
        address = options.address
    }

    deinit {
        MHD_stop_daemon(daemon)
        context.release()
    }
}

/// What the C callbacks reach through their `cls` pointer: immutable, so any thread may read it.
private final class ServerContext: Sendable {
    let handler: any HTTPHandler
    let maximumBodyBytes: Int

    init(handler: any HTTPHandler, maximumBodyBytes: Int) {
        self.handler = handler
        self.maximumBodyBytes = maximumBodyBytes
    }
}

/// One request's body as it arrives. libmicrohttpd hands a connection to one thread at a time,
/// so only that thread touches it; it lives from the first call to `requestCompleted`.
private final class RequestState {
    var body: [UInt8] = []
    var tooLarge = false
}

/// Collects a connection's values of one kind (header fields, query arguments).
private final class ValueCollector {
    var values: [String: String] = [:]
    let lowercased: Bool
    init(lowercased: Bool) { self.lowercased = lowercased }
}

private func values(of connection: OpaquePointer?, kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    let collector = ValueCollector(lowercased: lowercased)
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            collector.values[collector.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.values
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer?) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .file(let descriptor, let size):
        made = MHD_create_response_from_fd64(size, descriptor)
        if made == nil { close(descriptor) }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// libmicrohttpd's access handler: called first with the request's head, then with each piece
/// of its body, then once with no data, when the request is answered.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, state in
    guard let cls, let state, let size else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    if state.pointee == nil {
        state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
        // A body announced larger than the limit is refused before any of it is read.
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
           let bytes = Int(String(cString: length)), bytes > context.maximumBodyBytes {
            return queue(.error(413, "the request body is \(bytes) bytes; at most \(context.maximumBodyBytes) are taken"), on: connection)
        }
        return .YES
    }
    let request = Unmanaged<RequestState>.fromOpaque(state.pointee!).takeUnretainedValue()
    if size.pointee > 0 {
        if !request.tooLarge, let data {
            if request.body.count + size.pointee > context.maximumBodyBytes {
                request.tooLarge = true
                request.body = []
            } else {
                request.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size.pointee))
            }
        }
        size.pointee = 0
        return .YES
    }
    if request.tooLarge {
        return queue(.error(413, "the request body is larger than \(context.maximumBodyBytes) bytes"), on: connection)
    }
    let http = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                           query: values(of: connection, kind: .GET_ARGUMENT_KIND, lowercased: false),
                           headers: values(of: connection, kind: .HEADER_KIND, lowercased: true), body: request.body)
    return queue(context.handler.respond(to: http), on: connection)
}

/// Frees a request's state when libmicrohttpd is done with it, answered or not.
private let requestCompleted: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let pointer = state.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(pointer).release()
    state.pointee = nil
}
