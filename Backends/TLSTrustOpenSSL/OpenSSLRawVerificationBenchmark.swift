internal import COpenSSL
@_spi(Benchmarking) import TLSTrust

/// OpenSSL doing one chain's verification by itself, for benchmarks: `d2i_X509` of each presented
/// certificate, then `X509_verify_cert` against an `X509_STORE` prepared once, with the host, the
/// serverAuth purpose and security level 2 (what the native verifier sets), and no callback.
/// The signature floor is two `EVP_DigestVerify` calls with `EVP_PKEY`s decoded before measurement.
///
/// > Warning: a measurement aid (see ``RawVerificationBenchmark``), not a verifier to rely on.
final class OpenSSLRawVerificationBenchmark: RawVerificationBenchmark, @unchecked Sendable {  // immutable after init; X509_STORE and EVP_PKEY are only read
    private let presented: [[UInt8]]
    private let hostname: String
    private let anchors: OpenSSLAnchorStore
    /// (signed certificate, key of its issuer) for each edge of the chain.
    private let edges: [(certificate: Certificate, scheme: SignatureScheme, key: OpenSSLVerificationKey)]

    init(leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String) throws {
        presented = ([leaf] + intermediates).map(\.derEncoded)
        self.hostname = hostname
        anchors = try OpenSSLAnchorStore([anchor])
        let path = [leaf] + intermediates + [anchor]
        edges = try zip(path, path.dropFirst()).map { child, issuer in
            guard let scheme = child.signatureScheme else {
                throw TLSTrustError(.unsupported, "no usable signature scheme on \(child.subject)")
            }
            return (child, scheme, try OpenSSLVerificationKey(issuer.publicKey))
        }
    }

    func verifyFromDER() -> Bool {
        let parsed = presented.compactMap { try? OpenSSLCertificate(derEncoded: $0) }
        guard parsed.count == presented.count, let untrusted = COpenSSL_sk_X509_new_null() else { return false }
        defer { COpenSSL_sk_X509_free(untrusted) }
        for x in parsed.dropFirst() { _ = COpenSSL_sk_X509_push(untrusted, x.ref) }
        guard let ctx = X509_STORE_CTX_new() else { return false }
        defer { X509_STORE_CTX_free(ctx) }
        guard X509_STORE_CTX_init(ctx, anchors.store, parsed[0].ref, untrusted) == 1,
              let param = X509_STORE_CTX_get0_param(ctx) else { return false }
        X509_VERIFY_PARAM_set_auth_level(param, OpenSSLNativeVerifier.authenticationLevel)
        X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER)
        X509_VERIFY_PARAM_set_hostflags(param, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
        guard X509_VERIFY_PARAM_set1_host(param, hostname, hostname.utf8.count) == 1 else { return false }
        let ok = withExtendedLifetime(parsed) { X509_verify_cert(ctx) } == 1
        _ = OpenSSLLibrary.drainErrors()
        return ok
    }

    func verifySignatures() -> Bool {
        edges.allSatisfy { edge in
            (try? edge.key.isValidSignature(edge.certificate.signatureValue, for: edge.certificate.tbsCertificateBytes,
                                            scheme: edge.scheme)) == true
        }
    }
}

@_spi(Benchmarking)
extension OpenSSLTrustBackend: RawVerificationBenchmarking {
    /// OpenSSL's bare verification of one chain, for benchmarks (``RawVerificationBenchmark``).
    public func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark {
        try OpenSSLRawVerificationBenchmark(leaf: leaf, intermediates: intermediates, anchor: anchor, hostname: hostname)
    }
}
