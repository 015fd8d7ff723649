internal import CGnuTLS
@_spi(Benchmarking) import TLSTrust

/// GnuTLS doing one chain's verification by itself, for benchmarks: `gnutls_x509_crt_import` of
/// each presented certificate, then `gnutls_x509_trust_list_verify_crt2` against a trust list
/// prepared once, with the host and the serverAuth purpose as typed data and the native verifier's
/// flags, and no callback. The signature floor is two `gnutls_pubkey_verify_data2` calls with keys
/// imported before measurement.
///
/// > Warning: a measurement aid (see ``RawVerificationBenchmark``), not a verifier to rely on.
final class GnuTLSRawVerificationBenchmark: RawVerificationBenchmark, @unchecked Sendable {  // immutable after init; GnuTLS only reads the list and keys
    private let presented: [[UInt8]]
    private let hostname: [UInt8]
    private let anchors: GnuTLSAnchorStore
    private let edges: [(certificate: Certificate, scheme: SignatureScheme, key: GnuTLSVerificationKey)]

    init(leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String) throws {
        presented = ([leaf] + intermediates).map(\.derEncoded)
        self.hostname = Array(hostname.utf8) + [0]
        anchors = try GnuTLSAnchorStore([anchor])
        let path = [leaf] + intermediates + [anchor]
        edges = try zip(path, path.dropFirst()).map { child, issuer in
            guard let scheme = child.signatureScheme else {
                throw TLSTrustError(.unsupported, "no usable signature scheme on \(child.subject)")
            }
            return (child, scheme, try GnuTLSVerificationKey(issuer.publicKey))
        }
    }

    private static let serverAuth: [UInt8] = Array("1.3.6.1.5.5.7.3.1".utf8) + [0]

    func verifyFromDER() -> Bool {
        let parsed = presented.compactMap { try? GnuTLSCertificate(derEncoded: $0) }
        guard parsed.count == presented.count else { return false }
        var chain: [gnutls_x509_crt_t?] = parsed.map(\.ref)
        var status: UInt32 = 0
        var host = hostname
        var purpose = Self.serverAuth
        let result = host.withUnsafeMutableBufferPointer { h in
            purpose.withUnsafeMutableBufferPointer { p in
                var data = [
                    gnutls_typed_vdata_st(type: GNUTLS_DT_DNS_HOSTNAME, data: h.baseAddress, size: 0),
                    gnutls_typed_vdata_st(type: GNUTLS_DT_KEY_PURPOSE_OID, data: p.baseAddress, size: 0),
                ]
                return withExtendedLifetime(parsed) {
                    gnutls_x509_trust_list_verify_crt2(
                        anchors.list, &chain, UInt32(chain.count), &data, UInt32(data.count),
                        GnuTLSNativeVerifier.flags, &status, nil)
                }
            }
        }
        return result >= 0 && status == 0
    }

    func verifySignatures() -> Bool {
        edges.allSatisfy { edge in
            (try? edge.key.isValidSignature(edge.certificate.signatureValue, for: edge.certificate.tbsCertificateBytes,
                                            scheme: edge.scheme)) == true
        }
    }
}

@_spi(Benchmarking)
extension GnuTLSTrustBackend: RawVerificationBenchmarking {
    /// GnuTLS's bare verification of one chain, for benchmarks (``RawVerificationBenchmark``).
    public func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark {
        try GnuTLSRawVerificationBenchmark(leaf: leaf, intermediates: intermediates, anchor: anchor, hostname: hostname)
    }
}
