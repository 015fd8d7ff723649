/// A delegated OCSP responder's certificate is a certificate the CA issued like any other
/// (RFC 6960 §4.2.2.2): everything the path above it imposes — the CA's and its issuers' name
/// constraints, validity, structure, critical extensions, key and algorithm policy, certificate
/// policies — binds it too. OpenSSL's `OCSP_basic_verify` validates the responder's chain the same
/// way. Without this a CA constrained to `example.com` could delegate answers to a responder named
/// outside its subtree, and the engine would believe it.
///
/// The responder's path is the fixed path `[responder] + above` (the certificate's issuer first,
/// the anchor last), which the ``PathBuilder`` has already verified down to the issuer, validated by
/// the engine's own ``PathValidator`` under the `rfc5280` profile (§6.1; the web PKI's rules are for
/// TLS leaves) with no purpose: the responder's id-kp-OCSPSigning and keyUsage are the
/// ``OCSPJudge``'s to check, and its own revocation status RFC 6960's (id-pkix-ocsp-nocheck or the
/// issuer's CRLs).
struct DelegatedResponderPath {
    /// The issuer of the certificate whose status is asked, then the CAs above it; the anchor last.
    let above: [Certificate]
    /// The evaluation's request, for its verification date.
    let request: TrustEvaluationRequest

    /// Why `responder` is not valid on the path above it, or nil when it is.
    func problem(_ responder: Certificate, meter: inout BudgetMeter) throws -> String? {
        guard let anchor = above.last else { return "no path above the certificate" }
        let responderRequest = TrustEvaluationRequest(
            leaf: responder, intermediates: Array(above.dropLast()), anchors: .only([anchor]), purpose: .any,
            verificationDate: request.verificationDate, hasExplicitVerificationDate: request.hasExplicitVerificationDate,
            profile: .rfc5280, usesVerifiedChainCache: false)
        let failures = try PathValidator(request: responderRequest).failures(of: [responder] + above, meter: &meter)
        return failures.isEmpty ? nil : failures.map(\.description).joined(separator: "; ")
    }
}
