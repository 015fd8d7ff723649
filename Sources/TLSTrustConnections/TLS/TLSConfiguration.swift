import TLSTrustCore
import TLSTrustDecisions
/// A TLS protocol version.
public enum TLSVersion: String, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case tls12 = "TLSv1.2"
    case tls13 = "TLSv1.3"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs == .tls12 && rhs == .tls13 }
    public var description: String { rawValue }
}

/// How a client connects and whom it trusts.
///
/// The server's chain is decided by TLSTrust during the handshake: the chain the server presents
/// goes into a `Trust` with the SSL server policy for ``serverName`` and ``anchors``, evaluated
/// by the core's validation engine, and the ``challengeHandler`` (if any) answers the challenge —
/// just as a `URLSessionDelegate` does. The library's own verifier is never asked.
///
/// ```swift
/// var configuration = TLSClientConfiguration(serverName: "api.example.com")
/// configuration.challengeHandler = TLSChallengeHandlers.evaluator(.publicKeys([pinned, backup]))
/// let connection = try await TLSConnection.connect(host: "api.example.com", port: 443,
///                                                  configuration: configuration, backend: OpenSSLTrustBackend())
/// ```
public struct TLSClientConfiguration: Sendable {
    /// The host name sent in SNI and checked against the server's certificate (or an IP literal,
    /// which is checked but not sent). Nil means the host the connection was made to.
    public var serverName: String?
    /// The anchors default handling validates to (the system store by default).
    public var anchors: TrustAnchors = .system
    /// Answers the server-trust and client-certificate challenges. Nil means default handling:
    /// validation to ``anchors`` for the host, and ``identity`` if the server asks for one.
    public var challengeHandler: (any TLSChallengeHandler)?
    /// The identity offered when the server asks for a client certificate and the handler (if
    /// any) answers with default handling.
    public var identity: ClientIdentity?
    /// The lowest version offered (TLS 1.2 by default; nothing lower is supported).
    public var minimumVersion: TLSVersion = .tls12
    /// The highest version offered (TLS 1.3 by default; mbedTLS 2.28 stops at TLS 1.2).
    public var maximumVersion: TLSVersion = .tls13
    /// ALPN protocols to offer, e.g. `["http/1.1"]`; empty offers none.
    public var applicationProtocols: [String] = []
    /// The time limits.
    public var timeouts: TLSTimeouts = .default
    /// Whether and how default handling consults revocation (default off). When it is on, the
    /// client asks the server to staple an OCSP response and the engine uses what it staples.
    public var revocation: RevocationPolicy = .off
    /// Ask the server to staple an OCSP response (status_request) even when ``revocation`` is off,
    /// so that a handler can read it (``TLSHandshakeContext/stapledOCSPResponses``, and the
    /// challenge's `Trust`). Backends whose library has no client-side stapling (mbedTLS 2.28,
    /// ``TLSBackend/supportsOCSPStapling`` false) refuse a session with this set (`.unsupported`):
    /// an explicit request is never dropped silently. With only ``revocation`` on, such a backend
    /// connects without asking and the engine judges without a stapled answer.
    public var requestsOCSPStapling = false

    /// Whether the client asks for a stapled OCSP response: when revocation is on, or when asked.
    public var asksForStapledOCSPResponse: Bool { requestsOCSPStapling || revocation.isEnabled }
    /// The Certificate Transparency policy default handling holds the server's chain to (default
    /// none), and that the challenge's `Trust` carries: the SCTs embedded in the leaf, those in
    /// a stapled OCSP response and those of the TLS `signed_certificate_timestamp` extension are
    /// judged (docs/transparency.md). With a policy set the client asks for the extension, on
    /// backends that can (``TLSBackend/supportsSignedCertificateTimestamps``).
    public var certificateTransparency: CertificateTransparencyPolicy?

    /// Whether the client asks the server for its SCT list in the handshake: when it has a
    /// Certificate Transparency policy.
    public var asksForSignedCertificateTimestamps: Bool { certificateTransparency != nil }

    /// - Parameter serverName: the name to send and check; nil uses the host connected to.
    public init(serverName: String? = nil) {
        self.serverName = serverName
    }
}

/// Whether a server asks its clients for certificates.
public enum TLSClientAuthentication: String, Sendable, Hashable {
    /// Asks for none.
    case none
    /// Asks; a client that sends none is accepted, one that sends an untrusted chain is refused.
    case optional
    /// Asks, and refuses a client that sends none or an untrusted one.
    case required
}

/// How a server presents itself and, optionally, which client certificates it trusts.
///
/// Client chains are decided by the same machinery as server chains: a `Trust` with the SSL
/// client policy and ``clientAnchors``, evaluated by the core's engine, and the
/// ``challengeHandler`` if one is set.
public struct TLSServerConfiguration: Sendable {
    /// The server's certificate chain and private key, imported by the same backend.
    public var identity: ClientIdentity
    /// Whether to ask for client certificates.
    public var clientAuthentication: TLSClientAuthentication = .none
    /// The anchors client certificates must validate to.
    public var clientAnchors: TrustAnchors = .only([])
    /// Answers the client-trust challenge; nil means default handling (validation to ``clientAnchors``).
    public var challengeHandler: (any TLSChallengeHandler)?
    /// The lowest version accepted.
    public var minimumVersion: TLSVersion = .tls12
    /// The highest version accepted.
    public var maximumVersion: TLSVersion = .tls13
    /// ALPN protocols accepted, most preferred first; empty ignores ALPN.
    public var applicationProtocols: [String] = []
    /// The time limits.
    public var timeouts: TLSTimeouts = .default
    /// A DER OCSPResponse (RFC 6960) to staple when a client asks (status_request), in the
    /// CertificateStatus message under TLS 1.2 and in the leaf's certificate entry under TLS 1.3;
    /// nil staples nothing. The server sends it as given — it neither parses, checks nor refreshes
    /// it — so that tests can serve exactly the bytes they mean to, stale or malformed ones
    /// included. Needs a backend whose ``TLSBackend/supportsOCSPStapling`` is true; on another,
    /// the server session fails with `.unsupported` rather than silently staple nothing.
    public var stapledOCSPResponse: [UInt8]?

    /// - Parameter identity: the certificate chain and key to present.
    public init(identity: ClientIdentity) {
        self.identity = identity
    }
}
