internal import CGnuTLS
import TLSTrust

/// Live TLS on GnuTLS 3.7: client and server sessions over any `TLSTransport`, TLS 1.2 and 1.3.
///
/// ```swift
/// var configuration = TLSClientConfiguration()
/// configuration.anchors = .only([appCA])
/// let connection = try await TLSConnection.connect(host: "api.example.com", port: 443,
///                                                  configuration: configuration, backend: GnuTLSTrustBackend())
/// ```
///
/// The peer's chain is judged by the core through the handshake context (`GnuTLSConnection` under the core's `TLSStateMachine`);
/// identities must come from this backend's `importPKCS12` or `importIdentity`.
extension GnuTLSTrustBackend: TLSLibraryBackend {
    /// GnuTLS 3.7 negotiates TLS 1.2 and TLS 1.3.
    public var supportedTLSVersions: Set<TLSVersion> { [.tls12, .tls13] }

    /// The client certificate callback (`gnutls_certificate_set_retrieve_function2`) receives the
    /// CertificateRequest's CA names, under TLS 1.2 and TLS 1.3.
    public var reportsAcceptableCANames: Bool { true }

    /// True: the server's stapled responses reach the trust decision under TLS 1.2 and 1.3 (the
    /// verify function runs after they arrive), and a server staples
    /// `TLSServerConfiguration/stapledOCSPResponse`.
    public var supportsOCSPStapling: Bool { true }

    /// True, under TLS 1.2: a client with a Certificate Transparency policy whose versions stop at
    /// TLS 1.2 asks for `signed_certificate_timestamp` (an extension registered on its session) and
    /// hands the server's list, as received, to the trust decision. Under TLS 1.3 the list rides in
    /// the leaf's certificate entry, which GnuTLS 3.7 refuses ("An illegal TLS extension was
    /// received"), so a client whose versions reach TLS 1.3 does not ask. A server sends none.
    public var supportsSignedCertificateTimestamps: Bool { true }

    /// Only when the client cannot negotiate TLS 1.3.
    public func asksForSignedCertificateTimestamps(upTo maximum: TLSVersion) -> Bool { maximum == .tls12 }

    public var privateKeyType: any PrivateKeyHandle.Type { GnuTLSPrivateKey.self }

    public func makeConnection(_ link: TLSSessionLink) throws -> any TLSConnectionRole {
        try GnuTLSConnection(link: link)
    }
}
