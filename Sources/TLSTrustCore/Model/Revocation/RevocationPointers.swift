/// Where a certificate says its revocation status can be found: its OCSP responders
/// (authorityInfoAccess, RFC 5280 §4.2.2.1) and its CRL distribution points (§4.2.1.13).
///
/// Read by the certificate parser; used by the engine to match a CRL's issuingDistributionPoint
/// and, only when the app allows network access, to fetch.
public struct RevocationPointers: Sendable, Hashable {
    /// One DistributionPoint: where a CRL is found (its name), which reasons that CRL covers,
    /// and who issues it when not the certificate's issuer (RFC 5280 §4.2.1.13). Each field is
    /// honoured when a CRL is judged (§6.3.3 (b), (d)).
    public struct DistributionPoint: Sendable, Hashable {
        /// `distributionPoint`, when present.
        public let name: DistributionPointName?
        /// `reasons`: the reasons its CRL covers; nil means all of them.
        public let reasons: ReasonFlags?
        /// `cRLIssuer`: who issues its CRL (an indirect CRL); empty when the certificate's issuer does.
        public let crlIssuer: [GeneralName]

        public init(name: DistributionPointName?, reasons: ReasonFlags?, crlIssuer: [GeneralName]) {
            self.name = name
            self.reasons = reasons
            self.crlIssuer = crlIssuer
        }

        /// The fullName GeneralNames, when the point is named that way.
        public var fullName: [GeneralName] {
            if case .fullName(let names) = name { return names }
            return []
        }
        /// Whether the point is named relative to the CRL issuer.
        public var isRelativeName: Bool {
            if case .relativeToCRLIssuer = name { return true }
            return false
        }
        /// Whether the point limits the reasons its CRL covers (a partitioned CRL).
        public var hasReasons: Bool { reasons != nil }
        /// Whether another authority issues its CRL (an indirect CRL).
        public var hasCRLIssuer: Bool { !crlIssuer.isEmpty }

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
            var name: DistributionPointName?
            if let explicit = try p.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                name = try DistributionPointName.read(der, explicit)
            }
            let reasons = try p.readOptional(DERTag.contextSpecific(1, constructed: false)).map { try ReasonFlags.read(der, $0) }
            let issuer = try p.readOptional(DERTag.contextSpecific(2, constructed: true)).map { try GeneralName.parseSequence(der, $0) } ?? []
            guard p.isAtEnd else { throw DERError(description: "extra fields in DistributionPoint") }
            guard name != nil || !issuer.isEmpty else {
                throw DERError(description: "a DistributionPoint with neither a name nor a cRLIssuer")
            }
            crlDistributionPoints.append(DistributionPoint(name: name, reasons: reasons, crlIssuer: issuer))
        }
    }
}
