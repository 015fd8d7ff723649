import Foundation

/// RFC 5280 §6 validation of one complete candidate path, leaf first and anchor last, whose
/// signatures the ``PathBuilder`` has already verified.
///
/// Collects every failure rather than stopping at the first, so that an evaluation reports all
/// that is wrong with the path (as `SecTrust` does); the engine trusts the path only if none is found.
struct PathValidator {
    let request: TrustEvaluationRequest

    func failures(of path: [Certificate], meter: inout BudgetMeter) throws -> [TrustFailure] {
        try validate(path, meter: &meter).failures
    }

    /// Every failure of `path` and, when certificate-policy processing passed, the policy sets
    /// the path is valid for (``PolicyGraph``).
    func validate(_ path: [Certificate], meter: inout BudgetMeter) throws -> (failures: [TrustFailure], policies: ValidatedCertificatePolicies?) {
        var out: [TrustFailure] = []
        func fail(_ code: TrustFailureCode, _ index: Int?, _ message: String) {
            out.append(TrustFailure(code, certificateIndex: index, detail: message))
        }
        let last = path.count - 1
        let date = request.verificationDate

        for (i, c) in path.enumerated() {
            let role: StructuralRules.Role = last == 0 ? .leafAnchor : i == 0 ? .leaf : i == last ? .anchor : .intermediate

            // Validity, inclusive at both ends (RFC 5280 §4.1.2.5), anchors included.
            if date < c.notValidBefore { fail(.notYetValid, i, "not valid before \(c.notValidBefore)") }
            if date > c.notValidAfter { fail(.expired, i, "expired at \(c.notValidAfter)") }

            for ext in c.extensions where ext.critical && !ExtensionOID.processed.contains(ext.oid) {
                fail(.unhandledCriticalExtension, i, "unhandled critical extension \(ext.oid)")
            }
            if let problem = AcceptedSignatureAlgorithm.problem(with: c.publicKey) { fail(.weakAlgorithm, i, problem) }
            if i < last && c.signatureScheme == nil {
                fail(.weakAlgorithm, i, "signature algorithm \(c.signatureAlgorithm) is not accepted")
            }
            for v in StructuralRules.violations(c, role: role, profile: request.profile) { fail(v.code, i, v.message) }

            if role.isCA {
                // A v1 certificate (no extensions) is a CA only as an anchor (RFC 5280 §6.1.1 (d):
                // an anchor is a name and a key; OpenSSL and Go accept v1 roots the same way).
                let isV1Anchor = role == .anchor && c.version < 3
                if !(c.basicConstraints?.isCertificateAuthority ?? false) && !isV1Anchor {
                    fail(.notCertificateAuthority, i, "issuer is not a CA (no basicConstraints cA:TRUE)")
                }
                if let ku = c.keyUsage, !ku.contains(.keyCertSign) {
                    fail(.invalidKeyUsage, i, "issuer's keyUsage lacks keyCertSign")
                }
                if let limit = c.basicConstraints?.pathLengthConstraint {
                    // Non-self-issued intermediates below this CA (RFC 5280 §6.1.4 (l), (m)).
                    let below = path[1..<i].filter { !$0.isSelfIssued }.count
                    if below > limit {
                        fail(.pathLengthExceeded, i, "pathLenConstraint \(limit) exceeded by \(below) intermediate(s) below")
                    }
                }
                // Apple's trustd checks the leaf's EKU only (its intermediates only under a system
                // anchor: AppleServerRules).
                if request.profile != .apple, let ekus = c.extendedKeyUsage, let oid = request.purpose.oid,
                   !ekus.contains(oid), !ekus.contains(ExtendedKeyUsageOID.anyExtendedKeyUsage) {
                    fail(.purposeNotAllowed, i, "issuer's extendedKeyUsage does not allow \(request.purpose)")
                }
                if c.hasNameConstraints {
                    try checkNameConstraints(of: i, in: path, meter: &meter, fail: fail)
                }
            }
        }

        // The leaf's purpose: an absent extension allows every purpose (the CLI contract);
        // anyExtendedKeyUsage does under RFC 5280 (and Apple), not in the web PKI (CA/B Forum BR §7.1.2.7.10).
        if let ekus = path[0].extendedKeyUsage, let oid = request.purpose.oid, !ekus.contains(oid) {
            let anyAllowed = request.profile != .webPKI && ekus.contains(ExtendedKeyUsageOID.anyExtendedKeyUsage)
            if !anyAllowed { fail(.purposeNotAllowed, 0, "extendedKeyUsage does not allow \(request.purpose)") }
        }

        if let problem = KeyUsageForPurpose.problem(path[0], purpose: request.purpose, profile: request.profile) {
            fail(.invalidKeyUsage, 0, problem)
        }

        if request.profile == .apple && request.purpose == .serverAuth {
            for f in AppleServerRules.failures(of: path, systemAnchored: isSystemAnchor(path[last])) { fail(f.code, f.index, f.message) }
        }

        if let max = request.maximumIntermediates {
            // Self-issued intermediates (key rollover) do not count, as for pathLenConstraint.
            let intermediates = path.dropFirst().dropLast().filter { !$0.isSelfIssued }.count
            if intermediates > max {
                fail(.chainTooLong, nil, "\(intermediates) intermediate(s), at most \(max) allowed")
            }
        }

        if let host = request.host,
           let mismatch = HostNameMatcher.mismatch(path[0], host, allowingCommonName: request.allowsCommonNameFallback) {
            fail(host.isIPAddress ? .ipAddressMismatch : .hostnameMismatch, 0, "\(host): \(mismatch)")
        }
        out += LeafRequirements.failures(of: path[0], for: request)
        let policy = try PolicyGraph.process(path, inputs: request.certificatePolicyInputs, meter: &meter)
        if let failure = policy.failure { fail(.certificatePolicyViolated, failure.index, failure.message) }
        return (out, policy.policies)
    }

    /// Whether `anchor` comes from the system store (``TrustEvaluationRequest/isSystemAnchor(_:)``).
    private func isSystemAnchor(_ anchor: Certificate) -> Bool { request.isSystemAnchor(anchor) }

    /// Applies the constraints of the CA at `caIndex` to every certificate below it: the leaf, and
    /// intermediates that are not self-issued (RFC 5280 §6.1.3 (b), (c)).
    private func checkNameConstraints(
        of caIndex: Int, in path: [Certificate], meter: inout BudgetMeter,
        fail: (TrustFailureCode, Int?, String) -> Void
    ) throws {
        let ca = path[caIndex]
        guard let nc = ca.nameConstraints else {
            fail(.nameConstraintsViolated, caIndex, "unusable nameConstraints: \(ca.fields.nameConstraintsProblem ?? "unreadable")")
            return
        }
        if let problem = NameConstraintChecker.problem(with: nc) {
            fail(.nameConstraintsViolated, caIndex, problem)
            return
        }
        let checker = NameConstraintChecker(constraints: nc)
        for j in 0..<caIndex where j == 0 || !path[j].isSelfIssued {
            let names = NameConstraintChecker.names(of: path[j], isLeaf: j == 0)
            if let violation = try checker.violation(in: names, meter: &meter) {
                fail(.nameConstraintsViolated, j, "\(violation) (constraints of '\(ca.subject)')")
            }
        }
    }
}
