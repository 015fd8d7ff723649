import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Delta CRLs (RFC 5280 §5.2.4, §6.3.3 (c), (i)–(k)) on every backend: a delta that lists the
/// certificate revokes it; removeFromCRL lifts a hold only from a delta that matches its base;
/// a forged or mismatched delta changes nothing.
@Suite("Engine: revocation — delta CRLs")
struct DeltaCRLTests {
    let f: RevocationFixture
    init() throws { f = try RevocationFixture() }

    func base(number: Int = 10, revoking entries: [CRLBuilder.Entry] = []) throws -> [UInt8] {
        try f.leafCRL(revoking: entries) { $0.crlNumber = number }
    }

    func delta(base: Int = 10, number: Int = 11, _ entries: [CRLBuilder.Entry], _ customize: (inout CRLBuilder) -> Void = { _ in }) throws -> [UInt8] {
        var builder = try CRLBuilder.delta(issuer: f.intermediate, base: base, number: number, entries: entries)
        customize(&builder)
        return try builder.build()
    }

    @Test("A delta that lists the certificate revokes it over a base that does not")
    func deltaRevokes() throws {
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try base(), try delta([.init(f.leaf, reason: .keyCompromise)])]),
                     .refused(.revoked))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try delta([.init(f.leaf)])]), .refused(.revoked),
                     "the issuer's signed delta revokes even without its base at hand")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try base(), try delta([])]), .trusted)
        let evaluation = try f.trust(RevocationFixture.hardLeaf, crls: [try base(), try delta([.init(f.leaf)])]).evaluate(using: TestBackends.all[0])
        #expect(evaluation.revocation.first?.detail.contains("delta") ?? false, "\(evaluation.revocation)")
    }

    @Test("A delta superseded by a newer complete CRL does not revoke; a delta newer than a mismatched base still does")
    func supersededDelta() throws {
        let oldDelta = try delta(base: 10, number: 11, [.init(f.leaf, reason: .certificateHold)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try base(number: 12), oldDelta]), .trusted,
                     "complete CRL 12 is newer than delta 11: the hold was lifted")
        let forgedNewBase = try f.leafCRL { $0.crlNumber = 99; $0.signingKey = f.leaf.privateKey }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [forgedNewBase, oldDelta]), .refused(.revoked),
                     "a forged 'newer' complete CRL supersedes nothing")
    }

    @Test("A delta alone is no complete answer")
    func deltaAloneIsNoAnswer() throws {
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try delta([])]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.soft, crls: [try delta([])]), .trusted)
    }

    @Test("removeFromCRL in a matching delta lifts a hold; in a mismatched one it does not")
    func removeFromCRL() throws {
        let held = try base(revoking: [.init(f.leaf, reason: .certificateHold)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held]), .refused(.revoked), "on hold")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held, try delta([.init(f.leaf, reason: .removeFromCRL)])]), .trusted)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held, try delta(base: 11, number: 12, [.init(f.leaf, reason: .removeFromCRL)])]),
                     .refused(.revoked), "a delta over a newer base than the one at hand is not applied")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held, try delta(base: 5, number: 9, [.init(f.leaf, reason: .removeFromCRL)])]),
                     .refused(.revoked), "a delta older than the base is not applied")
        let otherScope = try delta([.init(f.leaf, reason: .removeFromCRL)]) { $0.issuingDistributionPoint = .init(onlyContainsUserCerts: true) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held, otherScope]), .refused(.revoked),
                     "a delta of another scope than its base is not applied (§6.3.3 (c)(2))")
        let forged = try delta([.init(f.leaf, reason: .removeFromCRL)]) { $0.signingKey = f.leaf.privateKey }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [held, forged]), .refused(.revoked), "a forged delta lifts nothing")
        let removeInBase = try base(revoking: [.init(f.leaf, reason: .removeFromCRL)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [removeInBase]), .refused(.revocationStatusUnknown),
                     "removeFromCRL in a complete CRL is refused, by name")
    }

    @Test("A forged or stale delta that lists the certificate does not revoke it; a good base still answers")
    func forgedDelta() throws {
        let forged = try delta([.init(f.leaf)]) { $0.signingKey = f.leaf.privateKey }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try base(), forged]), .trusted)
        let stale = try delta([.init(f.leaf)]) {
            $0.thisUpdate = Date(timeIntervalSinceNow: -10 * 86400)
            $0.nextUpdate = Date(timeIntervalSinceNow: -9 * 86400)
        }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try base(), stale]), .trusted)
    }
}
