internal import COpenSSL
import TLSTrust

/// TLS 1.2 and 1.3 connections over OpenSSL 3's `SSL`, with every trust decision made by TLSTrust
/// (see ``OpenSSLTLSSession`` and the "TLS on OpenSSL" section of docs/backends.md).
extension OpenSSLTrustBackend: TLSBackend {
    /// TLS 1.2 and TLS 1.3.
    public var supportedTLSVersions: Set<TLSVersion> { [.tls12, .tls13] }

    /// OpenSSL reports the server's acceptable CA names (`SSL_get0_peer_CA_list`) before the
    /// client certificate is chosen, in TLS 1.2 and 1.3.
    public var reportsAcceptableCANames: Bool { true }

    /// True: a client asks with status_request and the leaf's stapled response reaches the trust
    /// decision under TLS 1.2 (CertificateStatus) and 1.3 (the leaf's certificate entry); a server
    /// staples ``TLSServerConfiguration/stapledOCSPResponse``. OpenSSL keeps only the leaf's
    /// response, so a client sees at most one.
    public var supportsOCSPStapling: Bool { true }

    public func makeClientSession(configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        let versions = try checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        return try OpenSSLTLSSession(client: configuration, host: context.host, versions: versions,
                                     context: context, transport: transport)
    }

    public func makeServerSession(configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        let versions = try checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        return try OpenSSLTLSSession(server: configuration, versions: versions, context: context, transport: transport)
    }
}
