internal import COpenSSL
import TLSTrust
@_spi(Benchmarking) @_spi(Comparison) import TLSTrustCore

/// OpenSSL doing one chain's verification by itself, for benchmarks: `d2i_X509` of each presented
/// certificate, then `X509_verify_cert` against the `X509_STORE` the core prepared once, with the
/// host, the serverAuth purpose and security level 2 (what the native verifier sets), and no
/// callback. The rest (the store made once, the signature floor) is the core's
/// (`RawVerificationBenchmarking`).
///
/// > Warning: a measurement aid (see `RawVerificationBenchmark`), not a verifier to rely on.
@_spi(Benchmarking)
extension OpenSSLTrustBackend: RawVerificationBenchmarking {
    public func rawVerify(presented: [[UInt8]], hostname: String, anchorStore: OpenSSLAnchorStore) -> Bool {
        let parsed = presented.compactMap { try? OpenSSLCertificate(derEncoded: $0) }
        guard !parsed.isEmpty, parsed.count == presented.count, let untrusted = COpenSSL_sk_X509_new_null() else { return false }
        defer { COpenSSL_sk_X509_free(untrusted) }
        for x in parsed.dropFirst() { _ = COpenSSL_sk_X509_push(untrusted, x.ref) }
        guard let ctx = X509_STORE_CTX_new() else { return false }
        defer { X509_STORE_CTX_free(ctx) }
        guard X509_STORE_CTX_init(ctx, anchorStore.store, parsed[0].ref, untrusted) == 1,
              let param = X509_STORE_CTX_get0_param(ctx) else { return false }
        X509_VERIFY_PARAM_set_auth_level(param, OpenSSLNativeVerifier.authenticationLevel)
        X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER)
        X509_VERIFY_PARAM_set_hostflags(param, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
        guard X509_VERIFY_PARAM_set1_host(param, hostname, hostname.utf8.count) == 1 else { return false }
        let ok = withExtendedLifetime(parsed) { X509_verify_cert(ctx) } == 1
        _ = OpenSSLLibrary.drainErrors()
        return ok
    }
}
