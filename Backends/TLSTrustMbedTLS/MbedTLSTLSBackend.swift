import TLSTrust

/// Live TLS over mbedTLS 2.28: ``MbedTLSTLSSession``.
///
/// Debian's mbedTLS 2.28 is built without TLS 1.3 (`MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL` is off,
/// and 2.28's TLS 1.3 was a prototype anyway): sessions negotiate TLS 1.2 only, and a
/// configuration whose range holds only TLS 1.3 fails with `.unsupported`.
extension MbedTLSTrustBackend: TLSBackend {
    /// TLS 1.2 only.
    public var supportedTLSVersions: Set<TLSVersion> { [.tls12] }

    /// True: mbedTLS checks the CertificateRequest and ignores its CA names, but the message is
    /// still in its input buffer when the client certificate is chosen, and the session reads the
    /// names from there.
    public var reportsAcceptableCANames: Bool { true }

    public func makeClientSession(configuration: TLSClientConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        _ = try checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        return try MbedTLSTLSSession.client(configuration: configuration, context: context, transport: transport)
    }

    public func makeServerSession(configuration: TLSServerConfiguration, context: TLSHandshakeContext,
                                  transport: any TLSTransport) throws -> any TLSSession {
        _ = try checkVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        return try MbedTLSTLSSession.server(configuration: configuration, context: context, transport: transport)
    }
}
