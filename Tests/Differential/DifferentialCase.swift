import Foundation
import TLSTrustTesting

/// One generated case of the differential tester: a path and the inputs of one evaluation, as a
/// value of the grammar's features (nothing minted yet), so that it can be printed, compared by the
/// documented differences' predicates, and regenerated from its seed alone.
///
/// Certificates are listed from the anchor down: `certificates[0]` is the trusted root, the last
/// is the leaf, the ones between are intermediate CAs issued in order.
struct DifferentialCase: Sendable, CustomStringConvertible {
    let seed: UInt64
    var certificates: [CertificateShape]
    var crossSign: CrossSign = .none
    var purpose: Purpose = .any
    /// RFC 5280 §6.1.1's policy inputs; nil for the defaults (any policy, nothing required).
    var policyInputs: PolicyInputs?
    var revocation: RevocationShape?
    /// An OCSP answer for the leaf, checked instead of CRLs (leaf only); nil for none.
    var ocsp: OCSPShape?

    enum CrossSign: String, Sendable {
        case none
        /// The anchor is a second root, reached through a cross-certificate of the first root's
        /// name and key that it issued; the first root is not trusted and not presented.
        case anchorThroughCross
        /// The root stays the anchor, and a cross-certificate of its name by an untrusted root is
        /// presented too: a dead end a path builder must step over.
        case deadEndCross
    }

    enum Purpose: String, Sendable { case any, serverAuth }

    struct PolicyInputs: Sendable, Equatable {
        var initialPolicySet: [String]
        var requireExplicitPolicy = false
        var inhibitPolicyMapping = false
        var inhibitAnyPolicy = false
    }

    var leaf: CertificateShape { certificates[certificates.count - 1] }
    var intermediateCount: Int { certificates.count - 2 }

    /// Whether any certificate carries `feature`.
    func any(_ feature: (CertificateShape) -> Bool) -> Bool { certificates.contains(where: feature) }

    var description: String {
        var lines = ["seed \(seed): \(certificates.count - 2) intermediate(s), purpose \(purpose.rawValue)"
                     + (crossSign == .none ? "" : ", cross-sign \(crossSign.rawValue)")]
        if let policyInputs {
            lines.append("  policy inputs: initial \(policyInputs.initialPolicySet.map(DifferentialGrammar.policyName))"
                         + (policyInputs.requireExplicitPolicy ? " explicit" : "")
                         + (policyInputs.inhibitPolicyMapping ? " inhibit-mapping" : "")
                         + (policyInputs.inhibitAnyPolicy ? " inhibit-any" : ""))
        }
        for (index, shape) in certificates.enumerated() {
            let role = index == 0 ? "root" : index == certificates.count - 1 ? "leaf" : "ca\(index)"
            let text = shape.description
            lines.append("  \(role): \(text.isEmpty ? "plain" : text)")
        }
        if let revocation { lines.append("  revocation: \(revocation)") }
        if let ocsp { lines.append("  ocsp: \(ocsp)") }
        return lines.joined(separator: "\n")
    }
}

/// The features of one certificate of a generated path. Everything defaults to an ordinary,
/// valid certificate, so that a case states only what it varies.
struct CertificateShape: Sendable {
    enum Validity: String, Sendable {
        case current, expired, notYetValid
        /// Valid until two minutes from now: the engine, OpenSSL and GnuTLS all read "now" within
        /// a second of one another, so an edge this close is still decided the same way by each.
        case expiresSoon
        /// Valid since two minutes ago.
        case justValid
        /// notAfter in GeneralizedTime although before 2050 (RFC 5280 §4.1.2.5 requires UTCTime).
        case generalizedTimeBefore2050
    }

    enum KeyUsageShape: String, Sendable {
        case derived
        /// A CA without keyCertSign, or a leaf with keyCertSign alone.
        case wrongForRole
        /// No keyUsage extension at all.
        case omitted
    }

    var validity: Validity = .current
    var pathLength: Int?
    var keyUsage: KeyUsageShape = .derived
    var extendedKeyUsage: [ExtendedKeyUsage]?
    var policies: [String]?
    var policyMappings: [PolicyMapping] = []
    var requireExplicitPolicy: Int?
    var inhibitPolicyMapping: Int?
    var inhibitAnyPolicy: Int?
    var policyExtensionsCritical = true
    var nameConstraints = TestNameConstraints()
    /// The subject's organization, its string type and its written variant.
    var organization = NameVariant(text: "Good Org", type: .printableString)
    var subjectAlternativeNames: [TestGeneralName] = []
    /// The subject's common name (leaves only vary it: a host name or an address in the CN is
    /// what name constraints must also reach when there is no subjectAltName).
    var commonName: String?

    struct PolicyMapping: Sendable, Equatable {
        var issuerDomain: String
        var subjectDomain: String
    }

    var hasPolicyExtensions: Bool {
        policies != nil || !policyMappings.isEmpty || requireExplicitPolicy != nil || inhibitPolicyMapping != nil
            || inhibitAnyPolicy != nil
    }

    var description: String {
        var parts: [String] = []
        if validity != .current { parts.append("validity \(validity.rawValue)") }
        if let pathLength { parts.append("pathLen \(pathLength)") }
        if keyUsage != .derived { parts.append("keyUsage \(keyUsage.rawValue)") }
        if let extendedKeyUsage { parts.append("eku \(extendedKeyUsage.map(\.rawValue))") }
        if let policies { parts.append("policies \(policies.map(DifferentialGrammar.policyName))") }
        if !policyMappings.isEmpty {
            parts.append("mappings \(policyMappings.map { "\(DifferentialGrammar.policyName($0.issuerDomain))→\(DifferentialGrammar.policyName($0.subjectDomain))" })")
        }
        if let requireExplicitPolicy { parts.append("requireExplicitPolicy \(requireExplicitPolicy)") }
        if let inhibitPolicyMapping { parts.append("inhibitPolicyMapping \(inhibitPolicyMapping)") }
        if let inhibitAnyPolicy { parts.append("inhibitAnyPolicy \(inhibitAnyPolicy)") }
        if hasPolicyExtensions && !policyExtensionsCritical { parts.append("policy extensions not critical") }
        if !nameConstraints.permitted.isEmpty { parts.append("permitted \(nameConstraints.permitted.map(DifferentialGrammar.nameText))") }
        if !nameConstraints.excluded.isEmpty { parts.append("excluded \(nameConstraints.excluded.map(DifferentialGrammar.nameText))") }
        if organization != NameVariant(text: "Good Org", type: .printableString) { parts.append("O=\(organization)") }
        if let commonName { parts.append("CN=\(commonName)") }
        if !subjectAlternativeNames.isEmpty { parts.append("SAN \(subjectAlternativeNames.map(DifferentialGrammar.nameText))") }
        return parts.joined(separator: ", ")
    }
}

/// An organization name as written: its text (case and spaces varied) and its string type.
struct NameVariant: Sendable, Hashable, CustomStringConvertible {
    var text: String
    var type: TestName.StringType

    var attribute: TestName.Attribute { .organization(text, as: type) }
    var description: String { "\"\(text)\"(\(type))" }
}

/// CRLs for the path, and how revocation is asked for.
struct RevocationShape: Sendable, CustomStringConvertible {
    enum Mode: String, Sendable { case soft, hard }
    enum Scope: String, Sendable { case leafOnly, wholeChain }

    /// The leaf's cRLDistributionPoints.
    enum LeafPoint: String, Sendable {
        case none
        case uriA
        /// A point relative to the CRL issuer's name (`OU=partition A` under the issuer).
        case relativeA
        /// A point whose CRLs are issued by the indirect CRL issuer (cRLIssuer set).
        case indirect
        /// A point covering keyCompromise only.
        case keyCompromiseOnly
    }

    /// One CRL.
    struct CRL: Sendable, CustomStringConvertible {
        enum Issuer: String, Sendable {
            /// The CA that issued the leaf.
            case leafIssuer
            /// The CA that issued the leaf's issuer (the intermediate's CRL), when there is one.
            case upperIssuer
            /// A separate CRL issuer under the root, with indirectCRL set.
            case indirectIssuer
        }
        enum Scope: String, Sendable {
            case none, onlyUserCerts, onlyCACerts, uriA, uriB, relativeA, relativeB, keyCompromiseOnly
        }
        enum Dates: String, Sendable { case current, stale, future }

        var issuer: Issuer
        /// Whether the CRL lists the certificate it speaks for (the leaf for `leafIssuer` and
        /// `indirectIssuer`, the leaf's issuer for `upperIssuer`).
        var revokesSubject: Bool
        var reason: TestRevocationReason?
        var scope: Scope = .none
        var dates: Dates = .current
        /// nil for a complete CRL; else a delta CRL on base CRL number 1 (the complete CRLs' number).
        var deltaOfBase: Int?

        var description: String {
            var parts = ["by \(issuer.rawValue)"]
            if revokesSubject { parts.append("revokes" + (reason.map { " (reason \($0.rawValue))" } ?? "")) }
            if scope != .none { parts.append("scope \(scope.rawValue)") }
            if dates != .current { parts.append(dates.rawValue) }
            if deltaOfBase != nil { parts.append("delta") }
            return parts.joined(separator: " ")
        }
    }

    var mode: Mode
    var scope: Scope
    var leafPoint: LeafPoint
    var crls: [CRL]

    var description: String {
        "\(mode.rawValue) \(scope.rawValue), leaf point \(leafPoint.rawValue), CRLs [\(crls.map(\.description).joined(separator: "; "))]"
    }
}

/// An OCSP response for the leaf (RFC 6960), judged under leaf-only OCSP checking.
struct OCSPShape: Sendable, CustomStringConvertible {
    enum Responder: String, Sendable {
        /// The leaf's issuer signs.
        case issuer
        /// A delegated responder certified by the issuer: id-kp-OCSPSigning, digitalSignature.
        case delegated
        /// A delegated responder whose keyUsage is keyEncipherment only (RFC 5280 §4.2.1.3).
        case delegatedWithoutDigitalSignature
        /// A responder certified by the issuer with serverAuth instead of id-kp-OCSPSigning.
        case delegatedWithoutOCSPSigning
        /// Another CA's key (the indirect-CRL issuer's sibling): not authorised.
        case unrelated
    }
    enum Status: String, Sendable { case good, revoked, unknown }
    enum Dates: String, Sendable { case current, stale, future }

    var mode: RevocationShape.Mode
    var responder: Responder
    var status: Status
    var dates: Dates = .current
    /// A second SingleResponse for the same certificate, saying revoked, after the first.
    var secondAnswerRevoked = false

    var description: String {
        "\(mode.rawValue), responder \(responder.rawValue), \(status.rawValue)" + (dates == .current ? "" : ", \(dates.rawValue)")
            + (secondAnswerRevoked ? ", then a second answer: revoked" : "")
    }
}
