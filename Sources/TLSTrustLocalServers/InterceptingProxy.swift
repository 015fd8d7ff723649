import Foundation
import Synchronization
import TLSTrust
import TLSTrustPKI

/// A Charles / mitmproxy-style interception proxy on 127.0.0.1, for the live demo and tests.
///
/// It accepts HTTP `CONNECT host:port`, answers `200`, and then — instead of tunnelling — runs a
/// TLS server towards the client with a certificate for `host` that it mints on the spot under
/// its own CA. It reads the client's request (that is the attack: ``interceptedRequests``),
/// forwards it over a genuine TLS connection to the origin, and relays the answer. A client that
/// trusts the proxy's CA cannot tell; one that pins, or trusts only its app's CA, refuses the
/// forged certificate during the handshake and sends nothing.
public final class InterceptingProxy: @unchecked Sendable {
    /// The proxy's CA, which the victim was talked into trusting.
    public let certificateAuthority: TestCertificate
    /// The port listened on.
    public var port: Int { listener.port }
    /// What the proxy read from clients: each request's head, Authorization headers included.
    public var interceptedRequests: [String] { shared.intercepted.withLock { $0 } }
    /// Handshakes clients refused (their alert) and other failures, in order.
    public var errors: [String] { loop.log.withLock { $0 } }

    private let listener: TCPListener
    private let shared = ProxyState()
    private let loop: AcceptLoop

    /// Starts the proxy.
    ///
    /// - Parameters:
    ///   - backend: the library for both of the proxy's TLS sides.
    ///   - upstream: where to connect for a requested `host:port` (the demo maps every host to its
    ///     local origin).
    ///   - upstreamAnchors: whom the proxy itself trusts upstream.
    public init(backend: any TLSBackend, upstreamAnchors: TrustAnchors,
                upstream: @escaping @Sendable (_ host: String, _ port: Int) -> (host: String, port: Int)) throws {
        certificateAuthority = try TestPKI.issue(.certificateAuthority(commonName: "Interception Proxy CA (demo)"))
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        self.listener = listener
        let shared = shared, ca = certificateAuthority
        loop = AcceptLoop(listener) { client in
            try InterceptingProxy.intercept(client, ca: ca, backend: backend, shared: shared,
                                            upstreamAnchors: upstreamAnchors, upstream: upstream)
            client.close()
        }
    }

    /// The bound on every wait of one interception (the CONNECT request, both handshakes, reads):
    /// long, because it only ends a connection that has already failed, and a loaded machine
    /// must not turn a slow success into one.
    static let waitBound: Duration = .seconds(30)

    deinit { stop() }

    /// Stops accepting. Safe to call twice.
    public func stop() {
        loop.stop()
    }

    private static func intercept(_ client: TCPTransport, ca: TestCertificate, backend: any TLSBackend, shared: ProxyState,
                                  upstreamAnchors: TrustAnchors,
                                  upstream: @Sendable (String, Int) -> (host: String, port: Int)) throws {
        let deadline = ContinuousClock.now + waitBound
        // 1. The plain CONNECT request.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while HTTPResponseHead.end(of: head) == nil {
            guard head.count < 8192,
                  try withUnsafeMutableBytes(of: &byte, { try client.receive(into: $0, deadline: deadline) }) == 1 else {
                throw TLSError(.protocolError, "proxy: no complete CONNECT request")
            }
            head.append(byte)
        }
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
              let port = Int(parts[1][parts[1].index(after: colon)...]) else {
            try Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8).withUnsafeBytes { try client.send($0, deadline: deadline) }
            throw TLSError(.protocolError, "proxy: not a CONNECT request: \(line.prefix(80))")
        }
        let host = String(parts[1][..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        try Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8).withUnsafeBytes { try client.send($0, deadline: deadline) }

        // 2. TLS towards the client, with a certificate for `host` forged under the proxy's CA.
        let identity = try shared.forgedIdentity(for: host, ca: ca, backend: backend)
        var serverConfiguration = TLSServerConfiguration(identity: identity)
        serverConfiguration.timeouts = TLSTimeouts(connect: waitBound, handshake: waitBound, read: waitBound)
        let downstream: TLSConnection
        do {
            downstream = try TLSConnection.acceptBlocking(over: client, configuration: serverConfiguration, backend: backend)
        } catch {
            throw TLSError(.handshakeFailed, "proxy: the client refused the forged certificate for \(host): \(error)")
        }
        let request = try LocalHTTPSServer.readHead(downstream)
        shared.intercepted.withLock { $0.append(request) }

        // 3. A genuine connection to the origin, and the relay.
        let (originHost, originPort) = upstream(host, port)
        var clientConfiguration = TLSClientConfiguration(serverName: host)
        clientConfiguration.anchors = upstreamAnchors
        clientConfiguration.timeouts = serverConfiguration.timeouts
        let origin = try TLSConnection.connectBlocking(host: originHost, port: originPort, configuration: clientConfiguration, backend: backend)
        try origin.writeBlocking(Array(request.utf8))
        let answer = try origin.readToEndBlocking(limit: 16 << 20)
        origin.closeBlocking()
        try downstream.writeBlocking(answer)
        downstream.closeBlocking()
    }
}

/// What the connections' threads share with the proxy object.
final class ProxyState: Sendable {
    let intercepted = Locked<[String]>([])
    private let forged = Locked<[String: ClientIdentity]>([:])

    /// A leaf for `host` under the proxy's CA, minted once per host, as interception proxies do.
    func forgedIdentity(for host: String, ca: TestCertificate, backend: any TLSBackend) throws -> ClientIdentity {
        if let identity = forged.withLock({ $0[host] }) { return identity }
        let isIP = IPAddress(host) != nil
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: isIP ? [] : [host], ipAddresses: isIP ? [host] : []), issuer: ca)
        let identity = try backend.importIdentity(certificateChainPEM: Array(leaf.pem.utf8),
                                                  privateKeyPEM: Array(leaf.privateKey.pkcs8PEM.utf8), password: nil)
        forged.withLock { $0[host] = identity }
        return identity
    }
}
