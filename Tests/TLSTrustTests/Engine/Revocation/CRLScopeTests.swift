import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// RFC 5280 §6.3.3 (b), (d), (e), (k): a CRL answers only for the certificates its scope covers —
/// distribution point names full or relative to the CRL issuer, reasons partitions accumulated
/// into reasons_mask, cRLIssuer and indirect CRLs — on every backend. Each test tries to pass a
/// CRL of another scope off as the answer.
@Suite("Engine: revocation — CRL scope (distribution points, reasons, indirect CRLs)")
struct CRLScopeTests {
    static let partOne: [TestName.Attribute] = [.organizationalUnit("partition 1")]
    static let partTwo: [TestName.Attribute] = [.organizationalUnit("partition 2")]

    /// A hierarchy whose leaf names `points` in its cRLDistributionPoints.
    func fixture(_ points: [TestDistributionPoint]) throws -> RevocationFixture {
        try RevocationFixture(customizeLeaf: { $0.extensions.append(.crlDistributionPoints(points)) })
    }

    @Test("A distribution point named relative to the CRL issuer is answered only by the CRL of that partition")
    func relativeNames() throws {
        let f = try fixture([TestDistributionPoint(name: .relativeToCRLIssuer(Self.partOne))])
        let other = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer(Self.partTwo)) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [other]), .refused(.revocationStatusUnknown),
                     "another partition's CRL says nothing about this certificate")
        let own = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer(Self.partOne)) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [own]), .trusted)
        let revoking = try f.leafCRL(revoking: [.init(f.leaf)]) {
            $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer(Self.partOne))
        }
        expectEngine(try f.trust(RevocationFixture.soft, crls: [other, revoking]), .refused(.revoked))

        let viaURI = try f.leafCRL { $0.issuingDistributionPoint = .init(uris: ["http://crl.example/part1.crl"]) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [viaURI]), .refused(.revocationStatusUnknown),
                     "a URI-named partition is not the relative one")
        let evaluation = try f.trust(RevocationFixture.hardLeaf, crls: [other]).evaluate(using: TestBackends.all[0])
        #expect(evaluation.revocation.first?.status == .unknown)
    }

    @Test("An issuingDistributionPoint named relative to its issuer matches a certificate's full directoryName point")
    func relativeIDPMatchesFullPoint() throws {
        let base = try RevocationFixture()
        let issuerName = try DistinguishedName(derEncoded: base.intermediate.subjectNameDER)
        let rdns = issuerName.attributes.map { TestName.Attribute(oid: $0.oid, $0.value, as: .utf8String) }
        let fullDN = TestName(relativeDistinguishedNames: rdns.map { [$0] } + [Self.partOne])
        let f = try fixture([TestDistributionPoint(name: .fullName([.directoryName(fullDN)]))])
        let relative = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer(Self.partOne)) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [relative]), .trusted, "the same name, written two ways")
        let wrong = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer(Self.partTwo)) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [wrong]), .refused(.revocationStatusUnknown))
    }

    @Test("Reasons: CRLs partitioned by reason answer only together; a partition is never a full answer")
    func reasonPartitions() throws {
        let early: TestReasonFlags = [.keyCompromise, .cACompromise]
        let rest = TestReasonFlags.allReasons.subtracting(early)
        let f = try fixture([.uri("http://crl.example/a.crl", reasons: early), .uri("http://crl.example/b.crl", reasons: rest)])
        let a = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri("http://crl.example/a.crl")]), reasons: early) }
        let b = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri("http://crl.example/b.crl")]), reasons: rest) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [a]), .refused(.revocationStatusUnknown), "only two reasons are covered")
        expectEngine(try f.trust(RevocationFixture.soft, crls: [a]), .trusted, "soft: no full answer is tolerated")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [a, b]), .trusted, "together they cover every reason")
        let bRevoking = try f.leafCRL(revoking: [.init(f.leaf, reason: .superseded)]) {
            $0.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri("http://crl.example/b.crl")]), reasons: rest)
        }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [a, bRevoking]), .refused(.revoked))
        let record = try f.trust(RevocationFixture.hardLeaf, crls: [a]).evaluate(using: TestBackends.all[0]).revocation.first
        #expect(record?.detail.contains("keyCompromise") ?? false, "\(String(describing: record))")
    }

    @Test("Reasons: a CRL that claims every reason at a point limited to some covers only the point's reasons")
    func pointReasonsLimitTheCRL() throws {
        let f = try fixture([.uri("http://crl.example/a.crl", reasons: [.keyCompromise])])
        let claimsAll = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri("http://crl.example/a.crl")])) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [claimsAll]), .refused(.revocationStatusUnknown),
                     "the point says its CRL covers keyCompromise only")
        // A CRL of the issuer with no issuingDistributionPoint covers everything, at any point.
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try f.leafCRL()]), .trusted)
    }

    @Test("A certificate without distribution points is not answered by a partition named by URI")
    func noPointsMeansIssuerScope() throws {
        let f = try RevocationFixture()
        let partition = try f.leafCRL { $0.issuingDistributionPoint = .init(uris: ["http://crl.example/part.crl"]) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [partition]), .refused(.revocationStatusUnknown))
        let someReasons = try f.leafCRL { $0.issuingDistributionPoint = .init(distributionPoint: nil, reasons: [.keyCompromise]) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [someReasons]), .refused(.revocationStatusUnknown),
                     "a CRL of some reasons is no full answer")
    }

    @Test("Indirect CRLs: the point's cRLIssuer issues them, entries name their certificate issuer, and the flag is required")
    func indirectCRLs() throws {
        let base = try RevocationFixture()
        let rootDN = try DistinguishedName(derEncoded: base.root.subjectNameDER)
        let rootName = TestName(relativeDistinguishedNames: rootDN.attributes.map { [TestName.Attribute(oid: $0.oid, $0.value, as: .utf8String)] })
        let intermediateDN = try DistinguishedName(derEncoded: base.intermediate.subjectNameDER)
        let intermediateName = TestName(relativeDistinguishedNames:
            intermediateDN.attributes.map { [TestName.Attribute(oid: $0.oid, $0.value, as: .utf8String)] })
        let url = "http://crl.example/indirect.crl"
        let f = try fixture([.uri(url, crlIssuer: [.directoryName(rootName)])])
        func rootCRL(indirect: Bool, entries: [CRLBuilder.Entry]) throws -> [UInt8] {
            var builder = try CRLBuilder(issuer: f.root)
            builder.issuingDistributionPoint = .init(distributionPoint: .fullName([.uri(url)]), indirectCRL: indirect)
            builder.entries = entries
            return try builder.build()
        }
        let serial = f.leaf.certificate.serialNumber
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try rootCRL(indirect: true, entries: [])]), .trusted)
        let listed = CRLBuilder.Entry(serialNumber: serial, certificateIssuer: [.directoryName(intermediateName)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try rootCRL(indirect: true, entries: [listed])]), .refused(.revoked))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try rootCRL(indirect: false, entries: [])]),
                     .refused(.revocationStatusUnknown), "without indirectCRL the root's CRL is not the point's")
        // The same serial under the CRL issuer's own name is another certificate.
        let ownSerial = CRLBuilder.Entry(serialNumber: serial)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try rootCRL(indirect: true, entries: [ownSerial])]), .trusted)
        // certificateIssuer holds for the entries after it (§5.3.3).
        let other = CRLBuilder.Entry(serialNumber: [0x7A, 0x01], certificateIssuer: [.directoryName(intermediateName)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try rootCRL(indirect: true, entries: [other, ownSerial])]),
                     .refused(.revoked), "the leaf's serial follows an entry naming its issuer")
        // The issuer's own CRL is not the point's either: the point names the root as its CRL issuer.
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try f.leafCRL()]), .trusted,
                     "the fallback point (the issuer's own CRL, every reason) still answers")
    }

    @Test("A certificateIssuer entry in a CRL that is not indirect makes the CRL unusable")
    func certificateIssuerOutsideIndirectCRL() throws {
        let f = try RevocationFixture()
        let crl = try f.leafCRL(revoking: [.init(serialNumber: [0x55], certificateIssuer: [.dnsName("elsewhere.example")])])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [crl]), .refused(.revocationStatusUnknown))
        let detail = try f.trust(RevocationFixture.hardLeaf, crls: [crl]).evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
        #expect(detail.contains("certificateIssuer"), "\(detail)")
    }

    @Test("A CRL entry's serial is compared as an INTEGER: a non-minimal encoding still revokes")
    func serialByValue() throws {
        let f = try RevocationFixture(customizeLeaf: { $0.serialNumber = [0x10, 0x02] })
        let padded = try f.leafCRL(revoking: [.init(serialNumber: [0x00, 0x10, 0x02])])
        expectEngine(try f.trust(RevocationFixture.soft, crls: [padded]), .refused(.revoked), "00 10 02 is 0x1002")
        let twice = try f.leafCRL(revoking: [.init(serialNumber: [0x00, 0x00, 0x10, 0x02])])
        expectEngine(try f.trust(RevocationFixture.soft, crls: [twice]), .refused(.revoked))
        let otherValue = try f.leafCRL(revoking: [.init(serialNumber: [0x10, 0x02, 0x00])])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [otherValue]), .trusted, "0x100200 is another serial")
    }
}
