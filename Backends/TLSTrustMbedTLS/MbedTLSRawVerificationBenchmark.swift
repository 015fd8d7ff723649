internal import CMbedTLS
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore

/// mbedTLS doing one chain's verification by itself, for benchmarks: `mbedtls_x509_crt_parse_der`
/// of each presented certificate into one list, then `mbedtls_x509_crt_verify_with_profile` (the
/// default profile) against the CA list the core prepared once, with the host as `cn`, and no
/// callback; then the serverAuth check on the leaf, as mbedTLS's TLS layer makes it. The rest (the
/// list made once, the signature floor with EC tables warmed at import) is the core's
/// (`RawVerificationBenchmarking`).
///
/// > Warning: a measurement aid (see `RawVerificationBenchmark`), not a verifier to rely on.
@_spi(Benchmarking)
extension MbedTLSTrustBackend: RawVerificationBenchmarking {
    public func rawVerify(presented: [[UInt8]], hostname: String, anchorStore: MbedTLSAnchorStore) -> Bool {
        guard !presented.isEmpty else { return false }
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
                mbedtls_x509_crt_verify_with_profile(chain, anchorStore.trustList, nil, profile, cn, &flags, nil, nil)
            }
        }
        return status == 0 && CMbedTLS_check_extended_key_usage(chain, 1) == 0
    }
}
