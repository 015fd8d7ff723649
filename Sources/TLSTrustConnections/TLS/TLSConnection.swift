import Dispatch
import TLSTrustCore
import TLSTrustDecisions

/// A TLS connection, client or server, on any ``TLSBackend``, whose peer was judged by TLSTrust.
///
/// The handshake, reads and writes run on the connection's own thread (the C libraries block),
/// never on Swift's cooperative pool; the async methods wait for them.
///
/// ```swift
/// var configuration = TLSClientConfiguration()
/// configuration.anchors = .only([appCA])                  // the app's own CA, nothing else
/// let connection = try await TLSConnection.connect(host: "api.example.com", port: 443,
///                                                  configuration: configuration, backend: GnuTLSTrustBackend())
/// try await connection.write(Array("GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n".utf8))
/// let reply = try await connection.read()
/// await connection.close()
/// ```
public final class TLSConnection: @unchecked Sendable {
    // Mutable state is touched only on `queue`.
    private let session: any TLSSession
    private let transport: any TLSTransport
    private let queue: DispatchQueue
    private let timeouts: TLSTimeouts
    private var closed = false

    /// The trust decisions of the handshake: the peer's presented chain, the evaluation, the
    /// challenges raised.
    public let context: TLSHandshakeContext
    /// The backend's name.
    public var backendName: String { context.backend.name }
    /// The version negotiated.
    public let negotiatedVersion: TLSVersion?
    /// The cipher suite, in the library's naming.
    public let cipherSuite: String?
    /// The ALPN protocol agreed, if any.
    public let negotiatedApplicationProtocol: String?
    /// Whether the session was resumed (TLSTrust clients never offer resumption).
    public let isResumed: Bool
    /// The peer's chain exactly as presented (empty when the peer sent none).
    public var peerCertificates: [Certificate] { context.peerCertificates }

    private init(session: any TLSSession, transport: any TLSTransport, queue: DispatchQueue, context: TLSHandshakeContext, timeouts: TLSTimeouts) {
        self.session = session
        self.transport = transport
        self.queue = queue
        self.context = context
        self.timeouts = timeouts
        negotiatedVersion = session.negotiatedVersion
        cipherSuite = session.cipherSuite
        negotiatedApplicationProtocol = session.negotiatedApplicationProtocol
        isResumed = session.isResumed
    }

    // MARK: Clients

    /// Connects over TCP to `host:port` and runs the handshake.
    ///
    /// - Throws: `TLSError`. A refused server is `.peerTrustRefused` with TLSTrust's reason in
    ///   `TLSError.underlying`.
    public static func connect(host: String, port: Int, configuration: TLSClientConfiguration = TLSClientConfiguration(),
                               backend: any TLSBackend) async throws -> TLSConnection {
        // The TCP connect and the handshake in one hop to the connection's thread: nothing between
        // them waits for Swift's cooperative pool while the server's handshake clock runs.
        let queue = DispatchQueue(label: "tlstrust.connection.\(backend.name)")
        return try await run(on: queue) {
            let transport = try TCPTransport.connect(host: host, port: port, timeout: configuration.timeouts.connect)
            let context = TLSHandshakeContext(client: configuration, host: host, port: port, backend: backend)
            return try handshake(context: context, transport: transport, timeouts: configuration.timeouts, queue: queue) {
                try backend.makeClientSession(configuration: configuration, context: context, transport: transport)
            }
        }
    }

    /// Runs a client handshake over an existing transport (an in-memory pipe, a proxy tunnel).
    public static func connect(over transport: any TLSTransport, host: String, port: Int = 443,
                               configuration: TLSClientConfiguration = TLSClientConfiguration(),
                               backend: any TLSBackend) async throws -> TLSConnection {
        try await connect(over: transport, host: host, port: port, configuration: configuration, backend: backend,
                          queue: DispatchQueue(label: "tlstrust.connection.\(backend.name)"))
    }

    private static func connect(over transport: any TLSTransport, host: String, port: Int, configuration: TLSClientConfiguration,
                                backend: any TLSBackend, queue: DispatchQueue) async throws -> TLSConnection {
        let context = TLSHandshakeContext(client: configuration, host: host, port: port, backend: backend)
        return try await run(on: queue) {
            try handshake(context: context, transport: transport, timeouts: configuration.timeouts, queue: queue) {
                try backend.makeClientSession(configuration: configuration, context: context, transport: transport)
            }
        }
    }

    // MARK: Servers

    /// Runs a server handshake over an accepted transport.
    public static func accept(over transport: any TLSTransport, configuration: TLSServerConfiguration, port: Int = 0,
                              backend: any TLSBackend) async throws -> TLSConnection {
        let queue = DispatchQueue(label: "tlstrust.server.\(backend.name)")
        let context = TLSHandshakeContext(server: configuration, port: port, backend: backend)
        return try await run(on: queue) {
            try handshake(context: context, transport: transport, timeouts: configuration.timeouts, queue: queue) {
                try backend.makeServerSession(configuration: configuration, context: context, transport: transport)
            }
        }
    }

    private static func handshake(context: TLSHandshakeContext, transport: any TLSTransport, timeouts: TLSTimeouts,
                                  queue: DispatchQueue, make: () throws -> any TLSSession) throws -> TLSConnection {
        context.deadline = .now + timeouts.handshake
        let session: any TLSSession
        do {
            session = try make()
        } catch {
            transport.close()
            throw error
        }
        do {
            try session.handshake()
        } catch {
            session.shutdown()
            transport.close()
            // TLSTrust's own reason wins over the library's ("certificate verify failed").
            if let failure = context.failure { throw failure }
            if let tlsError = error as? TLSError { throw tlsError }
            throw TLSError(.handshakeFailed, "\(error)")
        }
        if let failure = context.failure {
            // A backend must have aborted; never hand out a connection TLSTrust refused.
            session.shutdown()
            transport.close()
            throw failure
        }
        return TLSConnection(session: session, transport: transport, queue: queue, context: context, timeouts: timeouts)
    }

    // MARK: Data

    /// Reads up to `maximumCount` bytes of application data.
    ///
    /// - Returns: the bytes; empty when the peer has closed the connection.
    /// - Throws: `TLSError` `.timedOut` after `TLSTimeouts.read` without data.
    public func read(maximumCount: Int = 16_384) async throws -> [UInt8] {
        try await Self.run(on: queue) { [self] in try readOnQueue(maximumCount: maximumCount) }
    }

    /// Reads until the peer closes the connection or `limit` bytes have arrived.
    public func readToEnd(limit: Int = 64 << 20) async throws -> [UInt8] {
        var all: [UInt8] = []
        while all.count < limit {
            let chunk = try await read(maximumCount: min(65_536, limit - all.count))
            if chunk.isEmpty { break }
            all += chunk
        }
        return all
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) async throws {
        try await Self.run(on: queue) { [self] in try writeOnQueue(bytes) }
    }

    /// Sends close_notify and closes the transport. Safe to call twice.
    public func close() async {
        _ = try? await Self.run(on: queue) { [self] in closeOnQueue() }
    }

    deinit {
        if !closed {
            session.shutdown()
            transport.close()
        }
    }

    // MARK: Blocking variants

    /// Connects and runs a client handshake on the calling thread, for code that has threads of its
    /// own (a thread-per-connection server, a proxy, a benchmark loop).
    ///
    /// - Important: never call a blocking variant from Swift's cooperative pool (an `async`
    ///   context): it would hold a pool thread for the whole handshake.
    public static func connectBlocking(host: String, port: Int, configuration: TLSClientConfiguration = TLSClientConfiguration(),
                                       backend: any TLSBackend) throws -> TLSConnection {
        let transport = try TCPTransport.connect(host: host, port: port, timeout: configuration.timeouts.connect)
        return try connectBlocking(over: transport, host: host, port: port, configuration: configuration, backend: backend)
    }

    /// Runs a client handshake over `transport` on the calling thread. See ``connectBlocking(host:port:configuration:backend:)``.
    public static func connectBlocking(over transport: any TLSTransport, host: String, port: Int = 443,
                                       configuration: TLSClientConfiguration = TLSClientConfiguration(),
                                       backend: any TLSBackend) throws -> TLSConnection {
        let queue = DispatchQueue(label: "tlstrust.connection.\(backend.name)")
        let context = TLSHandshakeContext(client: configuration, host: host, port: port, backend: backend)
        return try queue.sync {
            try handshake(context: context, transport: transport, timeouts: configuration.timeouts, queue: queue) {
                try backend.makeClientSession(configuration: configuration, context: context, transport: transport)
            }
        }
    }

    /// Runs a server handshake over `transport` on the calling thread. See ``connectBlocking(host:port:configuration:backend:)``.
    public static func acceptBlocking(over transport: any TLSTransport, configuration: TLSServerConfiguration, port: Int = 0,
                                      backend: any TLSBackend) throws -> TLSConnection {
        let queue = DispatchQueue(label: "tlstrust.server.\(backend.name)")
        let context = TLSHandshakeContext(server: configuration, port: port, backend: backend)
        return try queue.sync {
            try handshake(context: context, transport: transport, timeouts: configuration.timeouts, queue: queue) {
                try backend.makeServerSession(configuration: configuration, context: context, transport: transport)
            }
        }
    }

    /// ``read(maximumCount:)`` on the calling thread.
    public func readBlocking(maximumCount: Int = 16_384) throws -> [UInt8] {
        try queue.sync { try readOnQueue(maximumCount: maximumCount) }
    }

    /// ``readToEnd(limit:)`` on the calling thread.
    public func readToEndBlocking(limit: Int = 64 << 20) throws -> [UInt8] {
        var all: [UInt8] = []
        while all.count < limit {
            let chunk = try readBlocking(maximumCount: min(65_536, limit - all.count))
            if chunk.isEmpty { break }
            all += chunk
        }
        return all
    }

    /// ``write(_:)`` on the calling thread.
    public func writeBlocking(_ bytes: [UInt8]) throws {
        try queue.sync { try writeOnQueue(bytes) }
    }

    /// ``close()`` on the calling thread.
    public func closeBlocking() {
        queue.sync { closeOnQueue() }
    }

    private func readOnQueue(maximumCount: Int) throws -> [UInt8] {
        guard !closed else { return [] }
        context.deadline = .now + timeouts.read
        var buffer = [UInt8](repeating: 0, count: max(1, maximumCount))
        let n = try buffer.withUnsafeMutableBytes { try session.read(into: $0) }
        buffer.removeSubrange(n...)
        return buffer
    }

    private func writeOnQueue(_ bytes: [UInt8]) throws {
        guard !closed else { throw TLSError(.connectionClosed, "the connection is closed") }
        context.deadline = .now + timeouts.read
        try bytes.withUnsafeBytes { try session.write($0) }
    }

    private func closeOnQueue() {
        guard !closed else { return }
        closed = true
        context.deadline = .now + .seconds(1)
        session.shutdown()
        transport.close()
    }

    static func run<T: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
