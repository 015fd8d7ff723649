import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// RFC 5280 §6.3.3 (f): a CRL signed by another certificate of the issuer's name — a separate
/// CRL-signing key, or the key after a rollover — is believed only when that certificate asserts
/// cRLSign and its own path validates to the same anchor, built and validated by the engine.
@Suite("Engine: revocation — CRLs signed by a separate CRL signer")
struct CRLSignerTests {
    let f: RevocationFixture
    init() throws { f = try RevocationFixture() }

    /// A CRL with the intermediate's name, signed by `signer`'s key.
    func crl(signedBy signer: TestCertificate, revoking entries: [CRLBuilder.Entry] = []) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: signer)
        builder.issuerName = try f.intermediate.subjectNameDER
        builder.entries = entries
        return try builder.build()
    }

    func trust(_ policy: RevocationPolicy, crls: [[UInt8]], extra: [TestCertificate]) throws -> Trust {
        var trust = try f.trust(policy, crls: crls)
        trust.certificates += extra.map(\.certificate)
        return trust
    }

    @Test("A CRL signer certified by the root, with cRLSign: its CRL answers, good and revoked")
    func separateSigner() throws {
        let signer = try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName), issuer: f.root)
        #expect(signer.certificate.subject == f.intermediate.certificate.subject)
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: signer)], extra: [signer]), .trusted)
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: signer, revoking: [.init(f.leaf)])], extra: [signer]),
                     .refused(.revoked))
    }

    @Test("A CRL signer certified by the CA itself: its path runs through the CA; whole-chain hard-fail still answers for both")
    func signerIssuedByTheCA() throws {
        let signer = try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName), issuer: f.intermediate)
        let rootCRL = try f.intermediateCRL()
        expectEngine(try trust(RevocationFixture.hard, crls: [try crl(signedBy: signer), rootCRL], extra: [signer]), .trusted)
        expectEngine(try trust(RevocationFixture.hard, crls: [try crl(signedBy: signer, revoking: [.init(f.leaf)]), rootCRL], extra: [signer]),
                     .refused(.revoked))
        let revokedCA = try f.intermediateCRL(revoking: [.init(f.intermediate)])
        expectEngine(try trust(RevocationFixture.hard, crls: [try crl(signedBy: signer), revokedCA], extra: [signer]), .refused(.revoked),
                     "the CA is revoked: the path is refused whatever its signer says")
    }

    @Test("After a key rollover, the CA's new certificate signs the CRL")
    func keyRollover() throws {
        let rolled = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: f.root)
        let t = try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: rolled, revoking: [.init(f.leaf)])], extra: [rolled])
        expectEngine(t, .refused(.revoked), "\(t.evaluate(using: TestBackends.all[0]).revocation)")
    }

    @Test("A CRL whose signer is not at hand, lacks cRLSign, chains to another anchor or is revoked is not believed")
    func unbelievedSigners() throws {
        let signer = try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName), issuer: f.root)
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: signer)], extra: []),
                     .refused(.revocationStatusUnknown), "no certificate of the signer is at hand")

        let noCRLSign = try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName, keyUsage: [.digitalSignature]), issuer: f.root)
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: noCRLSign)], extra: [noCRLSign]),
                     .refused(.revocationStatusUnknown), "keyUsage without cRLSign")

        let otherRoot = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let foreign = try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName), issuer: otherRoot)
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: foreign)], extra: [foreign, otherRoot]),
                     .refused(.revocationStatusUnknown), "a signer whose path ends at another root")
        expectEngine(try trust(RevocationFixture.soft, crls: [try crl(signedBy: foreign, revoking: [.init(f.leaf)])], extra: [foreign, otherRoot]),
                     .trusted, "a foreign signer's 'revoked' is not believed either")

        var rootCRL = try CRLBuilder(issuer: f.root)
        rootCRL.entries = [.init(signer)]
        let revokedSigner = try trust(RevocationFixture.hardLeaf, crls: [try crl(signedBy: signer), try rootCRL.build()], extra: [signer])
        expectEngine(revokedSigner, .refused(.revocationStatusUnknown), "the CRL signer is itself revoked by the root")
        let detail = revokedSigner.evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
        #expect(detail.contains("revoked") || detail.contains("path"), "\(detail)")
    }

    @Test("A forged CRL with many would-be signers at hand costs a bounded number of checks and says nothing")
    func manyWouldBeSigners() throws {
        let signers = try (0..<12).map { _ in try TestPKI.issue(.crlSigner(forCA: TestHierarchy.intermediateName), issuer: f.root) }
        let forged = try crl(signedBy: f.leaf, revoking: [.init(f.leaf)])
        expectEngine(try trust(RevocationFixture.soft, crls: [forged], extra: signers), .trusted, "soft: no believable answer")
        expectEngine(try trust(RevocationFixture.hardLeaf, crls: [forged], extra: signers), .refused(.revocationStatusUnknown))
    }
}
