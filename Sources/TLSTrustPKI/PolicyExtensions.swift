/// The certificate-policy extensions (RFC 5280 §4.2.1.4, .5, .11, .14), written byte for byte
/// as asked — duplicates, empty sequences and anyPolicy mappings included — so that tests can
/// mint what a validator must refuse as well as what it must accept.
///
/// ```swift
/// profile.extensions = [.certificatePolicies(["1.2.3.4"]),
///                       .policyConstraints(requireExplicitPolicy: 0)]      // critical, as RFC 5280 requires
/// ```
extension RawExtension {
    /// OIDs of the policy extensions and of anyPolicy.
    public enum PolicyOID {
        public static let certificatePolicies = "2.5.29.32"
        public static let policyMappings = "2.5.29.33"
        public static let policyConstraints = "2.5.29.36"
        public static let inhibitAnyPolicy = "2.5.29.54"
        /// The special policy anyPolicy.
        public static let anyPolicy = "2.5.29.32.0"
    }

    /// certificatePolicies with `policies` in order (no qualifiers unless `qualifiersDER` gives
    /// the raw `policyQualifiers` element for every policy).
    public static func certificatePolicies(_ policies: [String], critical: Bool = false, qualifiersDER: [UInt8]? = nil) -> RawExtension {
        let infos = policies.map { DER.sequence([DER.objectIdentifier($0)] + (qualifiersDER.map { [$0] } ?? [])) }
        return RawExtension(oid: PolicyOID.certificatePolicies, isCritical: critical, valueDER: DER.sequence(infos))
    }

    /// policyMappings with the (issuerDomainPolicy, subjectDomainPolicy) pairs in order.
    public static func policyMappings(_ pairs: [(String, String)], critical: Bool = true) -> RawExtension {
        let mappings = pairs.map { DER.sequence([DER.objectIdentifier($0.0), DER.objectIdentifier($0.1)]) }
        return RawExtension(oid: PolicyOID.policyMappings, isCritical: critical, valueDER: DER.sequence(mappings))
    }

    /// policyConstraints (critical by default, as RFC 5280 §4.2.1.11 requires); both nil gives the
    /// empty sequence that RFC 5280 forbids.
    public static func policyConstraints(requireExplicitPolicy: Int? = nil, inhibitPolicyMapping: Int? = nil,
                                         critical: Bool = true) -> RawExtension {
        func skipCerts(_ tag: UInt8, _ value: Int?) -> [[UInt8]] {
            guard let value else { return [] }
            // [n] IMPLICIT INTEGER: the INTEGER's contents under a context-specific primitive tag.
            return [DER.contextSpecific(tag, constructed: false, Array(DER.integer(value).dropFirst(2)))]
        }
        let fields = skipCerts(0, requireExplicitPolicy) + skipCerts(1, inhibitPolicyMapping)
        return RawExtension(oid: PolicyOID.policyConstraints, isCritical: critical, valueDER: DER.sequence(fields))
    }

    /// inhibitAnyPolicy with `skipCerts` (critical by default, as RFC 5280 §4.2.1.14 requires).
    public static func inhibitAnyPolicy(_ skipCerts: Int, critical: Bool = true) -> RawExtension {
        RawExtension(oid: PolicyOID.inhibitAnyPolicy, isCritical: critical, valueDER: DER.integer(skipCerts))
    }
}
