import Foundation
import TLSTrustCore

/// Everything about a certificate to mint, with defaults that give an ordinary, currently valid
/// certificate, so that each test states only the one property it is about.
///
/// Dates are absolute `Date`s, computed relative to "now" when the profile is created: nothing is
/// ever frozen into a committed certificate that would silently expire.
public struct CertificateProfile: Sendable, Hashable {
    /// Subject common name (CN).
    public var commonName: String
    /// Subject organization (O); `nil` leaves it out.
    public var organization: String?
    /// The algorithm of the certificate's own (subject) key.
    public var keyAlgorithm: TestKeyAlgorithm
    /// Start of the validity period.
    public var notBefore: Date
    /// End of the validity period.
    public var notAfter: Date
    /// `basicConstraints`: `true` → critical `CA:TRUE`, `false` → critical `CA:FALSE`,
    /// `nil` → no basicConstraints extension at all (a v1-style "is this a CA?" ambiguity that
    /// validators must treat as not-a-CA).
    public var isCA: Bool?
    /// `pathLenConstraint` of basicConstraints; only written when `isCA == true`.
    public var pathLengthConstraint: Int?
    /// `keyUsage` (critical). `nil` derives it: CAs get `keyCertSign, cRLSign`; other certificates
    /// get `digitalSignature`, plus `keyEncipherment` for RSA keys (RSA key transport; RFC 8813
    /// and RFC 8410 forbid it for EC and Ed25519 keys). An empty set omits the extension.
    public var keyUsage: KeyUsage?
    /// `extendedKeyUsage` (non-critical); `nil` omits the extension.
    public var extendedKeyUsage: [ExtendedKeyUsage]?
    /// DNS names for `subjectAltName`, wildcards (`*.example.com`) allowed.
    public var dnsNames: [String]
    /// IPv4 or IPv6 addresses in text form (`127.0.0.1`, `::1`) for `subjectAltName`.
    public var ipAddresses: [String]
    /// `nameConstraints` permitted DNS subtrees (critical extension when either list is non-empty).
    public var permittedDNSSubtrees: [String]
    /// `nameConstraints` excluded DNS subtrees.
    public var excludedDNSSubtrees: [String]
    /// Big-endian serial number bytes; `nil` draws 16 random bytes (positive, non-zero).
    public var serialNumber: [UInt8]?
    /// Writes `subjectKeyIdentifier` (hash of the key) and, when issued by another certificate,
    /// `authorityKeyIdentifier`. Turning it off makes chain building rely on names alone.
    public var includesKeyIdentifiers: Bool
    /// Overrides the `subjectKeyIdentifier` value (for an impostor that claims to be another CA).
    public var subjectKeyIdentifierOverride: [UInt8]?
    /// Digest the issuer signs with. Ignored when the issuer's key is Ed25519.
    public var signatureDigest: SignatureDigest

    // MARK: Attack shapes
    //
    // Everything below defaults to "not used", so that a profile states only what its test is
    // about. These knobs exist to mint what a validator must refuse, so none of them checks
    // its input for sense.

    /// The exact subject key type (RSA of any size, P-521, …); overrides `keyAlgorithm` when set.
    public var keyType: TestKeyType? = nil
    /// The subject name, written byte for byte; replaces `commonName` and `organization` when set
    /// (`.empty` gives an empty subject).
    public var subject: TestName? = nil
    /// The issuer name to write instead of the issuing certificate's subject (an empty issuer,
    /// or a name that differs from the issuer's only in string type or case).
    public var issuerName: TestName? = nil
    /// More subjectAltName entries, of any type and with any bytes, written after `dnsNames` and
    /// `ipAddresses`. For an empty SAN extension use `RawExtension.subjectAlternativeName([])`.
    public var alternativeNames: [TestGeneralName] = []
    /// Name constraints of any type; `permittedDNSSubtrees` and `excludedDNSSubtrees` are written
    /// first in the same extension. Written when any subtree is given, critical unless
    /// `nameConstraints.isCritical` is false.
    public var nameConstraints = TestNameConstraints()
    /// Whether basicConstraints (when `isCA` is not nil) is marked critical. RFC 5280 requires it
    /// critical in CA certificates; the web PKI rejects a CA whose basicConstraints is not.
    public var basicConstraintsIsCritical = true
    /// Writes an authorityKeyIdentifier naming this key identifier instead of the issuer's real
    /// subjectKeyIdentifier: a certificate that claims another issuer than the one that signed it.
    public var authorityKeyIdentifierOverride: [UInt8]? = nil
    /// Extensions (by OID, see `RawExtension.OID`) to leave out although the profile would write
    /// them, e.g. only the subjectKeyIdentifier of a CA, or only the authorityKeyIdentifier of a leaf.
    public var omittedExtensions: Set<String> = []
    /// Raw extensions: each replaces the derived extension with the same OID, in place, or is
    /// appended. The most general tool: any extension, critical or not, with any value.
    public var extensions: [RawExtension] = []
    /// How notBefore is written (default: as RFC 5280 requires); raw forms ignore `notBefore`.
    public var notBeforeEncoding: ValidityTimeEncoding = .rfc5280
    /// How notAfter is written (default: as RFC 5280 requires); raw forms ignore `notAfter`.
    public var notAfterEncoding: ValidityTimeEncoding = .rfc5280
    /// The X.509 version: 3 (default), or 1 for a certificate without extensions (a legacy root).
    public var version = 3

    /// Creates a profile. Every parameter but the name has a default: a non-CA ECDSA P-256
    /// certificate valid from one hour ago for 30 days, with no SAN and no extended key usage.
    public init(
        commonName: String,
        organization: String? = "TLSTrust Test PKI",
        keyAlgorithm: TestKeyAlgorithm = .ecdsaP256,
        notBefore: Date = Date(timeIntervalSinceNow: -3600),
        notAfter: Date = Date(timeIntervalSinceNow: 30 * 86400),
        isCA: Bool? = false,
        pathLengthConstraint: Int? = nil,
        keyUsage: KeyUsage? = nil,
        extendedKeyUsage: [ExtendedKeyUsage]? = nil,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        permittedDNSSubtrees: [String] = [],
        excludedDNSSubtrees: [String] = [],
        serialNumber: [UInt8]? = nil,
        includesKeyIdentifiers: Bool = true,
        subjectKeyIdentifierOverride: [UInt8]? = nil,
        signatureDigest: SignatureDigest = .sha256
    ) {
        self.commonName = commonName
        self.organization = organization
        self.keyAlgorithm = keyAlgorithm
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.pathLengthConstraint = pathLengthConstraint
        self.keyUsage = keyUsage
        self.extendedKeyUsage = extendedKeyUsage
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.permittedDNSSubtrees = permittedDNSSubtrees
        self.excludedDNSSubtrees = excludedDNSSubtrees
        self.serialNumber = serialNumber
        self.includesKeyIdentifiers = includesKeyIdentifiers
        self.subjectKeyIdentifierOverride = subjectKeyIdentifierOverride
        self.signatureDigest = signatureDigest
    }

    /// A CA profile (root or intermediate): `CA:TRUE`, optional path length, valid for 10 years.
    public static func certificateAuthority(
        commonName: String,
        keyAlgorithm: TestKeyAlgorithm = .ecdsaP256,
        pathLengthConstraint: Int? = nil
    ) -> CertificateProfile {
        CertificateProfile(
            commonName: commonName,
            keyAlgorithm: keyAlgorithm,
            notAfter: Date(timeIntervalSinceNow: 3650 * 86400),
            isCA: true,
            pathLengthConstraint: pathLengthConstraint
        )
    }

    /// A TLS end-entity profile: `CA:FALSE`, `serverAuth` + `clientAuth`, the given SANs.
    public static func leaf(
        commonName: String,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        keyAlgorithm: TestKeyAlgorithm = .ecdsaP256
    ) -> CertificateProfile {
        CertificateProfile(
            commonName: commonName,
            keyAlgorithm: keyAlgorithm,
            isCA: false,
            extendedKeyUsage: [.serverAuth, .clientAuth],
            dnsNames: dnsNames,
            ipAddresses: ipAddresses
        )
    }

    /// The key usage actually written, after applying the derivation rule of `keyUsage`.
    public var effectiveKeyUsage: KeyUsage {
        if let keyUsage { return keyUsage }
        if isCA == true { return [.keyCertSign, .cRLSign] }
        return effectiveKeyType.isRSA ? [.digitalSignature, .keyEncipherment] : [.digitalSignature]
    }

    /// The key type actually generated: `keyType` when set, else `keyAlgorithm`'s.
    public var effectiveKeyType: TestKeyType { keyType ?? keyAlgorithm.keyType }

    /// The nameConstraints actually written: the DNS subtree lists, then `nameConstraints`.
    public var effectiveNameConstraints: TestNameConstraints {
        TestNameConstraints(
            permitted: permittedDNSSubtrees.map { .dnsName($0) } + nameConstraints.permitted,
            excluded: excludedDNSSubtrees.map { .dnsName($0) } + nameConstraints.excluded,
            isCritical: nameConstraints.isCritical)
    }

    /// The subjectAltName entries actually written: `dnsNames`, `ipAddresses`, then `alternativeNames`.
    public var effectiveAlternativeNames: [TestGeneralName] {
        dnsNames.map { .dnsName($0) } + ipAddresses.map { .ipAddress($0) } + alternativeNames
    }
}
