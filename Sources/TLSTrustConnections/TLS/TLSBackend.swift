import TLSTrustCore
import TLSTrustDecisions
/// A backend that can run TLS connections with its library.
///
/// The backend supplies only the protocol: record layer, handshake, its library's key exchange and
/// signatures. Every trust decision goes through the ``TLSHandshakeContext`` it is given, whose
/// verdict it must enforce inside the handshake (a fatal alert, no further flight). Adopt
/// ``TLSLibraryBackend`` to get both sessions from the core's ``TLSStateMachine``, which carries
/// those rules (and every other one of the handshake) once, and supply only a
/// ``TLSConnectionRole``; the in-tree backends do.
public protocol TLSBackend: TLSBackendRole {
    /// The TLS versions the linked library can negotiate.
    var supportedTLSVersions: Set<TLSVersion> { get }

    /// Whether the library reports the server's acceptable CA names to a client before it chooses
    /// its certificate (``TLSProtectionSpace/distinguishedNames``).
    var reportsAcceptableCANames: Bool { get }

    /// Whether the library does OCSP stapling (RFC 6066 status_request): as a client, asking the
    /// server for a stapled response and handing the one it staples to
    /// ``TLSHandshakeContext/verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``
    /// before the trust decision; as a server, stapling ``TLSServerConfiguration/stapledOCSPResponse``.
    ///
    /// No default: each backend states what its library can do. Where it is false, a client whose
    /// configuration sets ``TLSClientConfiguration/requestsOCSPStapling`` and a server given a
    /// response to staple fail at session creation with `.unsupported`; a client with only
    /// ``TLSClientConfiguration/revocation`` on proceeds, and the engine judges without a
    /// stapled answer (soft-fail tolerates that; hard-fail needs another answer).
    var supportsOCSPStapling: Bool { get }

    /// Whether a client asks the server for its SCT list (the `signed_certificate_timestamp`
    /// extension, type 18, RFC 6962 §3.3) and hands the list it receives to
    /// ``TLSHandshakeContext/verifyPeer(presentedChain:protocolVersion:stapledOCSPResponses:signedCertificateTimestampList:)``.
    /// A client asks only when its configuration has a
    /// ``TLSClientConfiguration/certificateTransparency`` policy. Where it is false (mbedTLS
    /// 2.28), such a client connects without asking and the policy is judged on the SCTs embedded
    /// in the certificate and those of a stapled OCSP response (docs/transparency.md).
    var supportsSignedCertificateTimestamps: Bool { get }

    /// Whether a client whose versions reach `maximum` asks for the SCT list and can receive it:
    /// ``supportsSignedCertificateTimestamps`` unless the library receives it under some versions
    /// only (GnuTLS 3.7: TLS 1.2; offering it to a TLS 1.3 server that answers breaks its handshake).
    func asksForSignedCertificateTimestamps(upTo maximum: TLSVersion) -> Bool

    /// Makes the client side of a connection over `transport`. The handshake starts with
    /// ``TLSSession/handshake()``.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` (e.g. an identity another backend imported)
    ///   or `.unsupported`.
    func makeClientSession(configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                           transport: any TLSTransport) throws -> any TLSSession

    /// Makes the server side of a connection over `transport`.
    func makeServerSession(configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                           transport: any TLSTransport) throws -> any TLSSession
}

/// One TLS connection inside a backend: blocking calls, from one thread at a time.
///
/// ``TLSConnection`` wraps it for apps; a backend implements it over its library. Every call
/// honours the context's ``TLSHandshakeContext/deadline`` through the transport.
public protocol TLSSession: AnyObject {
    /// Runs the handshake to completion.
    ///
    /// - Throws: `TLSError`; when the context recorded a ``TLSHandshakeContext/failure`` the
    ///   connection reports that instead.
    func handshake() throws

    /// Reads application data into `buffer`.
    ///
    /// - Returns: the number of bytes read; 0 when the peer closed the connection (close_notify or
    ///   end of stream).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Writes all of `bytes` as application data.
    func write(_ bytes: UnsafeRawBufferPointer) throws

    /// Sends close_notify (best effort) and releases the library's state; the transport is closed
    /// by the caller.
    func shutdown()

    /// The version negotiated, after the handshake.
    var negotiatedVersion: TLSVersion? { get }
    /// The cipher suite negotiated, in the library's naming.
    var cipherSuite: String? { get }
    /// The ALPN protocol agreed, if any.
    var negotiatedApplicationProtocol: String? { get }
    /// Whether the handshake resumed an earlier session. TLSTrust clients offer no resumption, so
    /// that no connection skips the trust decision; a backend reports what actually happened.
    var isResumed: Bool { get }
}

extension TLSBackend {
    /// False unless the backend says otherwise: a backend that never asks for the extension
    /// judges without TLS-delivered SCTs, which is what its users see documented.
    public var supportsSignedCertificateTimestamps: Bool { false }

    public func asksForSignedCertificateTimestamps(upTo maximum: TLSVersion) -> Bool { supportsSignedCertificateTimestamps }

    /// Checks the version range against what the library supports.
    public func checkVersions(minimum: TLSVersion, maximum: TLSVersion) throws -> (TLSVersion, TLSVersion) {
        guard minimum <= maximum else {
            throw TLSError(.invalidConfiguration, "minimum TLS version \(minimum) is above the maximum \(maximum)")
        }
        let usable = TLSVersion.allCases.filter { $0 >= minimum && $0 <= maximum && supportedTLSVersions.contains($0) }
        guard let low = usable.first, let high = usable.last else {
            throw TLSError(.unsupported, "\(libraryVersion) cannot negotiate \(minimum)…\(maximum) (it supports \(supportedTLSVersions.sorted().map(\.rawValue).joined(separator: ", ")))")
        }
        return (low, high)
    }
}
