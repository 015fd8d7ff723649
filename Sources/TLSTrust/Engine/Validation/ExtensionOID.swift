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
