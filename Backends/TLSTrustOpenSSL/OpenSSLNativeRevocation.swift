internal import COpenSSL
import TLSTrust

/// Revocation for OpenSSL's native verifier: the request's CRLs, as OpenSSL's own
/// `X509_V_FLAG_CRL_CHECK` judges them. Only CRLs: `X509_verify_cert` takes no OCSP response and
/// fetches nothing, so the backend declares `NativeVerifierFeatures/crlRevocation` alone and the
/// core refuses any request with OCSP answers or network fetching before this runs.
///
/// How the request's policy is told to OpenSSL:
/// - scope `leafOnly`: `X509_V_FLAG_CRL_CHECK` (depth 0 only); `wholeChain`: plus
///   `X509_V_FLAG_CRL_CHECK_ALL`, which checks every certificate of the chain *including the
///   anchor*. The engine never checks the anchor (trust in it is the app's decision), so any CRL
///   error OpenSSL reports at the depth of the anchor it ended at is set aside (`isIgnored`):
///   without that, hard mode would demand a CRL for every root.
/// - mode `hard`: OpenSSL's own behaviour — a certificate with no CRL is
///   `X509_V_ERR_UNABLE_TO_GET_CRL`, and every error about a CRL it found but could not use
///   (expired, not yet valid, bad signature, issuer without cRLSign, …) is a failure.
/// - mode `soft`: the same, except that `X509_V_ERR_UNABLE_TO_GET_CRL` (no CRL from the
///   certificate's issuer at all, or none covering it) is tolerated. Only that code: a CRL that
///   OpenSSL found and then could not use is still reported, because OpenSSL picks the one CRL it
///   scores best and reports its problems rather than saying "no CRL" — where the engine, under
///   soft-fail, judges the certificate without the unusable CRL. That difference is listed in
///   docs/backends.md and the differential tests.
enum OpenSSLNativeRevocation {
    struct Refusal: Error {
        let code: TrustFailureCode
        let message: String
    }

    /// The `X509_VERIFY_PARAM` flags for `policy` (which is enabled).
    static func flags(for policy: RevocationPolicy) -> UInt {
        var flags = UInt(X509_V_FLAG_CRL_CHECK)
        if policy.scope == .wholeChain { flags |= UInt(X509_V_FLAG_CRL_CHECK_ALL) }
        return flags
    }

    /// The request's CRLs as an owned `STACK_OF(X509_CRL)` (the caller frees it with
    /// `COpenSSL_sk_X509_CRL_pop_free`), nil when revocation is off. An empty stack when the
    /// policy is on but no CRL was given: hard mode must then fail for want of a CRL.
    ///
    /// A CRL the core parsed but OpenSSL cannot is refused (`revocationStatusUnknown`) rather than
    /// left out: leaving it out would let OpenSSL trust a certificate that CRL may list.
    static func crlStack(for request: TrustEvaluationRequest) -> Result<OpaquePointer?, Refusal> {
        guard request.revocation.policy.isEnabled else { return .success(nil) }
        guard let stack = COpenSSL_sk_X509_CRL_new_null() else {
            return .failure(Refusal(code: .internalError, message: "OpenSSL: out of memory"))
        }
        for crl in request.revocation.crls {
            guard let parsed = parse(crl.derEncoded) else {
                COpenSSL_sk_X509_CRL_pop_free(stack)
                let reason = OpenSSLLibrary.drainErrors()
                return .failure(Refusal(code: .revocationStatusUnknown,
                                        message: "OpenSSL cannot parse the CRL of \(crl.issuer): \(reason.isEmpty ? "trailing or missing bytes" : reason)"))
            }
            // A delta CRL (deltaCRLIndicator) lists only the changes since its base CRL. Without
            // X509_V_FLAG_EXTENDED_CRL_SUPPORT, OpenSSL 3 scores it like a complete CRL (the check
            // for a base CRL number sits in the extended-support branch of `get_crl_score`) and
            // would read "not listed in the changes" as "not revoked" — trust where the base CRL
            // may say revoked. Deltas are off (no X509_V_FLAG_USE_DELTAS), so a delta is not
            // given at all: OpenSSL then has no CRL for that issuer, as the engine, which uses
            // complete CRLs only (the `crl.deltaOnlyHard` shape).
            if X509_CRL_get_ext_by_NID(parsed, NID_delta_crl, -1) >= 0 {
                X509_CRL_free(parsed)
                continue
            }
            guard COpenSSL_sk_X509_CRL_push(stack, parsed) > 0 else {
                X509_CRL_free(parsed)
                COpenSSL_sk_X509_CRL_pop_free(stack)
                return .failure(Refusal(code: .internalError, message: "OpenSSL: out of memory"))
            }
        }
        return .success(stack)
    }

    /// Exactly one DER CRL (`d2i_X509_CRL`, trailing bytes refused); the caller owns the result.
    private static func parse(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let crl = d2i_X509_CRL(nil, &cursor, buffer.count) else { return nil }
            guard let cursor, cursor - base == buffer.count else {
                X509_CRL_free(crl)
                return nil
            }
            return crl
        }
    }

    /// The depths at which OpenSSL found a CRL and reported it unusable (any CRL error but
    /// "revoked" and "no CRL").
    static func unusableCRLDepths(_ errors: [(error: Int32, depth: Int32)]) -> Set<Int> {
        Set(errors.filter {
            OpenSSLVerifyErrors.isRevocationError($0.error)
                && $0.error != X509_V_ERR_CERT_REVOKED && $0.error != X509_V_ERR_UNABLE_TO_GET_CRL
        }.map { Int($0.depth) })
    }

    /// Whether a recorded verify error is outside what the request asked, or an artefact of the
    /// recording callback:
    /// - any CRL error at the anchor's depth (the anchor is never checked);
    /// - in soft mode, "no CRL" (`X509_V_ERR_UNABLE_TO_GET_CRL`) at any depth;
    /// - `X509_V_ERR_CERT_REVOKED` at a depth whose CRL OpenSSL reported unusable (wrong
    ///   signature, different scope, expired, …). OpenSSL judges one CRL per certificate; on its
    ///   own it stops at the CRL's error, and only because the callback tells it to carry on does
    ///   it then read that same CRL's entries. A forged or out-of-scope CRL must not make a
    ///   certificate "revoked": the CRL's own error is what is reported (still a refusal).
    static func isIgnored(_ error: Int32, depth: Int, anchorDepth: Int?, unusableCRLDepths: Set<Int>,
                          mode: RevocationPolicy.Mode) -> Bool {
        guard OpenSSLVerifyErrors.isRevocationError(error) else { return false }
        if depth == anchorDepth { return true }
        if error == X509_V_ERR_CERT_REVOKED { return unusableCRLDepths.contains(depth) }
        return mode == .soft && error == X509_V_ERR_UNABLE_TO_GET_CRL
    }
}
