#if NIO
import AsyncHTTPClient
import NIOCore
import NIOSSL
import TLSTrust
import TLSTrustNIO

/// The strongest TLSTrust pinning AsyncHTTPClient 1.37 allows without changing it.
///
/// AsyncHTTPClient makes its own `NIOSSLClientHandler` and offers no way to install a custom
/// verification callback, so TLSTrust cannot evaluate the chain itself there (use
/// ``TLSTrustNIO`` with SwiftNIO directly for that). What can be done:
///
/// | what | through | checked by |
/// |---|---|---|
/// | CA whitelist | `tlsConfiguration.trustRoots` = ``trustedCAs`` | BoringSSL (chain) and swift-nio-ssl (host name) |
/// | SPKI pins of the leaf | `http1_1ConnectionDebugInitializer` / `http2ConnectionDebugInitializer`, after the handshake | TLSTrust (``TLSTrust/SPKIPin/matches(_:)``) |
/// | per-host client identities | `tlsConfiguration.sslContextCallback`, by SNI host name | swift-nio-ssl, when the server asks for a certificate |
/// | a pin failure reported at once | `connectionPool.retryConnectionEstablishment = false` | AsyncHTTPClient |
///
/// A pin failure closes the connection's channel and only then fails its creation: failing
/// without closing would leak the connection, and closing after failing crashes the pool. The
/// request then throws ``TLSTrustLeafPinFailure``.
///
/// Not possible without an upstream hook: pins on intermediate or root keys (the connection
/// initializers see only the leaf, `NIOSSLHandler.peerCertificate`), per-host leaf pins (they do
/// not see the host name), and TLSTrust's own host check (swift-nio-ssl's accepts an IP address
/// SAN that matches the peer's address for any DNS name). See docs/nio.md for the proposed API.
public struct HTTPClientTLSTrust: Sendable {
    /// The only CAs server chains may end at (`trustRoots`); nil keeps the system store.
    public var trustedCAs: [Certificate]?
    /// SPKI pins, one of which the leaf's key must match on every connection of the client; empty
    /// checks no pin. Positions `.any` and `.leaf` only (see the type's notes).
    public var leafPins: [SPKIPin]
    /// Client identities (certificate chain and key) by host name, presented when that server
    /// asks for a client certificate. Keys are DNS names (matched case-insensitively against the
    /// SNI name); an IP-literal host sends no SNI and so gets none of these.
    public var clientIdentities: [String: NIOSSLPKCS12Bundle]
    /// Whether AsyncHTTPClient retries a failed connection establishment (default false: a pin
    /// failure is reported at once instead of being retried until the connect timeout).
    public var retryConnectionEstablishment: Bool
    /// Called with each pin failure, before the request fails (for reporting); must not block.
    public var onPinFailure: (@Sendable (TLSTrustLeafPinFailure) -> Void)?

    /// - Parameters:
    ///   - trustedCAs: the only CAs server chains may end at; nil keeps the system store.
    ///   - leafPins: pins, one of which the leaf's key must match; positions `.any` or `.leaf`.
    ///   - clientIdentities: client identities by host name.
    ///   - retryConnectionEstablishment: default false (report a pin failure at once).
    ///   - onPinFailure: called with each pin failure.
    /// - Throws: ``TLSTrustNIO/TLSTrustConfigurationError`` for a pin on an intermediate or root
    ///   key, or an empty `trustedCAs`.
    public init(
        trustedCAs: [Certificate]? = nil, leafPins: [SPKIPin] = [], clientIdentities: [String: NIOSSLPKCS12Bundle] = [:],
        retryConnectionEstablishment: Bool = false, onPinFailure: (@Sendable (TLSTrustLeafPinFailure) -> Void)? = nil
    ) throws {
        if let unsupported = leafPins.first(where: { $0.position != .any && $0.position != .leaf }) {
            throw TLSTrustConfigurationError(
                "pin \(unsupported) is on an \(unsupported.position) key: AsyncHTTPClient 1.37 shows only the leaf to "
                    + "its connection initializers, so only leaf pins can be checked (docs/nio.md); use TLSTrustNIO, "
                    + "or a CA whitelist (trustedCAs)")
        }
        if let trustedCAs, trustedCAs.isEmpty {
            throw TLSTrustConfigurationError("trustedCAs is empty: no server could be trusted; pass nil for the system store")
        }
        self.trustedCAs = trustedCAs
        self.leafPins = leafPins
        self.clientIdentities = Dictionary(clientIdentities.map { (Self.normalize($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.retryConnectionEstablishment = retryConnectionEstablishment
        self.onPinFailure = onPinFailure
    }

    static func normalize(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Applies the settings to `configuration`, keeping its other settings and chaining any
    /// connection initializers it already has (TLSTrust's check runs first).
    ///
    /// - Throws: ``TLSTrustNIO/TLSTrustConfigurationError`` when `configuration`'s
    ///   `certificateVerification` is `.none` (nothing would be validated); swift-nio-ssl's
    ///   error for a CA it cannot read.
    public func apply(to configuration: inout HTTPClient.Configuration) throws {
        var tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        if case .none = tls.certificateVerification {
            throw TLSTrustConfigurationError(
                "certificateVerification is .none: no chain would be validated, and a leaf pin alone does not make a "
                    + "trusted connection; keep .fullVerification")
        }
        if let trustedCAs {
            tls.trustRoots = .certificates(try trustedCAs.map { try NIOSSLCertificate(bytes: $0.derEncoded, format: .der) })
        }
        if !clientIdentities.isEmpty {
            let identities = clientIdentities
            let previous = tls.sslContextCallback
            tls.sslContextCallback = { values, promise in
                if let host = values.serverHostname, let identity = identities[Self.normalize(host)] {
                    var override = NIOSSLContextConfigurationOverride()
                    override.certificateChain = identity.certificateChain.map { .certificate($0) }
                    override.privateKey = .privateKey(identity.privateKey)
                    promise.succeed(override)
                } else if let previous {
                    previous(values, promise)
                } else {
                    promise.succeed(.noChanges)
                }
            }
        }
        configuration.tlsConfiguration = tls
        configuration.connectionPool.retryConnectionEstablishment = retryConnectionEstablishment
        if !leafPins.isEmpty {
            let check = LeafPinCheck(pins: leafPins, onFailure: onPinFailure)
            configuration.http1_1ConnectionDebugInitializer = check.initializer(then: configuration.http1_1ConnectionDebugInitializer)
            configuration.http2ConnectionDebugInitializer = check.initializer(then: configuration.http2ConnectionDebugInitializer)
        }
    }
}

/// The leaf's key matched none of the pins: the request's error.
public struct TLSTrustLeafPinFailure: Error, Sendable, CustomStringConvertible {
    /// The peer's address.
    public let remoteAddress: String
    /// The leaf certificate the server presented (validated by swift-nio-ssl against the trust
    /// roots); nil when none could be read.
    public let leaf: Certificate?
    /// The pins expected.
    public let expectedPins: [SPKIPin]
    /// Why, in one line.
    public let message: String

    public var description: String { "TLSTrust refused \(remoteAddress): \(message)" }
}

/// The post-handshake leaf-pin check run from AsyncHTTPClient's connection initializers.
struct LeafPinCheck: Sendable {
    let pins: [SPKIPin]
    let onFailure: (@Sendable (TLSTrustLeafPinFailure) -> Void)?

    /// An initializer that checks the pin, then runs `next`.
    func initializer(
        then next: (@Sendable (Channel) -> EventLoopFuture<Void>)?
    ) -> @Sendable (Channel) -> EventLoopFuture<Void> {
        { channel in
            channel.nioSSL_peerCertificate().flatMap { peer -> EventLoopFuture<Void> in
                if let failure = check(peer, remoteAddress: channel.remoteAddress.map { "\($0)" } ?? "(unknown peer)") {
                    onFailure?(failure)
                    // Close first, then fail: failing leaves AsyncHTTPClient's connection open
                    // (a leak), and a close after the failure reaches a pool that no longer
                    // knows the connection.
                    return channel.close().flatMapErrorThrowing { _ in () }.flatMapThrowing { throw failure }
                }
                return next?(channel) ?? channel.eventLoop.makeSucceededVoidFuture()
            }
        }
    }

    /// Nil when the leaf matches a pin.
    func check(_ peer: NIOSSLCertificate?, remoteAddress: String) -> TLSTrustLeafPinFailure? {
        guard let peer else {
            return TLSTrustLeafPinFailure(remoteAddress: remoteAddress, leaf: nil, expectedPins: pins,
                                          message: "the server presented no certificate")
        }
        let leaf: Certificate
        do {
            leaf = try Certificate(derEncoded: try peer.toDERBytes())
        } catch {
            return TLSTrustLeafPinFailure(remoteAddress: remoteAddress, leaf: nil, expectedPins: pins,
                                          message: "the leaf certificate is not readable: \(error)")
        }
        if pins.contains(where: { $0.matches(leaf.publicKey) }) { return nil }
        return TLSTrustLeafPinFailure(
            remoteAddress: remoteAddress, leaf: leaf, expectedPins: pins,
            message: "pin mismatch: the leaf's key \(leaf.publicKey.pin) (\(leaf.subject)) matches none of \(pins.map(\.text))")
    }
}

extension HTTPClient.Configuration {
    /// A configuration with TLSTrust's CA whitelist, leaf pins and client identities: one line for
    /// Vapor's `app.http.client.configuration` (no Vapor dependency).
    ///
    /// ```swift
    /// // configure.swift — before the first use of app.http.client / app.client: Vapor makes its
    /// // HTTPClient once, and ignores later changes to the configuration.
    /// public func configure(_ app: Application) throws {
    ///     app.http.client.configuration = try .tlsTrust(
    ///         trustedCAs: [apiRootCA],
    ///         leafPins: [try SPKIPin("sha256/…current…"), try SPKIPin("sha256/…backup…")])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - trustedCAs: the only CAs server chains may end at; nil keeps the system store.
    ///   - leafPins: pins, one of which the leaf's key must match on every connection.
    ///   - clientIdentities: client identities by host name (mutual TLS).
    ///   - retryConnectionEstablishment: default false, so that a pin failure is reported at once.
    ///   - onPinFailure: called with each pin failure.
    ///   - base: the configuration to start from (default `HTTPClient.Configuration()`).
    /// - Throws: ``TLSTrustNIO/TLSTrustConfigurationError`` (see ``HTTPClientTLSTrust``).
    public static func tlsTrust(
        trustedCAs: [Certificate]? = nil, leafPins: [SPKIPin] = [], clientIdentities: [String: NIOSSLPKCS12Bundle] = [:],
        retryConnectionEstablishment: Bool = false, onPinFailure: (@Sendable (TLSTrustLeafPinFailure) -> Void)? = nil,
        base: HTTPClient.Configuration = HTTPClient.Configuration()
    ) throws -> HTTPClient.Configuration {
        var configuration = base
        try HTTPClientTLSTrust(trustedCAs: trustedCAs, leafPins: leafPins, clientIdentities: clientIdentities,
                               retryConnectionEstablishment: retryConnectionEstablishment, onPinFailure: onPinFailure)
            .apply(to: &configuration)
        return configuration
    }
}
#endif
