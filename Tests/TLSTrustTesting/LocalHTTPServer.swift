import Foundation
import Synchronization
import TLSTrust
import TLSTrustPKI

/// A scripted plain-HTTP server on 127.0.0.1 with an ephemeral port, for tests of clients that
/// fetch from servers they do not control (revocation fetchers): each path gets a
/// ``Behavior`` — the right bytes, a redirect, a wrong status, or a hostile act such as stalling
/// or streaming forever.
///
/// Accepts on a thread of its own and serves each connection on another, with the blocking
/// transport calls, so it keeps its timing however busy Swift's cooperative pool is. ``stop()``
/// (or deinit) closes the listener and every open connection, which ends stalls and streams, and
/// waits for the accept thread; call it in a `defer`.
///
/// ```swift
/// let server = try LocalHTTPServer(routes: ["/ca.crl": .ok(crlDER), "/slow": .stall])
/// defer { server.stop() }
/// let crl = try fetcher.fetchCRL(from: server.url("/ca.crl"), deadline: .now + .seconds(5))
/// ```
public final class LocalHTTPServer: @unchecked Sendable {
    /// What the server does for a request.
    public enum Behavior: Sendable {
        /// Answers with `status`, the `headers` given (Content-Length is added unless `headers`
        /// already has one or `Transfer-Encoding`), and `body`.
        case respond(status: Int, headers: [HeaderField], body: [UInt8])
        /// 200 with the body sent chunked, in chunks of `chunkSize` bytes.
        case chunked(body: [UInt8], chunkSize: Int)
        /// A redirect with `status` (301, 302, 303, 307, 308) to `location`, which may name any scheme.
        case redirect(to: String, status: Int)
        /// Reads the request and then never answers, holding the connection open until the
        /// server stops.
        case stall
        /// Sends a 200 head with `headers`, then body bytes without end — as fast as the client
        /// reads, or one byte every `interval` when it is given — until the client goes away or
        /// the server stops. With `chunked`, the endless body is sent as chunks.
        case streamForever(headers: [HeaderField], chunked: Bool, interval: Duration?)
        /// Writes exactly these bytes (a hostile header, a malformed status line…), then closes.
        case raw([UInt8])
        /// Closes the connection as soon as the request has been read.
        case close

        /// 200 with `body` and a Content-Type.
        public static func ok(_ body: [UInt8], contentType: String = "application/octet-stream") -> Behavior {
            .respond(status: 200, headers: [HeaderField("Content-Type", contentType)], body: body)
        }
    }

    /// A header field to send.
    public struct HeaderField: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A request as the server read it.
    public struct Request: Sendable {
        public let method: String
        /// The request target as sent (path and query).
        public let path: String
        /// Header fields in order, names as sent.
        public let headers: [HeaderField]
        public let body: [UInt8]

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// The port listened on.
    public var port: Int { listener.port }
    private let listener: TCPListener
    private let shared = Shared()
    private let routes: [String: Behavior]
    private let fallback: Behavior

    /// Every request read so far, in arrival order.
    public var requests: [Request] { shared.requests.withLock { $0 } }
    /// Problems while serving (a client that went away early is not one).
    public var errors: [String] { shared.errors.withLock { $0 } }

    /// Starts serving `routes` (by exact request path, query included); other paths get `fallback`
    /// (default 404).
    ///
    /// - Parameter port: 0 (default) for an ephemeral port; another to serve content that must
    ///   name its own URL (a certificate whose caIssuers points back at where it is served).
    public init(routes: [String: Behavior], fallback: Behavior = .respond(status: 404, headers: [], body: Array("not found\n".utf8)),
                port: Int = 0) throws {
        self.routes = routes
        self.fallback = fallback
        listener = try TCPListener(host: "127.0.0.1", port: port)
        let listener = listener, shared = shared, routes = routes, fallback = fallback
        let thread = Thread {
            while shared.running.load(ordering: .relaxed) {
                guard let transport = try? listener.accept(timeout: .milliseconds(100)) else { continue }
                shared.open.withLock { $0.append(transport) }
                Thread { Self.serve(transport, routes: routes, fallback: fallback, shared: shared) }.start()
            }
            shared.finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// The `http://127.0.0.1:port` URL of `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting, closes every open connection (ending stalls and endless streams) and
    /// waits for the accept thread. Safe to call twice.
    public func stop() {
        guard shared.running.exchange(false, ordering: .relaxed) else { return }
        listener.close()
        shared.finished.wait()
        for transport in shared.open.withLock({ $0 }) { transport.close() }
    }

    /// What the threads share with the server object.
    private final class Shared: Sendable {
        let running = Atomic<Bool>(true)
        let finished = DispatchSemaphore(value: 0)
        let requests = Locked<[Request]>([])
        let errors = Locked<[String]>([])
        let open = Locked<[TCPTransport]>([])
    }

    private static func serve(_ transport: TCPTransport, routes: [String: Behavior], fallback: Behavior, shared: Shared) {
        defer { transport.close() }
        let request: Request
        do {
            request = try readRequest(transport)
        } catch {
            if shared.running.load(ordering: .relaxed) { shared.errors.withLock { $0.append("reading a request: \(error)") } }
            return
        }
        shared.requests.withLock { $0.append(request) }
        let behavior = routes[request.path] ?? fallback
        do {
            try act(behavior, on: transport, shared: shared)
        } catch {
            // The client hanging up mid-answer is what hostile behaviours provoke; not an error.
        }
    }

    private static func act(_ behavior: Behavior, on transport: TCPTransport, shared: Shared) throws {
        func send(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { try transport.send($0, deadline: .now + TestDeadlines.failureBound) }
        }
        func head(_ status: Int, _ headers: [HeaderField]) -> [UInt8] {
            Array(("HTTP/1.1 \(status) \(reason(status))\r\n" + headers.map { "\($0.name): \($0.value)\r\n" }.joined()
                   + "Connection: close\r\n\r\n").utf8)
        }
        switch behavior {
        case .respond(let status, var headers, let body):
            if !headers.contains(where: { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }) {
                headers.append(HeaderField("Content-Length", "\(body.count)"))
            }
            try send(head(status, headers) + body)
        case .chunked(let body, let chunkSize):
            var out = head(200, [HeaderField("Transfer-Encoding", "chunked")])
            var offset = 0
            while offset < body.count {
                let piece = body[offset..<min(body.count, offset + max(1, chunkSize))]
                out += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
                offset += piece.count
            }
            try send(out + Array("0\r\n\r\n".utf8))
        case .redirect(let location, let status):
            try send(head(status, [HeaderField("Location", location), HeaderField("Content-Length", "0")]))
        case .stall:
            while shared.running.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.02) }
        case .streamForever(let headers, let chunked, let interval):
            try send(head(200, headers + (chunked ? [HeaderField("Transfer-Encoding", "chunked")] : [])))
            let piece = [UInt8](repeating: 0x41, count: interval == nil ? 16 * 1024 : 1)
            let unit = chunked ? Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10] : piece
            while shared.running.load(ordering: .relaxed) {
                try send(unit)
                if let interval { Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds)) }
            }
        case .raw(let bytes):
            try send(bytes)
        case .close:
            break
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }

    /// Reads a request head (at most 64 KiB) and its Content-Length body (at most 1 MiB).
    private static func readRequest(_ transport: TCPTransport) throws -> Request {
        let deadline = ContinuousClock.now + TestDeadlines.failureBound
        var bytes: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        func more() throws {
            let n = try scratch.withUnsafeMutableBytes { try transport.receive(into: $0, deadline: deadline) }
            guard n > 0 else { throw TLSError(.connectionClosed, "the client closed the connection") }
            bytes += scratch[..<n]
        }
        while HTTPResponseHead.end(of: bytes) == nil {
            guard bytes.count < 65_536 else { throw TLSError(.protocolError, "request head too long") }
            try more()
        }
        let end = HTTPResponseHead.end(of: bytes)!
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { throw TLSError(.protocolError, "bad request line \(lines[0])") }
        let headers = lines.dropFirst().compactMap { line -> HeaderField? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HeaderField(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard (0...(1 << 20)).contains(length) else { throw TLSError(.protocolError, "request body too long") }
        while bytes.count - (end + 4) < length { try more() }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                       body: Array(bytes[(end + 4)..<(end + 4 + length)]))
    }
}
