/// The certificate-policy extensions of one certificate, as RFC 5280 §6.1 policy processing
/// (``PolicyGraph``) reads them: certificatePolicies (§4.2.1.4), policyMappings (§4.2.1.5),
/// policyConstraints (§4.2.1.11) and inhibitAnyPolicy (§4.2.1.14).
///
/// Each is parsed strictly when the certificate is read: an extension that is not well-formed
/// makes the certificate malformed (`TLSTrustError.malformedCertificate`), because a policy the
/// engine cannot read is a constraint it would otherwise silently drop. Policy qualifiers are not
/// used (RFC 5280 §4.2.1.4 lets a verifier ignore them) but must still be well-formed.
struct CertificatePolicyExtensions: Sendable {
    /// The policy OIDs of certificatePolicies, in order, without duplicates; nil when absent.
    var policies: [String]?
    /// The (issuerDomainPolicy, subjectDomainPolicy) pairs of policyMappings, in order; nil when
    /// absent. anyPolicy is kept here and refused by path validation (§6.1.4 (a)).
    var mappings: [(issuerDomain: String, subjectDomain: String)]?
    /// policyConstraints' requireExplicitPolicy SkipCerts, when present.
    var requireExplicitPolicy: Int?
    /// policyConstraints' inhibitPolicyMapping SkipCerts, when present.
    var inhibitPolicyMapping: Int?
    /// inhibitAnyPolicy's SkipCerts, when the extension is present.
    var inhibitAnyPolicy: Int?

    /// Parses extension `oid` from `reader` (positioned at the extnValue's contents) when it is a
    /// policy extension; returns false, reading nothing, for any other extension.
    mutating func parse(_ oid: String, _ der: [UInt8], _ reader: inout DERReader) throws -> Bool {
        switch oid {
        case ExtensionOID.certificatePolicies:
            policies = try Self.parsePolicies(der, try reader.read(DERTag.sequence, "CertificatePolicies"))
        case ExtensionOID.policyMappings:
            mappings = try Self.parseMappings(der, try reader.read(DERTag.sequence, "PolicyMappings"))
        case ExtensionOID.policyConstraints:
            var r = DERReader(der, contentsOf: try reader.read(DERTag.sequence, "PolicyConstraints"))
            if let n = try r.readOptional(DERTag.contextSpecific(0, constructed: false)) {
                requireExplicitPolicy = try n.smallInteger(in: der)
            }
            if let n = try r.readOptional(DERTag.contextSpecific(1, constructed: false)) {
                inhibitPolicyMapping = try n.smallInteger(in: der)
            }
            guard r.isAtEnd else { throw DERError(description: "unexpected data in policyConstraints") }
            // RFC 5280 §4.2.1.11: "Conforming CAs MUST NOT issue certificates where policy
            // constraints is an empty sequence."
            guard requireExplicitPolicy != nil || inhibitPolicyMapping != nil else {
                throw DERError(description: "empty policyConstraints (neither requireExplicitPolicy nor inhibitPolicyMapping)")
            }
        case ExtensionOID.inhibitAnyPolicy:
            inhibitAnyPolicy = try reader.read(DERTag.integer, "InhibitAnyPolicy SkipCerts").smallInteger(in: der)
        default:
            return false
        }
        return true
    }

    /// `CertificatePolicies ::= SEQUENCE SIZE (1..MAX) OF PolicyInformation`.
    private static func parsePolicies(_ der: [UInt8], _ node: DERNode) throws -> [String] {
        var list = DERReader(der, contentsOf: node)
        var out: [String] = []
        var seen = Set<String>()
        while !list.isAtEnd {
            var info = DERReader(der, contentsOf: try list.read(DERTag.sequence, "PolicyInformation"))
            let oid = try info.read(DERTag.objectIdentifier, "policyIdentifier").objectIdentifier(in: der)
            // §4.2.1.4: "A certificate policy OID MUST NOT appear more than once."
            guard seen.insert(oid).inserted else { throw DERError(description: "certificate policy \(oid) appears more than once") }
            if let qualifiers = try info.readOptional(DERTag.sequence) {
                try checkQualifiers(der, qualifiers)
            }
            guard info.isAtEnd else { throw DERError(description: "unexpected data in PolicyInformation") }
            out.append(oid)
        }
        guard !out.isEmpty else { throw DERError(description: "empty certificatePolicies") }
        return out
    }

    /// `policyQualifiers SEQUENCE SIZE (1..MAX) OF PolicyQualifierInfo`, each
    /// `SEQUENCE { policyQualifierId OID, qualifier ANY }`: the two qualifiers RFC 5280 defines are
    /// checked for their type (CPS pointer: IA5String; user notice: SEQUENCE), others for shape only.
    private static func checkQualifiers(_ der: [UInt8], _ node: DERNode) throws {
        var list = DERReader(der, contentsOf: node)
        guard !list.isAtEnd else { throw DERError(description: "empty policyQualifiers") }
        while !list.isAtEnd {
            var q = DERReader(der, contentsOf: try list.read(DERTag.sequence, "PolicyQualifierInfo"))
            let id = try q.read(DERTag.objectIdentifier, "policyQualifierId").objectIdentifier(in: der)
            let qualifier = try q.readAny()
            guard q.isAtEnd else { throw DERError(description: "unexpected data in PolicyQualifierInfo") }
            switch id {
            case PolicyQualifierOID.cps where qualifier.identifier != DERTag.ia5String:
                throw DERError(description: "CPS qualifier is not an IA5String")
            case PolicyQualifierOID.userNotice where qualifier.identifier != DERTag.sequence:
                throw DERError(description: "user notice qualifier is not a SEQUENCE")
            default:
                continue
            }
        }
    }

    /// `PolicyMappings ::= SEQUENCE SIZE (1..MAX) OF SEQUENCE { issuerDomainPolicy, subjectDomainPolicy }`.
    private static func parseMappings(_ der: [UInt8], _ node: DERNode) throws -> [(issuerDomain: String, subjectDomain: String)] {
        var list = DERReader(der, contentsOf: node)
        var out: [(issuerDomain: String, subjectDomain: String)] = []
        while !list.isAtEnd {
            var pair = DERReader(der, contentsOf: try list.read(DERTag.sequence, "PolicyMapping"))
            let issuer = try pair.read(DERTag.objectIdentifier, "issuerDomainPolicy").objectIdentifier(in: der)
            let subject = try pair.read(DERTag.objectIdentifier, "subjectDomainPolicy").objectIdentifier(in: der)
            guard pair.isAtEnd else { throw DERError(description: "unexpected data in PolicyMapping") }
            out.append((issuer, subject))
        }
        guard !out.isEmpty else { throw DERError(description: "empty policyMappings") }
        return out
    }
}

extension Certificate {
    /// The policy OIDs of the certificatePolicies extension (RFC 5280 §4.2.1.4), in order; nil
    /// when the certificate has none. Qualifiers are not reported.
    public var certificatePolicies: [String]? { fields.policyExtensions.policies }
}
