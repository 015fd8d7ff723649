internal import COpenSSL
import TLSTrust

extension OpenSSLNativeVerifier {
    /// Tells OpenSSL's verifier the request's e-mail identity and certificate-policy inputs, or
    /// returns the refusal when it cannot be told them.
    ///
    /// - E-mail: `X509_VERIFY_PARAM_set1_email` (rfc822Name SANs; local part exact, domain
    ///   case-insensitive, as the engine), with `X509_CHECK_FLAG_NEVER_CHECK_SUBJECT` so that the
    ///   subject's emailAddress is not consulted. It holds one address: a request for several is
    ///   `unsupported`.
    /// - Policies (non-default inputs only): `X509_V_FLAG_POLICY_CHECK`, `X509_V_FLAG_EXPLICIT_POLICY`,
    ///   `X509_V_FLAG_INHIBIT_MAP`, `X509_V_FLAG_INHIBIT_ANY`, and the initial set through
    ///   `X509_VERIFY_PARAM_add0_policy` (none added when it holds anyPolicy: OpenSSL's empty set
    ///   means any). With the default inputs OpenSSL, as it is, does no policy processing at all
    ///   (`docs/backends.md`).
    /// Key usages cannot be told to `X509_verify_cert`: the backend does not declare `.keyUsage`.
    func applyIdentityAndPolicies(
        _ request: TrustEvaluationRequest, to param: OpaquePointer,
        fail: (TrustFailureCode, String, Int?) -> TrustEvaluation
    ) -> TrustEvaluation? {
        if request.emailAddresses.count > 1 {
            return fail(.unsupported, "OpenSSL's verifier checks one e-mail address, not \(request.emailAddresses.count) (unsupported)", nil)
        }
        if let address = request.emailAddresses.first {
            X509_VERIFY_PARAM_set_hostflags(param, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
            guard X509_VERIFY_PARAM_set1_email(param, address, address.utf8.count) == 1 else {
                return fail(.invalidPolicy, "OpenSSL refuses the e-mail address '\(address)'", nil)
            }
        }
        let policy = request.certificatePolicyInputs
        guard !policy.isDefault else { return nil }
        var flags = X509_V_FLAG_POLICY_CHECK
        if policy.requiresExplicitPolicy { flags |= X509_V_FLAG_EXPLICIT_POLICY }
        if policy.inhibitsPolicyMapping { flags |= X509_V_FLAG_INHIBIT_MAP }
        if policy.inhibitsAnyPolicy { flags |= X509_V_FLAG_INHIBIT_ANY }
        X509_VERIFY_PARAM_set_flags(param, UInt(flags))
        if !policy.acceptsAnyPolicy {
            for oid in policy.initialPolicySet.sorted() {
                guard let object = OBJ_txt2obj(oid, 1) else {
                    return fail(.invalidPolicy, "OpenSSL refuses the policy OID \(oid)", nil)
                }
                guard X509_VERIFY_PARAM_add0_policy(param, object) == 1 else {
                    ASN1_OBJECT_free(object)
                    return fail(.internalError, "OpenSSL: X509_VERIFY_PARAM_add0_policy failed", nil)
                }
            }
        }
        return nil
    }
}
