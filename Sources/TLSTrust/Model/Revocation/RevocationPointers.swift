/// Where a certificate says its revocation status can be found: its OCSP responders
/// (authorityInfoAccess, RFC 5280 §4.2.2.1) and its CRL distribution points (§4.2.1.13).
///
/// Read by the certificate parser; used by the engine to match a CRL's issuingDistributionPoint
/// and, only when the app allows network access, to fetch.
public struct RevocationPointers: Sendable, Hashable {
    /// One DistributionPoint.
    public struct DistributionPoint: Sendable, Hashable {
        /// The fullName GeneralNames, when the point is named that way.
        public let fullName: [GeneralName]
        /// Whether the point is named relative to the CRL issuer (not matched by the engine).
        public let isRelativeName: Bool
        /// Whether the point limits the reasons its CRL covers (a partitioned CRL).
        public let hasReasons: Bool
        /// Whether another authority issues its CRL (an indirect CRL).
        public let hasCRLIssuer: Bool

        /// The HTTP URLs among the full names.
        public var httpURLs: [String] {
            fullName.compactMap {
                if case .uniformResourceIdentifier(let uri) = $0, uri.lowercased().hasPrefix("http://") { return uri }
                return nil
            }
        }
    }

    /// OCSP responder URIs (id-ad-ocsp), in order.
    public var ocspResponders: [String] = []
    /// CA-issuer URIs (id-ad-caIssuers), in order.
    public var caIssuers: [String] = []
    /// cRLDistributionPoints, in order.
    public var crlDistributionPoints: [DistributionPoint] = []

    /// Reads `AuthorityInfoAccessSyntax`.
    mutating func parseAuthorityInfoAccess(_ der: [UInt8], _ node: DERNode) throws {
        var aia = DERReader(der, contentsOf: node)
        guard !aia.isAtEnd else { throw DERError(description: "empty authorityInfoAccess") }
        while !aia.isAtEnd {
            var d = DERReader(der, contentsOf: try aia.read(DERTag.sequence, "AccessDescription"))
            let method = try d.read(DERTag.objectIdentifier, "accessMethod").objectIdentifier(in: der)
            let location = try GeneralName.parse(der, try d.readAny())
            guard d.isAtEnd else { throw DERError(description: "trailing data in AccessDescription") }
            guard case .uniformResourceIdentifier(let uri) = location else { continue }
            switch method {
            case RevocationOID.accessOCSP: ocspResponders.append(uri)
            case RevocationOID.accessCAIssuers: caIssuers.append(uri)
            default: continue
            }
        }
    }

    /// Reads `CRLDistributionPoints ::= SEQUENCE SIZE (1..MAX) OF DistributionPoint`.
    mutating func parseCRLDistributionPoints(_ der: [UInt8], _ node: DERNode) throws {
        var r = DERReader(der, contentsOf: node)
        guard !r.isAtEnd else { throw DERError(description: "empty cRLDistributionPoints") }
        while !r.isAtEnd {
            var p = DERReader(der, contentsOf: try r.read(DERTag.sequence, "DistributionPoint"))
            var name: (full: [GeneralName], relative: Bool) = ([], false)
            if let explicit = try p.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                name = try Self.distributionPointName(der, explicit)
            }
            let reasons = try p.readOptional(DERTag.contextSpecific(1, constructed: false)) != nil
            let issuer = try p.readOptional(DERTag.contextSpecific(2, constructed: true)) != nil
            guard p.isAtEnd else { throw DERError(description: "extra fields in DistributionPoint") }
            guard !name.full.isEmpty || name.relative || issuer else {
                throw DERError(description: "a DistributionPoint with neither a name nor a cRLIssuer")
            }
            crlDistributionPoints.append(DistributionPoint(fullName: name.full, isRelativeName: name.relative,
                                                           hasReasons: reasons, hasCRLIssuer: issuer))
        }
    }

    /// Reads the `[0] EXPLICIT DistributionPointName` wrapper's content: `fullName [0] IMPLICIT
    /// GeneralNames` or `nameRelativeToCRLIssuer [1] IMPLICIT RelativeDistinguishedName`.
    static func distributionPointName(_ der: [UInt8], _ explicit: DERNode) throws -> (full: [GeneralName], relative: Bool) {
        var n = DERReader(der, contentsOf: explicit)
        let choice = try n.readAny()
        guard n.isAtEnd else { throw DERError(description: "extra bytes in DistributionPointName") }
        switch choice.identifier {
        case DERTag.contextSpecific(0, constructed: true):
            let names = try GeneralName.parseSequence(der, choice)
            guard !names.isEmpty else { throw DERError(description: "empty fullName") }
            return (names, false)
        case DERTag.contextSpecific(1, constructed: true):
            return ([], true)
        default:
            throw DERError(description: "unknown DistributionPointName")
        }
    }
}
