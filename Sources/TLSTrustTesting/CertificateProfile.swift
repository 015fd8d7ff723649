import Foundation
import TLSTrust

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
        return keyAlgorithm == .rsa2048 ? [.digitalSignature, .keyEncipherment] : [.digitalSignature]
    }
}
