import TLSTrust
import TLSTrustTesting

extension DocumentedDifference {
    /// Every documented difference, each described in docs/validation.md under the same name.
    static let all: [DocumentedDifference] = openSSL + gnuTLS + both

    // MARK: Predicates' building blocks

    /// The CA certificates of the path (not the leaf), anchor included.
    static func authorities(_ c: DifferentialCase) -> ArraySlice<CertificateShape> { c.certificates.dropLast() }

    /// OpenSSL's counted errors, each `depth: text`, split.
    static func openSSLErrors(_ o: DifferentialOutcome) -> [(depth: Int, text: String)] {
        o.openSSL.errors.compactMap { error in
            guard let colon = error.firstIndex(of: ":"), let depth = Int(error[..<colon]) else { return nil }
            return (depth, String(error[error.index(colon, offsetBy: 2)...]))
        }
    }

    static func openSSLRejects(_ o: DifferentialOutcome, onlyWith texts: Set<String>) -> Bool {
        !o.openSSL.trusted && o.openSSL.errors.count == openSSLErrors(o).count && openSSLErrors(o).allSatisfy { texts.contains($0.text) }
    }

    static func engineRefuses(_ o: DifferentialOutcome, _ code: TrustFailureCode, detail: String) -> Bool {
        o.engineFailure == code && o.engineDetail.contains(detail)
    }

    static func isCriticalPolicyExtension(_ s: CertificateShape) -> Bool {
        s.policyExtensionsCritical && (!s.policyMappings.isEmpty || s.requireExplicitPolicy != nil
                                       || s.inhibitPolicyMapping != nil || s.inhibitAnyPolicy != nil)
    }

    /// The certificate at OpenSSL's `depth` (0 the leaf), nil above the shapes (the cross root).
    static func certificate(_ c: DifferentialCase, depth: Int) -> CertificateShape? {
        let index = c.certificates.count - 1 - depth
        return c.certificates.indices.contains(index) ? c.certificates[index] : nil
    }

    /// Whether `depth` is the trust anchor's (the root, unless reached through a cross-certificate).
    static func isAnchor(_ c: DifferentialCase, depth: Int) -> Bool {
        c.crossSign != .anchorThroughCross && depth == c.certificates.count - 1
    }

    /// Whether a certificate's EKU lets the engine accept it for serverAuth where OpenSSL and
    /// GnuTLS do not: anyExtendedKeyUsage without serverAuth.
    static func hasAnyEKUWithoutServerAuth(_ s: CertificateShape) -> Bool {
        guard let eku = s.extendedKeyUsage else { return false }
        return eku.contains(.any) && !eku.contains(.serverAuth)
    }

    static func ekuLacksServerAuth(_ s: CertificateShape) -> Bool {
        s.extendedKeyUsage.map { !$0.contains(.serverAuth) } ?? false
    }

    /// The revocation features the engine does not implement yet (RFC 5280 §6.3.3), in a case.
    static func usesCRLFeature(_ c: DifferentialCase, _ feature: (RevocationShape.CRL) -> Bool) -> Bool {
        c.revocation?.crls.contains(where: feature) ?? false
    }

    /// The disagreement is about revocation only: the engine trusts or refuses for revocation, and
    /// OpenSSL trusts or refuses only with revocation errors.
    static func aboutRevocationOnly(_ o: DifferentialOutcome) -> Bool {
        let engine = o.engineFailure == nil || o.engineFailure == .revoked || o.engineFailure == .revocationStatusUnknown
        let reference = openSSLErrors(o).allSatisfy {
            OpenSSLReferenceVerifier.revocationTexts.contains($0.text) || $0.text.hasPrefix("OCSP: ")
        }
        return engine && reference && o.openSSL.errors.count == openSSLErrors(o).count
    }

    // MARK: OpenSSL

    /// Whether the engine trusts and every error OpenSSL counted belongs to one of the documented
    /// OpenSSL classes that refuse where the engine trusts, each checked against the case (so that
    /// two classes in one case are still explained, and nothing else is):
    /// - "unsuitable certificate purpose" at a depth whose certificate has anyExtendedKeyUsage
    ///   without serverAuth;
    /// - "no explicit policy" when explicit policy is required and the initial set is anyPolicy;
    /// - "permitted subtree violation" on the leaf, when it carries the URI with userinfo and a
    ///   CA constrains URIs.
    static func openSSLFailuresExplained(_ c: DifferentialCase, _ o: DifferentialOutcome) -> Bool {
        guard o.engineTrusts, !o.openSSL.trusted, o.openSSL.errors.count == openSSLErrors(o).count else { return false }
        return openSSLErrors(o).allSatisfy { error in
            switch error.text {
            case "unsuitable certificate purpose":
                return c.purpose == .serverAuth && (certificate(c, depth: error.depth).map(hasAnyEKUWithoutServerAuth) ?? false)
            case "no explicit policy":
                let initialAny = c.policyInputs.map { $0.initialPolicySet.contains(DifferentialGrammar.anyPolicy) } ?? true
                return initialAny && (c.policyInputs?.requireExplicitPolicy == true || c.any { $0.requireExplicitPolicy != nil })
            case "permitted subtree violation", "excluded subtree violation":
                return error.depth == 0
                    && (hasUserinfoURIUnderURIConstraint(c) || commonNameCheckedAsDNSName(c) || addressInCommonNameUnderDNSConstraint(c))
            case "OCSP: revoked":
                return c.ocsp?.responder == .delegatedWithoutDigitalSignature
            case _ where OpenSSLReferenceVerifier.revocationTexts.contains(error.text):
                return error.depth == 0 && (reasonsAnsweredByCompleteCRL(c) || unrevokedByIndirectCRL(c))
            default:
                return false
            }
        }
    }

    /// OpenSSL checks a host-like common name against dNSName subtrees whenever the leaf has no
    /// dNSName SAN; the engine only when it has no subjectAltName at all (a certificate with SANs
    /// is identified by them, RFC 9525 §6.3).
    static func commonNameCheckedAsDNSName(_ c: DifferentialCase) -> Bool {
        func isDNS(_ name: TestGeneralName) -> Bool { if case .dnsName = name { true } else { false } }
        return c.leaf.commonName != nil && !c.leaf.subjectAlternativeNames.isEmpty
            && !c.leaf.subjectAlternativeNames.contains(where: isDNS)
            && authorities(c).contains { $0.nameConstraints.permitted.contains(where: isDNS) || $0.nameConstraints.excluded.contains(where: isDNS) }
    }

    /// The leaf has no subjectAltName and an address for its common name, and a CA constrains
    /// dNSNames: OpenSSL checks the "host-like" CN as a dNSName, the engine as the iPAddress it is.
    static func addressInCommonNameUnderDNSConstraint(_ c: DifferentialCase) -> Bool {
        func isDNS(_ name: TestGeneralName) -> Bool { if case .dnsName = name { true } else { false } }
        return c.leaf.commonName == "192.0.2.1" && c.leaf.subjectAlternativeNames.isEmpty
            && authorities(c).contains { $0.nameConstraints.permitted.contains(where: isDNS) || $0.nameConstraints.excluded.contains(where: isDNS) }
    }

    /// Hard mode, the leaf's only distribution point covers keyCompromise, and the leaf's issuer
    /// gave a current complete CRL with no issuingDistributionPoint that does not list it.
    static func reasonsAnsweredByCompleteCRL(_ c: DifferentialCase) -> Bool {
        guard let revocation = c.revocation, revocation.mode == .hard, revocation.leafPoint == .keyCompromiseOnly else { return false }
        return revocation.crls.contains {
            $0.issuer == .leafIssuer && coversTheLeafForAllReasons($0.scope) && $0.dates == .current && $0.deltaOfBase == nil
                && !$0.revokesSubject
        }
    }

    /// An issuingDistributionPoint scope under which the issuer's CRL covers the leaf for every
    /// reason and names no point: none at all, or onlyContainsUserCerts (the leaf is no CA).
    static func coversTheLeafForAllReasons(_ scope: RevocationShape.CRL.Scope) -> Bool {
        scope == .none || scope == .onlyUserCerts
    }

    /// The leaf's point names the indirect CRL issuer, which gave a current CRL not listing it.
    static func unrevokedByIndirectCRL(_ c: DifferentialCase) -> Bool {
        guard let revocation = c.revocation, revocation.leafPoint == .indirect else { return false }
        return revocation.crls.contains { $0.issuer == .indirectIssuer && $0.dates == .current } && !revocation.crls.contains {
            $0.issuer == .indirectIssuer && $0.revokesSubject
        }
    }

    /// The leaf names `https://user@www.example.com/` and a CA constrains URIs. OpenSSL takes
    /// everything between "://" and the next ":" or "/" for the host (`user@www.example.com`);
    /// RFC 3986 §3.2 says the host is `www.example.com`.
    static func hasUserinfoURIUnderURIConstraint(_ c: DifferentialCase) -> Bool {
        func isURI(_ name: TestGeneralName) -> Bool { if case .uri = name { true } else { false } }
        return c.leaf.subjectAlternativeNames.contains(.uri("https://user@www.example.com/"))
            && authorities(c).contains { $0.nameConstraints.permitted.contains(where: isURI) || $0.nameConstraints.excluded.contains(where: isURI) }
    }

    static let openSSL: [DocumentedDifference] = [
        DocumentedDifference(
            name: "anyPolicy in policyMappings", reference: .openSSL, rfcSection: "RFC 5280 §6.1.4 (a)", rightSide: .engine
        ) { _, o in
            engineRefuses(o, .certificatePolicyViolated, detail: "anyPolicy may not be mapped") && o.openSSL.trusted
        },
        DocumentedDifference(
            name: "anyExtendedKeyUsage", reference: .openSSL, rfcSection: "RFC 5280 §4.2.1.12", rightSide: .engine
        ) { c, o in
            openSSLFailuresExplained(c, o) && o.openSSL.errors.contains { $0.hasSuffix(": unsuitable certificate purpose") }
        },
        DocumentedDifference(
            name: "explicit policy required with the initial set anyPolicy", reference: .openSSL,
            rfcSection: "RFC 5280 §6.1.5 (g)", rightSide: .engine
        ) { c, o in
            openSSLFailuresExplained(c, o) && o.openSSL.errors.contains("0: no explicit policy")
        },
        DocumentedDifference(
            name: "a common name checked against dNSName subtrees beside other subjectAltNames", reference: .openSSL,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            openSSLFailuresExplained(c, o) && commonNameCheckedAsDNSName(c)
                && o.openSSL.errors.contains { $0.hasSuffix("subtree violation") }
        },
        DocumentedDifference(
            name: "an address in the common name of a leaf without subjectAltName", reference: .openSSL,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            guard addressInCommonNameUnderDNSConstraint(c) || (c.leaf.commonName == "192.0.2.1" && c.leaf.subjectAlternativeNames.isEmpty)
            else { return false }
            return (openSSLFailuresExplained(c, o) && o.openSSL.errors.contains { $0.hasSuffix("subtree violation") })
                || (engineRefuses(o, .nameConstraintsViolated, detail: "IP:192.0.2.1 is") && o.openSSL.trusted)
        },
        DocumentedDifference(
            name: "two answers for one certificate in an OCSP response", reference: .openSSL,
            rfcSection: "RFC 6960 §4.2.1", rightSide: .engine
        ) { c, o in
            // OCSP_resp_find_status returns the first SingleResponse for the CertID; the engine
            // judges every one, and "revoked" in any wins.
            c.ocsp?.secondAnswerRevoked == true && o.engineFailure == .revoked && o.openSSL.trusted
        },
        DocumentedDifference(
            name: "several CRLs for one certificate", reference: .openSSL, rfcSection: "RFC 5280 §6.3.3", rightSide: .engine
        ) { c, o in
            // OpenSSL judges a certificate by the one CRL it scores best (scope, dates); §6.3.3 goes
            // through every CRL in scope, so one that lists the certificate (a complete,
            // partitioned, delta or indirect CRL) revokes it.
            guard let crls = c.revocation?.crls, o.engineFailure == .revoked, o.openSSL.trusted else { return false }
            func speaksFor(_ crl: RevocationShape.CRL) -> Bool { crl.issuer == .upperIssuer }
            return crls.contains { crl in crl.revokesSubject && crls.filter { speaksFor($0) == speaksFor(crl) }.count > 1 }
        },
        DocumentedDifference(
            name: "a CRL partitioned by reason", reference: .openSSL, rfcSection: "RFC 5280 §6.3.3 (b)(2)(iv), (d)",
            rightSide: .engine
        ) { c, o in
            // A CRL whose onlySomeReasons covers keyCompromise and lists the certificate revokes it
            // (its reasons meet the distribution point's, or all reasons when the certificate names
            // no point); OpenSSL does not use a partitioned CRL for a certificate without a matching
            // distribution point.
            o.engineFailure == .revoked && o.openSSL.trusted
                && usesCRLFeature(c) { $0.scope == .keyCompromiseOnly && $0.revokesSubject && $0.dates == .current }
        },
        DocumentedDifference(
            name: "a distribution point with reasons, answered by the issuer's complete CRL", reference: .openSSL,
            rfcSection: "RFC 5280 §6.3.3", rightSide: .engine
        ) { c, o in
            if openSSLFailuresExplained(c, o) && reasonsAnsweredByCompleteCRL(c)
                && openSSLErrors(o).contains(where: { OpenSSLReferenceVerifier.revocationTexts.contains($0.text) }) { return true }
            // The other direction: that complete CRL lists the certificate.
            guard let revocation = c.revocation, revocation.leafPoint == .keyCompromiseOnly,
                  o.engineFailure == .revoked, o.openSSL.trusted else { return false }
            return revocation.crls.contains {
                $0.issuer == .leafIssuer && coversTheLeafForAllReasons($0.scope) && $0.dates == .current && $0.deltaOfBase == nil
                    && $0.revokesSubject
            }
        },
        DocumentedDifference(
            name: "an indirect CRL issuer without a CRL of its own", reference: .openSSL, rfcSection: "RFC 5280 §6.3.3 (f)",
            rightSide: .engine
        ) { c, o in
            // OpenSSL validates the indirect CRL issuer's path with the request's CRL checking, so
            // without a CRL from the root for the CRL issuer itself ("CRL path validation error") it
            // cannot use the indirect CRL; §6.3.3 (f) asks for a validated path, which the engine
            // builds and validates without demanding the CRL issuer's own revocation status.
            guard let revocation = c.revocation, revocation.leafPoint == .indirect,
                  let indirect = revocation.crls.first(where: { $0.issuer == .indirectIssuer && $0.dates == .current })
            else { return false }
            if indirect.revokesSubject {
                return o.engineFailure == .revoked && o.openSSL.trusted && o.openSSL.allErrors.contains("0: CRL path validation error")
            }
            return o.engineTrusts && aboutRevocationOnly(o) && o.openSSL.errors.contains("0: CRL path validation error")
                && openSSLErrors(o).allSatisfy { $0.depth == 0 }
        },
        DocumentedDifference(
            name: "a delta CRL without its base", reference: .openSSL, rfcSection: "RFC 5280 §5.2.4, §6.3.3 (c)",
            rightSide: .engine
        ) { c, o in
            // A delta CRL that lists the certificate revokes it (the engine); OpenSSL uses a delta
            // only over its complete CRL, so alone it is no CRL at all.
            guard let crls = c.revocation?.crls, o.engineFailure == .revoked, o.openSSL.trusted else { return false }
            return crls.contains { delta in
                delta.deltaOfBase != nil && delta.revokesSubject && crls.filter { $0.issuer == delta.issuer }.count == 1
            }
        },
        DocumentedDifference(
            name: "a delegated OCSP responder without digitalSignature", reference: .openSSL,
            rfcSection: "RFC 5280 §4.2.1.3, RFC 6960 §4.2.2.2", rightSide: .engine
        ) { c, o in
            // OpenSSL's OCSP_basic_verify checks the responder's id-kp-OCSPSigning, not its keyUsage;
            // the engine refuses the response, so it gives no answer.
            guard let ocsp = c.ocsp, ocsp.responder == .delegatedWithoutDigitalSignature, aboutRevocationOnly(o) else { return false }
            return (o.engineTrusts && o.openSSL.errors == ["0: OCSP: revoked"])
                || (o.engineFailure == .revocationStatusUnknown && ocsp.mode == .hard && o.openSSL.trusted)
        },
        DocumentedDifference(
            name: "a URI with userinfo under a URI constraint", reference: .openSSL, rfcSection: "RFC 5280 §4.2.1.10",
            rightSide: .engine
        ) { c, o in
            (openSSLFailuresExplained(c, o) && o.openSSL.errors.contains("0: permitted subtree violation"))
                || ((engineRefuses(o, .nameConstraintsViolated, detail: "URI:https://user@www.example.com/ is inside the excluded subtree")
                     || engineRefuses(o, .nameConstraintsViolated, detail: "URI:https://user@www.example.com/ is refused"))
                    && hasUserinfoURIUnderURIConstraint(c) && o.openSSL.trusted)
        },
    ]

    // MARK: GnuTLS

    /// Whether every failure GnuTLS reported is one of the documented GnuTLS classes present in
    /// the case (GnuTLS reports one OR of status bits for the whole chain).
    static func gnuTLSFailuresExplained(_ c: DifferentialCase, _ o: DifferentialOutcome) -> Bool {
        guard let gnuTLS = o.gnuTLS, !gnuTLS.isTrusted, o.engineTrusts else { return false }
        return gnuTLS.failures.allSatisfy { failure in
            if failure.detail.contains("unknown critical extension") { return c.any(isCriticalPolicyExtension) }
            if failure.detail.contains("signer's constraints") {
                return permittedTypeMissingBelow(c) || excludes(c, uri: true) || excludes(c, uri: false) || commonNameCheckedAsDNSName(c)
            }
            if failure.detail.contains("does not match the intended purpose") {
                return c.purpose == .serverAuth && c.any(hasAnyEKUWithoutServerAuth)
            }
            return false
        }
    }

    static func nameType(_ name: TestGeneralName) -> Int? {
        switch name {
        case .dnsName: 2
        case .rfc822Name: 1
        case .ipAddress: 7
        default: nil
        }
    }

    /// A CA permits subtrees of a type (dNSName, rfc822Name, iPAddress) that some certificate
    /// below it has no name of.
    static func permittedTypeMissingBelow(_ c: DifferentialCase) -> Bool {
        for (index, shape) in authorities(c).enumerated() {
            let types = Set(shape.nameConstraints.permitted.compactMap(nameType))
            for below in c.certificates[(index + 1)...] {
                let present = Set(below.subjectAlternativeNames.compactMap(nameType))
                if !types.subtracting(present).isEmpty { return true }
            }
        }
        return false
    }

    /// A CA excludes a URI (or a directoryName) subtree.
    static func excludes(_ c: DifferentialCase, uri: Bool) -> Bool {
        authorities(c).contains { shape in
            shape.nameConstraints.excluded.contains { name in
                switch name {
                case .uri: uri
                case .directoryName: !uri
                default: false
                }
            }
        }
    }

    static let gnuTLS: [DocumentedDifference] = [
        DocumentedDifference(
            name: "critical policy extensions refused as unknown", reference: .gnuTLS, rfcSection: "RFC 5280 §6.1.4",
            rightSide: .engine
        ) { c, o in
            c.any(isCriticalPolicyExtension) && gnuTLSFailuresExplained(c, o)
        },
        DocumentedDifference(
            name: "a permitted subtree refuses a certificate without a name of its type", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            permittedTypeMissingBelow(c) && gnuTLSFailuresExplained(c, o)
        },
        DocumentedDifference(
            name: "a common name checked against dNSName subtrees beside other subjectAltNames", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            commonNameCheckedAsDNSName(c) && gnuTLSFailuresExplained(c, o)
        },
        DocumentedDifference(
            name: "an address in the common name of a leaf without subjectAltName", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            c.leaf.commonName == "192.0.2.1" && c.leaf.subjectAlternativeNames.isEmpty
                && engineRefuses(o, .nameConstraintsViolated, detail: "IP:192.0.2.1 is") && o.gnuTLS?.isTrusted == true
        },
        DocumentedDifference(
            name: "a host name in the common name of a leaf without subjectAltName", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            // The engine (as OpenSSL) constrains the CN a legacy matcher would take for the host;
            // GnuTLS lets it escape an excluded dNSName subtree.
            guard let name = c.leaf.commonName, name.hasPrefix("www."), c.leaf.subjectAlternativeNames.isEmpty else { return false }
            return engineRefuses(o, .nameConstraintsViolated, detail: "DNS:\(name) is") && o.gnuTLS?.isTrusted == true
        },
        DocumentedDifference(
            name: "anyExtendedKeyUsage", reference: .gnuTLS, rfcSection: "RFC 5280 §4.2.1.12", rightSide: .engine
        ) { c, o in
            c.purpose == .serverAuth && gnuTLSFailuresExplained(c, o)
                && o.gnuTLS!.failures.contains { $0.detail.contains("does not match the intended purpose") }
        },
        DocumentedDifference(
            name: "no certificate-policy processing", reference: .gnuTLS, rfcSection: "RFC 5280 §6.1.3 (d)–(f), §6.1.4 (a)",
            rightSide: .engine
        ) { c, o in
            o.engineFailure == .certificatePolicyViolated && o.gnuTLS?.isTrusted == true && c.any(\.hasPolicyExtensions)
        },
        DocumentedDifference(
            name: "directoryName subtrees not implemented", reference: .gnuTLS, rfcSection: "RFC 5280 §4.2.1.10",
            rightSide: .engine
        ) { c, o in
            (engineRefuses(o, .nameConstraintsViolated, detail: "DirName:") && o.gnuTLS?.isTrusted == true)
                || (excludes(c, uri: false) && gnuTLSFailuresExplained(c, o))
        },
        DocumentedDifference(
            name: "URI subtrees not implemented", reference: .gnuTLS, rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { c, o in
            (engineRefuses(o, .nameConstraintsViolated, detail: "URI:") && o.gnuTLS?.isTrusted == true)
                || (excludes(c, uri: true) && gnuTLSFailuresExplained(c, o))
        },
        DocumentedDifference(
            name: "an address of one family under permitted subtrees of the other only", reference: .gnuTLS,
            rfcSection: "RFC 5280 §4.2.1.10", rightSide: .engine
        ) { _, o in
            engineRefuses(o, .nameConstraintsViolated, detail: "is outside every permitted iPAddress subtree (of its family)")
                && o.gnuTLS?.isTrusted == true
        },
        DocumentedDifference(
            name: "extendedKeyUsage of CAs not applied", reference: .gnuTLS, rfcSection: "RFC 5280 §4.2.1.12",
            rightSide: .engine
        ) { c, o in
            engineRefuses(o, .purposeNotAllowed, detail: "issuer's extendedKeyUsage does not allow")
                && o.gnuTLS?.isTrusted == true && authorities(c).contains(where: ekuLacksServerAuth)
        },
    ]

    // MARK: Both

    static func trusts(_ reference: Reference, _ o: DifferentialOutcome) -> Bool {
        reference == .openSSL ? o.openSSL.trusted : o.gnuTLS?.isTrusted == true
    }

    static let both: [DocumentedDifference] = [Reference.openSSL, Reference.gnuTLS].flatMap { reference -> [DocumentedDifference] in
        [
            DocumentedDifference(
                name: "keyCertSign in a certificate that is not a CA", reference: reference, rfcSection: "RFC 5280 §4.2.1.3",
                rightSide: .engine
            ) { c, o in
                // A certificate that asserts keyCertSign yet says it is no CA contradicts itself
                // (§4.2.1.3: "the cA bit ... MUST also be asserted"); the engine refuses it under
                // every profile, as x509-limbo's `rfc5280::leaf-ku-keycertsign` expects.
                engineRefuses(o, .invalidKeyUsage, detail: "keyCertSign without basicConstraints cA")
                    && c.leaf.keyUsage == .wrongForRole && trusts(reference, o)
            },
            DocumentedDifference(
                name: "a dNSName with a trailing dot under a dNSName constraint", reference: reference,
                rfcSection: "RFC 5280 §4.2.1.6", rightSide: .engine
            ) { c, o in
                o.engineFailure == .nameConstraintsViolated && o.engineDetail.hasPrefix("DNS:www.example.com. is ")
                    && c.leaf.subjectAlternativeNames.contains(.dnsName("www.example.com.")) && trusts(reference, o)
            },
        ]
    }
}
