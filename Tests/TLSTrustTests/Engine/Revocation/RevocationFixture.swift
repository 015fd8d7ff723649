import Foundation
import TLSTrust
import TLSTrustTesting

/// A root → intermediate → leaf hierarchy for revocation tests, with helpers that mint CRLs and
/// OCSP responses about it at test time, and build the `Trust` to evaluate.
struct RevocationFixture {
    let pki: TestHierarchy

    init(customizeIntermediate: (inout CertificateProfile) -> Void = { _ in },
         customizeLeaf: (inout CertificateProfile) -> Void = { _ in }) throws {
        pki = try TestHierarchy.make(customizeIntermediate: customizeIntermediate, customizeLeaf: customizeLeaf)
    }

    var leaf: TestCertificate { pki.leaf }
    var intermediate: TestCertificate { pki.intermediate }
    var root: TestCertificate { pki.root }

    /// The SSL server trust for www.example.com, anchored at the root, with `policy` and answers.
    func trust(_ policy: RevocationPolicy, crls: [[UInt8]] = [], ocsp: [[UInt8]] = [], stapled: [[UInt8]] = [],
               at date: Date? = nil) throws -> Trust {
        var trust = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.revocation = policy
        trust.crls = try crls.map { try CertificateRevocationList(derEncoded: $0) }
        trust.ocspResponses = ocsp
        trust.stapledOCSPResponses = stapled
        trust.verificationDate = date
        return trust
    }

    /// The intermediate's CRL (about the leaf), listing `revoked`.
    func leafCRL(revoking revoked: [CRLBuilder.Entry] = [], _ customize: (inout CRLBuilder) -> Void = { _ in }) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: intermediate)
        builder.entries = revoked
        customize(&builder)
        return try builder.build()
    }

    /// The root's CRL (about the intermediate), listing `revoked`.
    func intermediateCRL(revoking revoked: [CRLBuilder.Entry] = []) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: root)
        builder.entries = revoked
        return try builder.build()
    }

    /// An OCSP response about the leaf, signed by the intermediate unless `customize` changes it.
    func leafOCSP(_ status: OCSPResponseBuilder.CertStatus = .good, hash: OCSPResponseBuilder.CertIDHash = .sha1,
                  thisUpdate: Date = Date(timeIntervalSinceNow: -3600), nextUpdate: Date? = Date(timeIntervalSinceNow: 86400),
                  _ customize: (inout OCSPResponseBuilder) throws -> Void = { _ in }) throws -> [UInt8] {
        var builder = try OCSPResponseBuilder(signer: intermediate, responses: [
            .init(certID: try .init(certificate: leaf, issuer: intermediate, hash: hash), status: status,
                  thisUpdate: thisUpdate, nextUpdate: nextUpdate),
        ])
        try customize(&builder)
        return try builder.build()
    }

    /// Every certificate checked (leaf and intermediate).
    static let hard = RevocationPolicy(mode: .hard)
    static let soft = RevocationPolicy(mode: .soft)
    static let hardLeaf = RevocationPolicy(mode: .hard, scope: .leafOnly)
}
