internal import CGnuTLS
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore

/// GnuTLS doing one chain's verification by itself, for benchmarks: `gnutls_x509_crt_import` of
/// each presented certificate, then `gnutls_x509_trust_list_verify_crt2` against the trust list the
/// core prepared once, with the host and the serverAuth purpose as typed data and the native
/// verifier's flags, and no callback. The rest (the list made once, the signature floor) is the
/// core's (`RawVerificationBenchmarking`).
///
/// > Warning: a measurement aid (see `RawVerificationBenchmark`), not a verifier to rely on.
@_spi(Benchmarking)
extension GnuTLSTrustBackend: RawVerificationBenchmarking {
    private static let serverAuth: [UInt8] = Array("1.3.6.1.5.5.7.3.1".utf8) + [0]

    public func rawVerify(presented: [[UInt8]], hostname: String, anchorStore: GnuTLSAnchorStore) -> Bool {
        let parsed = presented.compactMap { try? GnuTLSCertificate(derEncoded: $0) }
        guard !parsed.isEmpty, parsed.count == presented.count else { return false }
        var chain: [gnutls_x509_crt_t?] = parsed.map(\.ref)
        var status: UInt32 = 0
        var purpose = Self.serverAuth
        // A native Swift string lends its NUL-terminated UTF-8 without copying; GnuTLS only reads it.
        let result = hostname.withCString { h in
            purpose.withUnsafeMutableBufferPointer { p in
                var data = [
                    gnutls_typed_vdata_st(type: GNUTLS_DT_DNS_HOSTNAME,
                                          data: UnsafeMutableRawPointer(mutating: h).assumingMemoryBound(to: UInt8.self), size: 0),
                    gnutls_typed_vdata_st(type: GNUTLS_DT_KEY_PURPOSE_OID, data: p.baseAddress, size: 0),
                ]
                return withExtendedLifetime(parsed) {
                    gnutls_x509_trust_list_verify_crt2(
                        anchorStore.list, &chain, UInt32(chain.count), &data, UInt32(data.count),
                        GnuTLSNativeVerifier.flags, &status, nil)
                }
            }
        }
        return result >= 0 && status == 0
    }
}
