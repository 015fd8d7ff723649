import Dispatch
import TLSTrustCore
import TLSTrustDecisions

/// A minimal HTTPS GET over a ``TLSConnection``: for `tlstrust fetch`, the demo and tests.
///
/// HTTP/1.1 with `Connection: close`, the response read to the end. Not a general HTTP client —
/// its point is the TLS connection under it, whose server was judged by TLSTrust.
///
/// ```swift
/// var configuration = TLSClientConfiguration()
/// configuration.anchors = .only([appCA])
/// let result = try await HTTPSClient.get("https://api.example.com/status", configuration: configuration,
///                                        backend: OpenSSLTrustBackend())
/// print(result.response.statusCode, result.response.text)
/// ```
public enum HTTPSClient {
    /// A proxy reached with HTTP `CONNECT` (as Charles, mitmproxy and corporate proxies are).
    public struct Proxy: Sendable, Hashable {
        public let host: String
        public let port: Int
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// What a GET returned, with the connection's TLS facts.
    public struct Result: Sendable {
        /// The response.
        public let response: HTTPResponse
        /// The TLS version negotiated.
        public let negotiatedVersion: TLSVersion?
        /// The cipher suite negotiated.
        public let cipherSuite: String?
        /// The server's chain as presented.
        public let peerCertificates: [Certificate]
        /// The default evaluation, when default handling decided.
        public let evaluation: TrustEvaluation?
        /// The identity sent, if the server asked for one.
        public let sentIdentity: ClientIdentity?
    }

    /// GETs `url`, directly or through `proxy`.
    ///
    /// - Parameters:
    ///   - url: an `https://` URL; its host is the name sent in SNI and checked against the chain.
    ///   - configuration: trust, identity, versions and timeouts for the connection.
    ///   - backend: the library that runs the handshake.
    ///   - proxy: an HTTP CONNECT proxy to tunnel through.
    ///   - address: connect to this address instead of resolving the URL's host (the host is
    ///     still the name sent and checked), like curl's `--resolve`.
    ///   - headers: extra request headers; a name or value that could split the request (CR, LF,
    ///     or a colon in the name) is refused rather than sent.
    ///   - maximumBodySize: a response larger than this fails (default 16 MiB).
    /// - Throws: `TLSError` for connection and trust failures; `TLSTrustError` `.invalidArgument`
    ///   for a bad URL, a header that could split the request, or a malformed response.
    public static func get(_ url: String, configuration: TLSClientConfiguration = TLSClientConfiguration(),
                           backend: any TLSBackend, proxy: Proxy? = nil, connectingTo address: String? = nil,
                           headers: [(String, String)] = [], maximumBodySize: Int = 16 << 20) async throws -> Result {
        let target = try HTTPSURL(url)
        var request = "GET \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: tlstrust\r\nAccept: */*\r\nConnection: close\r\n"
        for (name, value) in headers {
            // Bytes, not Characters: "\r\n" is one Character in Swift and equals neither "\r" nor "\n".
            guard !name.isEmpty, !name.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 58 || $0 == 0 }),
                  !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw TLSTrustError(.invalidArgument, "header \(String(reflecting: name)) would split the request")
            }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        let requestBytes = Array(request.utf8)
        var configuration = configuration
        if address != nil || proxy != nil, configuration.serverName == nil { configuration.serverName = target.host }
        let finalConfiguration = configuration
        // The whole exchange on one thread of its own, with the blocking connection calls: no step
        // waits for Swift's cooperative pool while the server's clocks run.
        return try await TLSConnection.run(on: DispatchQueue(label: "tlstrust.https-get")) {
            let connection: TLSConnection
            if let proxy {
                let transport = try tunnelBlocking(to: target, through: proxy, timeout: finalConfiguration.timeouts.connect)
                connection = try TLSConnection.connectBlocking(over: transport, host: target.host, port: target.port,
                                                               configuration: finalConfiguration, backend: backend)
            } else {
                connection = try TLSConnection.connectBlocking(host: address ?? target.host, port: target.port,
                                                               configuration: finalConfiguration, backend: backend)
            }
            defer { connection.closeBlocking() }
            try connection.writeBlocking(requestBytes)
            let bytes = try connection.readToEndBlocking(limit: maximumBodySize + 65_536)
            guard bytes.count < maximumBodySize + 65_536 else {
                throw TLSTrustError(.invalidArgument, "the response is larger than \(maximumBodySize) bytes")
            }
            return Result(response: try HTTPResponse(parsing: bytes), negotiatedVersion: connection.negotiatedVersion,
                          cipherSuite: connection.cipherSuite, peerCertificates: connection.peerCertificates,
                          evaluation: connection.context.evaluation, sentIdentity: connection.context.sentIdentity)
        }
    }

    /// Opens a TCP connection to `proxy` and asks it, with `CONNECT`, for a tunnel to `target`.
    ///
    /// - Throws: `TLSError` `.connectFailed` when the proxy refuses.
    public static func tunnel(to target: HTTPSURL, through proxy: Proxy, timeout: Duration) async throws -> TCPTransport {
        try await TLSConnection.run(on: DispatchQueue(label: "tlstrust.https-tunnel")) { try tunnelBlocking(to: target, through: proxy, timeout: timeout) }
    }

    /// ``tunnel(to:through:timeout:)`` on the calling thread.
    public static func tunnelBlocking(to target: HTTPSURL, through proxy: Proxy, timeout: Duration) throws -> TCPTransport {
        let deadline = ContinuousClock.now + timeout
        let transport = try TCPTransport.connect(host: proxy.host, port: proxy.port, timeout: timeout)
        do {
            let authority = (target.host.contains(":") ? "[\(target.host)]" : target.host) + ":\(target.port)"
            let request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n"
            try Array(request.utf8).withUnsafeBytes { try transport.send($0, deadline: deadline) }
            // Byte by byte, so that nothing after the proxy's header block is consumed.
            var reply: [UInt8] = []
            var byte: UInt8 = 0
            while HTTPResponse.endOfHeaders(reply) == nil {
                guard reply.count < 8192 else { throw TLSError(.protocolError, "the proxy's reply to CONNECT is too long") }
                let n = try withUnsafeMutableBytes(of: &byte) { try transport.receive(into: $0, deadline: deadline) }
                guard n == 1 else { throw TLSError(.connectionClosed, "the proxy closed the connection during CONNECT") }
                reply.append(byte)
            }
            let status = String(decoding: reply.prefix { $0 != 13 }, as: UTF8.self)
            guard status.split(separator: " ").dropFirst().first == "200" else {
                throw TLSError(.connectFailed, "the proxy refused the tunnel: \(status)")
            }
            return transport
        } catch {
            transport.close()
            throw error
        }
    }
}
