internal import CMbedTLS
@_spi(Benchmarking) import TLSTrust

/// mbedTLS doing one chain's verification by itself, for benchmarks: `mbedtls_x509_crt_parse_der`
/// of each presented certificate into one list, then `mbedtls_x509_crt_verify_with_profile` (the
/// default profile) against a CA list prepared once, with the host as `cn`, and no callback; then
/// the serverAuth check on the leaf, as mbedTLS's TLS layer makes it. The signature floor is two
/// `mbedtls_md` + `mbedtls_pk_verify` calls with keys parsed (and EC tables warmed) before measurement.
///
/// > Warning: a measurement aid (see ``RawVerificationBenchmark``), not a verifier to rely on.
final class MbedTLSRawVerificationBenchmark: RawVerificationBenchmark, @unchecked Sendable {  // immutable after init; mbedTLS only reads the CA list and keys
    private let presented: [[UInt8]]
    private let hostname: String
    private let anchors: MbedTLSAnchorStore
    private let edges: [(certificate: Certificate, scheme: SignatureScheme, key: MbedTLSVerificationKey)]

    init(leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String) throws {
        presented = ([leaf] + intermediates).map(\.derEncoded)
        self.hostname = hostname
        anchors = try MbedTLSAnchorStore([anchor])
        let path = [leaf] + intermediates + [anchor]
        edges = try zip(path, path.dropFirst()).map { child, issuer in
            guard let scheme = child.signatureScheme else {
                throw TLSTrustError(.unsupported, "no usable signature scheme on \(child.subject)")
            }
            return (child, scheme, try MbedTLSVerificationKey(issuer.publicKey))
        }
    }

    func verifyFromDER() -> Bool {
        let chain = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(chain)
        defer {
            mbedtls_x509_crt_free(chain)
            chain.deallocate()
        }
        for der in presented where MbedTLSParsing.strict.parse(der, appendingTo: chain) != 0 { return false }
        var flags: UInt32 = 0
        let status = withUnsafePointer(to: mbedtls_x509_crt_profile_default) { profile in
            hostname.withCString { cn in
                mbedtls_x509_crt_verify_with_profile(chain, anchors.trustList, nil, profile, cn, &flags, nil, nil)
            }
        }
        return status == 0 && CMbedTLS_check_extended_key_usage(chain, 1) == 0
    }

    func verifySignatures() -> Bool {
        edges.allSatisfy { edge in
            (try? edge.key.isValidSignature(edge.certificate.signatureValue, for: edge.certificate.tbsCertificateBytes,
                                            scheme: edge.scheme)) == true
        }
    }
}

@_spi(Benchmarking)
extension MbedTLSTrustBackend: RawVerificationBenchmarking {
    /// mbedTLS's bare verification of one chain, for benchmarks (``RawVerificationBenchmark``).
    public func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark {
        try MbedTLSRawVerificationBenchmark(leaf: leaf, intermediates: intermediates, anchor: anchor, hostname: hostname)
    }
}
