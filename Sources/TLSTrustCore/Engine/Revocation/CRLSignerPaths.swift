/// RFC 5280 §6.3.3 (f): a CRL signed by another key than the certificate issuer's — a separate
/// CRL-signing certificate of the issuer's name, the key after a self-issued key rollover, or the
/// cRLIssuer of an indirect CRL — is believed only when its signer's certificate asserts cRLSign
/// (when it has a keyUsage) and has a path that the engine's own ``PathBuilder`` and
/// ``PathValidator`` accept under the `rfc5280` profile (§6.1, which §6.3.3 (f) names; the web
/// PKI's rules are for TLS leaves, and a CRL signer may be a CA's own re-keyed certificate),
/// ending at the same anchor as the path being checked.
///
/// Candidates are the certificates the evaluation was given (its intermediates, leaf and that
/// anchor) whose subject is the CRL's issuer. Every step and signature is paid from the
/// evaluation's budget. The signer's own path is checked for revocation with the same CRLs in
/// soft mode and one level deep only: a revoked signer is refused; a signer whose own CRL needs a
/// separate signer again is not followed (its status is then unknown, which soft mode tolerates),
/// so a chain of signers cannot recurse.
struct CRLSignerPaths<Backend: TrustBackend> {
    let request: TrustEvaluationRequest
    let backend: Backend
    /// The anchor of the path being checked.
    let anchor: Certificate
    /// The most candidate signers tried for one CRL.
    static var maximumCandidates: Int { 8 }

    /// Why no certificate is believed to have signed `crl`, or nil when one is.
    func problem(signing crl: CertificateRevocationList, meter: inout BudgetMeter) throws -> String? {
        var seen = Set<Certificate>()
        let candidates = ([request.leaf] + request.intermediates + [anchor]).filter {
            $0.subject.normalized == crl.issuer.normalized && seen.insert($0).inserted
        }
        guard !candidates.isEmpty else {
            return "its signature is not the issuer's, and no certificate of '\(crl.issuer)' is at hand to have signed it"
        }
        var problems: [String] = []
        for candidate in candidates.prefix(Self.maximumCandidates) {
            if let ku = candidate.keyUsage, !ku.contains(.cRLSign) {
                problems.append("'\(candidate.subject)' (serial \(candidate.serialNumber.hexString())) has a keyUsage without cRLSign")
                continue
            }
            if let problem = try RevocationSignature.check(signed: crl.signedBytes, signature: crl.signatureValue, scheme: crl.signatureScheme,
                                                           signer: candidate, memo: crl.verifiedSigners, backend: backend, meter: &meter) {
                problems.append(problem)
                continue
            }
            if let problem = try pathProblem(for: candidate, meter: &meter) {
                problems.append("its signer '\(candidate.subject)' has no valid path to the same anchor: \(problem)")
                continue
            }
            return nil
        }
        return problems.joined(separator: "; ")
    }

    /// Builds and validates the signer's path with the engine itself; nil when it validates.
    private func pathProblem(for signer: Certificate, meter: inout BudgetMeter) throws -> String? {
        var nested = RevocationInputs(policy: RevocationPolicy(mode: .soft, methods: .crl), crls: request.revocation.crls)
        nested.buildsCRLSignerPaths = false
        let subRequest = TrustEvaluationRequest(
            leaf: signer, intermediates: request.intermediates, anchors: .only([anchor]), purpose: .any,
            verificationDate: request.verificationDate, hasExplicitVerificationDate: request.hasExplicitVerificationDate,
            profile: .rfc5280, usesVerifiedChainCache: false, revocation: nested)
        let outcome = PathBuilder(request: subRequest, backend: backend, budget: .standard).build(meter: &meter)
        if let exhausted = outcome.exhausted { throw exhausted }
        if outcome.trusted != nil { return nil }
        if let (_, failures) = outcome.firstRejected { return failures.map(\.description).joined(separator: "; ") }
        if let unsupported = outcome.unsupported { return unsupported }
        return "no path to the anchor '\(anchor.subject)'"
    }
}
