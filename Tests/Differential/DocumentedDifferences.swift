import TLSTrust
import TLSTrustTesting

extension DocumentedDifference {
    /// Every documented difference, each described in docs/validation.md under the same name.
    static let all: [DocumentedDifference] = openSSL + gnuTLS + both

    // MARK: Predicates' building blocks

    /// The CA certificates of the path (not the leaf), anchor included.
    static func authorities(_ c: DifferentialCase) -> ArraySlice<CertificateShape> { c.certificates.dropLast() }

    static func openSSLErrors(_ o: DifferentialOutcome, allAre text: String, deeperThanLeaf: Bool = false) -> Bool {
        !o.openSSL.errors.isEmpty && o.openSSL.errors.allSatisfy { error in
            error.hasSuffix(": " + text) && (!deeperThanLeaf || !error.hasPrefix("0: "))
        }
    }

    static func gnuTLSRejects(_ o: DifferentialOutcome, with text: String) -> Bool {
        guard let gnuTLS = o.gnuTLS, !gnuTLS.isTrusted else { return false }
        return gnuTLS.failures.allSatisfy { $0.detail.contains(text) }
    }

    static func engineRefuses(_ o: DifferentialOutcome, _ code: TrustFailureCode, detail: String) -> Bool {
        o.engineFailure == code && o.engineDetail.contains(detail)
    }

    static func isCriticalPolicyExtension(_ s: CertificateShape) -> Bool {
        s.policyExtensionsCritical && (!s.policyMappings.isEmpty || s.requireExplicitPolicy != nil
                                       || s.inhibitPolicyMapping != nil || s.inhibitAnyPolicy != nil)
    }

    // MARK: OpenSSL

    static let openSSL: [DocumentedDifference] = [
        DocumentedDifference(
            name: "anyPolicy in policyMappings", reference: .openSSL, rfcSection: "RFC 5280 §6.1.4 (a)", rightSide: .engine
        ) { _, o in
            engineRefuses(o, .certificatePolicyViolated, detail: "anyPolicy may not be mapped") && o.openSSL.trusted
        },
        DocumentedDifference(
            name: "extendedKeyUsage of a CA applied to the path", reference: .openSSL, rfcSection: "RFC 5280 §4.2.1.12",
            rightSide: .engine
        ) { c, o in
            c.purpose == .serverAuth && o.engineTrusts
                && openSSLErrors(o, allAre: "unsuitable certificate purpose", deeperThanLeaf: true)
                && authorities(c).contains { $0.extendedKeyUsage.map { !$0.contains(.serverAuth) } ?? false }
        },
        DocumentedDifference(
            name: "explicit policy required on a path without intermediates", reference: .openSSL,
            rfcSection: "RFC 5280 §6.1.5 (g)", rightSide: .engine
        ) { c, o in
            c.intermediateCount == 0 && c.crossSign == .none && c.policyInputs?.requireExplicitPolicy == true
                && o.engineTrusts && c.leaf.policies != nil && openSSLErrors(o, allAre: "no explicit policy")
        },
        DocumentedDifference(
            name: "CRL distribution point named relative to the CRL issuer", reference: .openSSL,
            rfcSection: "RFC 5280 §6.3.3 (b)(2)(i)", rightSide: .reference
        ) { c, o in
            guard let revocation = c.revocation, revocation.mode == .hard, o.engineTrusts else { return false }
            let relative = revocation.leafPoint == .relativeA
                || revocation.crls.contains { $0.issuer == .leafIssuer && ($0.scope == .relativeA || $0.scope == .relativeB) }
            return relative && !o.openSSL.errors.isEmpty && o.openSSL.errors.allSatisfy {
                $0 == "0: different CRL scope" || $0 == "0: unable to get certificate CRL"
            }
        },
    ]

    // MARK: GnuTLS

    static let gnuTLS: [DocumentedDifference] = [
        DocumentedDifference(
            name: "critical policy extensions refused as unknown", reference: .gnuTLS, rfcSection: "RFC 5280 §6.1.4",
            rightSide: .engine
        ) { c, o in
            o.engineTrusts && gnuTLSRejects(o, with: "unknown critical extension") && c.any(isCriticalPolicyExtension)
        },
        DocumentedDifference(
            name: "dNSName subtrees applied to the subject common name", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            // A CA with a permitted dNSName subtree above a certificate with no dNSName SAN (every
            // intermediate and the leaf here are named only by CNs like "DT CA 1").
            o.engineTrusts && gnuTLSRejects(o, with: "signer's constraints")
                && authorities(c).contains { $0.nameConstraints.permitted.contains { if case .dnsName = $0 { true } else { false } } }
        },
        DocumentedDifference(
            name: "an excluded URI subtree refuses every certificate below it", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            o.engineTrusts && gnuTLSRejects(o, with: "signer's constraints")
                && authorities(c).contains { $0.nameConstraints.excluded.contains { if case .uri = $0 { true } else { false } } }
        },
        DocumentedDifference(
            name: "directoryName subtrees not applied", reference: .gnuTLS, rfcSection: "RFC 5280 §4.2.1.10",
            rightSide: .engine
        ) { _, o in
            engineRefuses(o, .nameConstraintsViolated, detail: "DirName:") && o.gnuTLS?.isTrusted == true
        },
        DocumentedDifference(
            name: "an address of one family under permitted subtrees of the other only", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { _, o in
            engineRefuses(o, .nameConstraintsViolated, detail: "is outside every permitted iPAddress subtree (of its family)")
                && o.gnuTLS?.isTrusted == true
        },
    ]

    // MARK: Both

    static func trusts(_ reference: Reference, _ o: DifferentialOutcome) -> Bool {
        reference == .openSSL ? o.openSSL.trusted : o.gnuTLS?.isTrusted == true
    }

    static let both: [DocumentedDifference] = [Reference.openSSL, Reference.gnuTLS].flatMap { reference -> [DocumentedDifference] in
        return [
            DocumentedDifference(
                name: "keyCertSign in a certificate that is not a CA", reference: reference, rfcSection: "RFC 5280 §4.2.1.3",
                rightSide: .reference
            ) { c, o in
                engineRefuses(o, .invalidKeyUsage, detail: "keyCertSign without basicConstraints cA")
                    && c.leaf.keyUsage == .wrongForRole && trusts(reference, o)
            },
            DocumentedDifference(
                name: "a dNSName with a trailing dot under a dNSName constraint", reference: reference,
                rfcSection: "RFC 5280 §4.2.1.6", rightSide: .engine
            ) { c, o in
                o.engineFailure == .nameConstraintsViolated && o.engineDetail.hasPrefix("DNS:") && o.engineDetail.contains(". is ")
                    && c.leaf.subjectAlternativeNames.contains(.dnsName("www.example.com.")) && trusts(reference, o)
            },
        ]
    }
}
