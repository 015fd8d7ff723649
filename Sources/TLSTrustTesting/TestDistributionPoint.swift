/// A `DistributionPointName` (RFC 5280 §4.2.1.13): where a CRL is found, as a full name or as a
/// name relative to the CRL issuer. Used by cRLDistributionPoints in a certificate and by the
/// issuingDistributionPoint of a CRL, so that a test can mint both sides of the scope check of
/// RFC 5280 §6.3.3 (b) — including the forms verifiers are known to skip.
public enum TestDistributionPointName: Sendable, Hashable {
    /// `fullName [0] GeneralNames`, usually one URI.
    case fullName([TestGeneralName])
    /// `nameRelativeToCRLIssuer [1] RelativeDistinguishedName`: the attributes appended to the CRL
    /// issuer's name to form the distribution point's directoryName.
    case nameRelativeToCRLIssuer([TestName.Attribute])

    /// The CHOICE as it appears inside `distributionPoint [0]` (IMPLICIT tags, as RFC 5280's module).
    public var der: [UInt8] {
        switch self {
        case .fullName(let names):
            DER.contextSpecific(0, constructed: true, names.flatMap(\.der))
        case .nameRelativeToCRLIssuer(let attributes):
            DER.contextSpecific(1, constructed: true, attributes.flatMap { attribute in
                DER.sequence([DER.objectIdentifier(attribute.oid), DER.tlv(attribute.stringType.tag, attribute.value)])
            })
        }
    }
}

/// One `DistributionPoint` of a certificate's cRLDistributionPoints (RFC 5280 §4.2.1.13): the
/// point's name, the revocation reasons its CRLs cover, and the CRL issuer when it is not the
/// certificate's issuer (an indirect CRL). Every field may be left out, as the syntax allows,
/// so that a test can also mint what RFC 5280 forbids (a point with neither name nor issuer).
public struct TestDistributionPoint: Sendable, Hashable {
    public var name: TestDistributionPointName?
    /// `reasons` as the ReasonFlags BIT STRING's bytes (`[0x40]` = keyCompromise), nil for none.
    public var reasons: [UInt8]?
    /// `cRLIssuer`, nil for none.
    public var crlIssuer: [TestGeneralName]?

    public init(name: TestDistributionPointName? = nil, reasons: [UInt8]? = nil, crlIssuer: [TestGeneralName]? = nil) {
        self.name = name
        self.reasons = reasons
        self.crlIssuer = crlIssuer
    }

    /// A point named by one URI, with no reasons and no CRL issuer: the common shape.
    public static func uri(_ uri: String) -> TestDistributionPoint {
        TestDistributionPoint(name: .fullName([.uri(uri)]))
    }

    /// The `DistributionPoint` SEQUENCE.
    public var der: [UInt8] {
        var fields: [[UInt8]] = []
        if let name { fields.append(DER.contextSpecific(0, constructed: true, name.der)) }
        if let reasons { fields.append(DER.contextSpecific(1, constructed: false, [0] + reasons)) }
        if let crlIssuer { fields.append(DER.contextSpecific(2, constructed: true, crlIssuer.flatMap(\.der))) }
        return DER.sequence(fields)
    }
}

extension RawExtension {
    /// cRLDistributionPoints with the given points in order, each written as asked (see
    /// ``TestDistributionPoint``); ``crlDistributionPoints(_:critical:)`` with URLs is the short form.
    public static func crlDistributionPoints(_ points: [TestDistributionPoint], critical: Bool = false) -> RawExtension {
        RawExtension(oid: OID.crlDistributionPoints, isCritical: critical, valueDER: DER.sequence(points.map(\.der)))
    }
}
