import TLSTrustCore

/// The scope fields of CRLs and distribution points (RFC 5280 §4.2.1.13, §5.2.5), to write into
/// certificates and CRLs at test time: distribution point names in full or relative to the CRL
/// issuer, reason partitions, cRLIssuer for indirect CRLs. Used by the revocation tests and by
/// anyone who needs CRLs of every scope (the differential tester).
///
/// ```swift
/// // A certificate whose CRL partition is "OU=part 2" under its issuer's name, keyCompromise only:
/// profile.extensions.append(.crlDistributionPoints([
///     TestDistributionPoint(name: .relativeToCRLIssuer([.organizationalUnit("part 2")]), reasons: [.keyCompromise]),
/// ]))
/// // The CRL for that partition:
/// builder.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer([.organizationalUnit("part 2")]),
///                                          reasons: [.keyCompromise])
/// ```

/// `ReasonFlags` (RFC 5280 §4.2.1.13): bit n is `1 << n`.
public struct TestReasonFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let unused = Self(rawValue: 1 << 0)
    public static let keyCompromise = Self(rawValue: 1 << 1)
    public static let cACompromise = Self(rawValue: 1 << 2)
    public static let affiliationChanged = Self(rawValue: 1 << 3)
    public static let superseded = Self(rawValue: 1 << 4)
    public static let cessationOfOperation = Self(rawValue: 1 << 5)
    public static let certificateHold = Self(rawValue: 1 << 6)
    public static let privilegeWithdrawn = Self(rawValue: 1 << 7)
    public static let aACompromise = Self(rawValue: 1 << 8)
    /// Every reason but `unused`.
    public static let allReasons = Self(rawValue: 0b1_1111_1110)

    /// The BIT STRING's contents, DER: the unused-bits count, then the bits with trailing zero
    /// bits dropped.
    public var bitStringContents: [UInt8] {
        guard rawValue != 0 else { return [0] }
        let highest = 15 - rawValue.leadingZeroBitCount
        let byteCount = highest / 8 + 1
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for bit in 0...highest where rawValue & (1 << bit) != 0 { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        return [UInt8(7 - highest % 8)] + bytes
    }
}

/// One DistributionPoint to write, every field a knob.
public struct TestDistributionPoint: Sendable, Hashable {
    /// `DistributionPointName`.
    public enum Name: Sendable, Hashable {
        /// `fullName [0] GeneralNames`.
        case fullName([TestGeneralName])
        /// `nameRelativeToCRLIssuer [1] RelativeDistinguishedName`: these attributes as one RDN,
        /// appended to the CRL issuer's name by a reader.
        case relativeToCRLIssuer([TestName.Attribute])

        /// `[tag] EXPLICIT DistributionPointName` — the wrapper both DistributionPoint and
        /// IssuingDistributionPoint use for their `[0]` field.
        public var explicitDER: [UInt8] {
            switch self {
            case .fullName(let names):
                DER.contextSpecific(0, constructed: true, DER.contextSpecific(0, constructed: true, names.flatMap(\.der)))
            case .relativeToCRLIssuer(let attributes):
                // [1] IMPLICIT SET OF AttributeTypeAndValue: the RDN's contents under tag [1].
                DER.contextSpecific(0, constructed: true, DER.contextSpecific(1, constructed: true, Array(Self.rdn(attributes).dropFirst(2))))
            }
        }

        /// The RDN's DER SET (short form length: RDNs in tests are small).
        static func rdn(_ attributes: [TestName.Attribute]) -> [UInt8] {
            let der = TestName(relativeDistinguishedNames: [attributes]).der
            // The Name is SEQUENCE { SET {…} }: take the SET.
            return Array(der.dropFirst(2))
        }
    }

    public var name: Name?
    /// `reasons`; nil leaves the field out (all reasons).
    public var reasons: TestReasonFlags?
    /// `cRLIssuer`; empty leaves the field out (the certificate's issuer issues the CRL).
    public var crlIssuer: [TestGeneralName]

    public init(name: Name?, reasons: TestReasonFlags? = nil, crlIssuer: [TestGeneralName] = []) {
        self.name = name
        self.reasons = reasons
        self.crlIssuer = crlIssuer
    }

    /// A point with one fullName URI.
    public static func uri(_ url: String, reasons: TestReasonFlags? = nil, crlIssuer: [TestGeneralName] = []) -> Self {
        Self(name: .fullName([.uri(url)]), reasons: reasons, crlIssuer: crlIssuer)
    }

    /// The DER `DistributionPoint`.
    public var der: [UInt8] {
        var fields: [[UInt8]] = []
        if let name { fields.append(name.explicitDER) }
        if let reasons { fields.append(DER.contextSpecific(1, constructed: false, reasons.bitStringContents)) }
        if !crlIssuer.isEmpty { fields.append(DER.contextSpecific(2, constructed: true, crlIssuer.flatMap(\.der))) }
        return DER.sequence(fields)
    }
}

extension RawExtension {
    /// cRLDistributionPoints with these points, in order.
    public static func crlDistributionPoints(_ points: [TestDistributionPoint], critical: Bool = false) -> RawExtension {
        RawExtension(oid: OID.crlDistributionPoints, isCritical: critical, valueDER: DER.sequence(points.map(\.der)))
    }
}

extension CertificateProfile {
    /// A separate CRL-signing certificate for the CA named `commonName` (and `organization`):
    /// the same subject as the CA, its own key, `CA:FALSE`, keyUsage cRLSign only — issued by
    /// the CA (or by its issuer, as a CA may arrange), RFC 5280 §6.3.3 (f)'s "CRL issuer".
    public static func crlSigner(forCA commonName: String, organization: String? = "TLSTrust Test PKI",
                                 keyUsage: KeyUsage = [.cRLSign]) -> CertificateProfile {
        CertificateProfile(commonName: commonName, organization: organization, isCA: false, keyUsage: keyUsage)
    }
}

extension CRLBuilder {
    /// A delta CRL (RFC 5280 §5.2.4) of `issuer` over the complete CRL numbered `base`, itself
    /// numbered `number` (above `base`), listing `entries`.
    public static func delta(issuer: TestCertificate, base: Int, number: Int, entries: [Entry]) throws -> CRLBuilder {
        var builder = try CRLBuilder(issuer: issuer)
        builder.crlNumber = number
        builder.deltaCRLIndicator = base
        builder.entries = entries
        return builder
    }
}

extension CRLBuilder {
    /// Several CRLs as one PEM file (`-----BEGIN X509 CRL-----` blocks in order), as a
    /// distribution point may serve them.
    public static func pem(_ crls: [[UInt8]]) -> [UInt8] {
        Array(crls.map { pemEncode($0, label: "X509 CRL") }.joined().utf8)
    }
}
