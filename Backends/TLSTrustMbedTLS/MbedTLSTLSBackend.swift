import TLSTrust

/// Live TLS over mbedTLS 2.28: `MbedTLSConnection` under the core's `TLSStateMachine`.
///
/// Debian's mbedTLS 2.28 is built without TLS 1.3 (`MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL` is off,
/// and 2.28's TLS 1.3 was a prototype anyway): sessions negotiate TLS 1.2 only, and a
/// configuration whose range holds only TLS 1.3 fails with `.unsupported`.
extension MbedTLSTrustBackend: TLSLibraryBackend {
    /// TLS 1.2 only.
    public var supportedTLSVersions: Set<TLSVersion> { [.tls12] }

    /// True: mbedTLS checks the CertificateRequest and ignores its CA names, but the message is
    /// still in its input buffer when the client certificate is chosen, and the session reads the
    /// names from there.
    public var reportsAcceptableCANames: Bool { true }

    /// False: mbedTLS 2.28 implements no status_request extension, on either side (no API to send
    /// it, none to read a CertificateStatus message — it would reject one as unexpected — and none
    /// to staple). A client that asks explicitly (`TLSClientConfiguration/requestsOCSPStapling`)
    /// is refused at session creation; one with only revocation on connects without asking, and
    /// the engine decides without a stapled answer.
    public var supportsOCSPStapling: Bool { false }

    /// False: mbedTLS 2.28 has no way to send or read `signed_certificate_timestamp`. A client
    /// with a Certificate Transparency policy connects without asking, and the policy is judged
    /// on the SCTs embedded in the certificate (docs/transparency.md).
    public var supportsSignedCertificateTimestamps: Bool { false }

    public var privateKeyType: any PrivateKeyHandle.Type { MbedTLSPrivateKey.self }

    public func makeConnection(_ link: TLSSessionLink) throws -> any TLSConnectionRole {
        try MbedTLSConnection(link: link)
    }
}
