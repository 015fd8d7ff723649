/// An X.509 v3 extension given as OID, criticality and the DER of its value: the factory's
/// escape hatch for any extension it has no dedicated knob for.
///
/// A profile's `extensions` are written after the ones the factory derives; one whose OID the
/// factory also writes (basicConstraints, subjectKeyIdentifier, …) replaces it in place, so that
/// a test can override any single extension without losing the others.
///
/// ```swift
/// profile.extensions = [.unknownCritical]                                      // must be refused
/// profile.extensions = [RawExtension(oid: RawExtension.OID.basicConstraints,   // cA:TRUE, not critical
///                                    isCritical: false, valueDER: DER.sequence([DER.boolean(true)]))]
/// ```
public struct RawExtension: Sendable, Hashable {
    /// The extension's dotted OID.
    public var oid: String
    public var isCritical: Bool
    /// The DER that goes inside `extnValue`'s OCTET STRING.
    public var valueDER: [UInt8]

    public init(oid: String, isCritical: Bool, valueDER: [UInt8]) {
        self.oid = oid
        self.isCritical = isCritical
        self.valueDER = valueDER
    }

    /// The same as `init(oid:isCritical:valueDER:)`, spelled as in the extension list of a profile.
    public static func `extension`(oid: String, critical: Bool, valueDER: [UInt8]) -> RawExtension {
        RawExtension(oid: oid, isCritical: critical, valueDER: valueDER)
    }

    /// OIDs of the extensions the factory writes itself (RFC 5280 §4.2.1).
    public enum OID {
        public static let subjectKeyIdentifier = "2.5.29.14"
        public static let keyUsage = "2.5.29.15"
        public static let subjectAltName = "2.5.29.17"
        public static let basicConstraints = "2.5.29.19"
        public static let nameConstraints = "2.5.29.30"
        public static let authorityKeyIdentifier = "2.5.29.35"
        public static let extendedKeyUsage = "2.5.29.37"
        /// An OID under a private-enterprise arc that no library knows, for "unknown extension" tests.
        public static let unknown = "1.3.6.1.4.1.55555.1.1"
    }

    /// A critical extension no verifier can understand, with a NULL value: RFC 5280 §4.2 requires
    /// the certificate to be rejected, in every profile.
    public static let unknownCritical = RawExtension(oid: OID.unknown, isCritical: true, valueDER: DER.null)

    /// A subjectAltName holding exactly `names`: none at all gives the empty `GeneralNames`
    /// SEQUENCE, which RFC 5280 forbids and validators must not read as "no SAN".
    public static func subjectAlternativeName(_ names: [TestGeneralName], critical: Bool = false) -> RawExtension {
        RawExtension(oid: OID.subjectAltName, isCritical: critical, valueDER: DER.sequence(names.map(\.der)))
    }

    /// basicConstraints with the given criticality (RFC 5280 requires it critical in CAs).
    public static func basicConstraints(isCA: Bool, pathLength: Int? = nil, critical: Bool) -> RawExtension {
        let fields = (isCA ? [DER.boolean(true)] : []) + (pathLength.map { [DER.integer($0)] } ?? [])
        return RawExtension(oid: OID.basicConstraints, isCritical: critical, valueDER: DER.sequence(fields))
    }

    /// subjectKeyIdentifier with an arbitrary value.
    public static func subjectKeyIdentifier(_ identifier: [UInt8]) -> RawExtension {
        RawExtension(oid: OID.subjectKeyIdentifier, isCritical: false, valueDER: DER.octetString(identifier))
    }

    /// authorityKeyIdentifier naming `keyIdentifier` (`[0]` keyIdentifier only), whatever the
    /// issuer's real subjectKeyIdentifier is.
    public static func authorityKeyIdentifier(_ keyIdentifier: [UInt8]) -> RawExtension {
        RawExtension(oid: OID.authorityKeyIdentifier, isCritical: false,
                     valueDER: DER.sequence([DER.contextSpecific(0, constructed: false, keyIdentifier)]))
    }
}
