/// The certificate extensions the parser and the engine know, and which of them the engine
/// processes when critical. The parser and the engine name extensions only through these.
enum ExtensionOID {
    static let subjectKeyIdentifier = "2.5.29.14"
    static let keyUsage = "2.5.29.15"
    static let subjectAltName = "2.5.29.17"
    static let basicConstraints = "2.5.29.19"
    static let nameConstraints = "2.5.29.30"
    static let certificatePolicies = "2.5.29.32"
    static let policyMappings = "2.5.29.33"
    static let authorityKeyIdentifier = "2.5.29.35"
    static let policyConstraints = "2.5.29.36"
    static let extendedKeyUsage = "2.5.29.37"
    static let inhibitAnyPolicy = "2.5.29.54"
    /// authorityInfoAccess (RFC 5280 §4.2.2.1): read for well-formedness only, so not in ``processed``.
    static let authorityInfoAccess = "1.3.6.1.5.5.7.1.1"
    /// cRLDistributionPoints (RFC 5280 §4.2.1.13): read for the engine's CRL matching and for
    /// fetching; not in ``processed`` (it should never be critical, and a critical one is refused).
    static let crlDistributionPoints = RevocationOID.crlDistributionPoints
    /// id-pkix-ocsp-nocheck (RFC 6960 §4.2.2.2.1), on delegated OCSP responders.
    static let ocspNoCheck = RevocationOID.ocspNoCheck

    /// The last arc n of an id-ce extension OID (2.5.29.n, n < 128: DER `55 1D n`), read from its
    /// encoding, or nil for any other OID. The certificate parser dispatches on this number, and
    /// the extension reader finds duplicates with it, without comparing dotted strings.
    static func idCENumber(_ der: [UInt8], _ node: DERNode) -> UInt8? {
        let c = node.contents
        guard c.count == 3, der[c.lowerBound] == 0x55, der[c.lowerBound + 1] == 0x1D, der[c.lowerBound + 2] < 0x80 else { return nil }
        return der[c.lowerBound + 2]
    }

    /// The id-ce numbers of the extensions above (2.5.29.n), read from their dotted constants, so
    /// that each extension is named once.
    enum IDCE {
        static let subjectKeyIdentifier = number(ExtensionOID.subjectKeyIdentifier)
        static let keyUsage = number(ExtensionOID.keyUsage)
        static let subjectAltName = number(ExtensionOID.subjectAltName)
        static let basicConstraints = number(ExtensionOID.basicConstraints)
        static let nameConstraints = number(ExtensionOID.nameConstraints)
        static let crlDistributionPoints = number(ExtensionOID.crlDistributionPoints)
        static let certificatePolicies = number(ExtensionOID.certificatePolicies)
        static let policyMappings = number(ExtensionOID.policyMappings)
        static let authorityKeyIdentifier = number(ExtensionOID.authorityKeyIdentifier)
        static let policyConstraints = number(ExtensionOID.policyConstraints)
        static let extendedKeyUsage = number(ExtensionOID.extendedKeyUsage)
        static let inhibitAnyPolicy = number(ExtensionOID.inhibitAnyPolicy)

        /// n of "2.5.29.n" (every constant above is one, with n < 128).
        private static func number(_ dotted: String) -> UInt8 {
            UInt8(dotted.dropFirst("2.5.29.".count))!
        }
    }

    /// Extensions the engine processes, so their criticality does not make a certificate
    /// unusable. The four policy extensions are processed by ``PolicyGraph`` (RFC 5280 §6.1 with
    /// RFC 9618's policy graph) on every path, whatever the caller's policy inputs.
    /// AKI and SKI are listed because they are processed; they must not be critical anyway
    /// (``StructuralRules``).
    static let processed: Set<String> = [
        subjectKeyIdentifier, keyUsage, subjectAltName, basicConstraints, nameConstraints,
        certificatePolicies, policyMappings, authorityKeyIdentifier, policyConstraints,
        extendedKeyUsage, inhibitAnyPolicy,
    ]
}
