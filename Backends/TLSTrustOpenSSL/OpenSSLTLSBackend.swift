internal import COpenSSL
import TLSTrust

/// TLS 1.2 and 1.3 connections over OpenSSL 3's `SSL`, with every trust decision made by TLSTrust
/// (`OpenSSLConnection` under the core's `TLSStateMachine`; see the "TLS on OpenSSL" section of docs/backends.md).
extension OpenSSLTrustBackend: TLSLibraryBackend {
    /// TLS 1.2 and TLS 1.3.
    public var supportedTLSVersions: Set<TLSVersion> { [.tls12, .tls13] }

    /// OpenSSL reports the server's acceptable CA names (`SSL_get0_peer_CA_list`) before the
    /// client certificate is chosen, in TLS 1.2 and 1.3.
    public var reportsAcceptableCANames: Bool { true }

    /// True: a client asks with status_request and the leaf's stapled response reaches the trust
    /// decision under TLS 1.2 (CertificateStatus) and 1.3 (the leaf's certificate entry); a server
    /// staples `TLSServerConfiguration/stapledOCSPResponse`. OpenSSL keeps only the leaf's
    /// response, so a client sees at most one.
    public var supportsOCSPStapling: Bool { true }

    /// True: a client with a Certificate Transparency policy asks for `signed_certificate_timestamp`
    /// (a custom extension, so that OpenSSL's own CT code decides nothing) and hands the server's
    /// list, as received, to the trust decision under TLS 1.2 and 1.3. A server sends none.
    public var supportsSignedCertificateTimestamps: Bool { true }

    public var privateKeyType: any PrivateKeyHandle.Type { OpenSSLPrivateKey.self }

    public func makeConnection(_ link: TLSSessionLink) throws -> any TLSConnectionRole {
        try OpenSSLConnection(link: link)
    }
}
