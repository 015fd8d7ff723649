import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("Evaluators: revocation against CRLs the app supplies")
struct EvaluatorRevocationTests {
    let w: EvaluatorWorld
    init() throws { w = try EvaluatorWorld() }
    var host: String { EvaluatorWorld.host }

    private func crl(_ issuer: TestCertificate, revoking: [TestCertificate] = [], thisUpdate: Date = Date(timeIntervalSinceNow: -3600),
                     nextUpdate: Date? = Date(timeIntervalSinceNow: 86400), signer: TestPrivateKey? = nil) throws -> CertificateRevocationList {
        try CertificateRevocationList(derEncoded: TestPKI.issueCRL(issuer: issuer, revoking: revoking, thisUpdate: thisUpdate,
                                                                   nextUpdate: nextUpdate, signer: signer))
    }

    @Test func crlsAreParsedStrictly() throws {
        let der = try TestPKI.issueCRL(issuer: w.real.intermediate, revoking: [w.real.leaf])
        let list = try CertificateRevocationList(derEncoded: der)
        #expect(list.issuer == w.real.intermediate.certificate.subject)
        #expect(list.entries.map(\.serialNumber) == [w.real.leaf.certificate.serialNumber])
        #expect(list.lists(w.real.leaf.certificate) && !list.lists(w.real.intermediate.certificate))
        #expect(list.isCurrent(at: Date()) && !list.isCurrent(at: Date(timeIntervalSinceNow: 30 * 86400)))
        let pem = "-----BEGIN X509 CRL-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters) + "\n-----END X509 CRL-----\n"
        #expect(try CertificateRevocationList.crls(pemOrDER: Array(pem.utf8)) == [list])
        #expect(try CertificateRevocationList.crls(pemOrDER: der) == [list])
        #expect(throws: TLSTrustError.self) { try CertificateRevocationList(derEncoded: Array(der.dropLast())) }
        #expect(throws: TLSTrustError.self) { try CertificateRevocationList(derEncoded: w.real.leaf.der) }
        #expect(throws: TLSTrustError.self) { try CertificateRevocationList.crls(pemOrDER: Array(w.real.leaf.pem.utf8)) }
    }

    @Test(arguments: TestBackends.names)
    func aChainNoCurrentCRLListsIsAccepted(_ name: String) throws {
        let backend = TestBackends.named(name)
        let evaluator: any ServerTrustEvaluating = .revocationChecking([try crl(w.real.intermediate), try crl(w.real.root)])
        let decision = try evaluator.evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        #expect(decision.reason.contains("2 of 2"))
        #expect(decision.validatedChain?.count == 3)
        // A chain that does not validate is refused before any CRL is read.
        expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust(w.app.chain), forHost: host, using: backend) }
        expectRefusal(.hostValidationFailed) { try evaluator.evaluate(w.trust(w.real.chain), forHost: "x.example.org", using: backend) }
    }

    @Test(arguments: TestBackends.names)
    func aRevokedLeafOrIntermediateIsRefused(_ name: String) throws {
        let backend = TestBackends.named(name)
        let leafRevoked = [try crl(w.real.intermediate, revoking: [w.real.leaf]), try crl(w.real.root)]
        let e = expectRefusal(.revocationCheckFailed) {
            try RevocationTrustEvaluator(crls: leafRevoked).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        }
        #expect(e?.message.contains("index 0") == true && e?.message.contains("revoked") == true)
        #expect(e?.builtChain.count == 3)

        let intermediateRevoked = [try crl(w.real.intermediate), try crl(w.real.root, revoking: [w.real.intermediate])]
        expectRefusal(.revocationCheckFailed) {
            try RevocationTrustEvaluator(crls: intermediateRevoked).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        }
        _ = try RevocationTrustEvaluator(crls: intermediateRevoked, scope: .leafOnly).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
    }

    @Test(arguments: TestBackends.names)
    func aMissingStaleOrForgedCRLLeavesTheStatusUnknown(_ name: String) throws {
        let backend = TestBackends.named(name)
        let rootCRL = try crl(w.real.root)
        let cases: [(String, CertificateRevocationList?)] = [
            ("missing", nil),
            ("stale", try crl(w.real.intermediate, thisUpdate: Date(timeIntervalSinceNow: -10 * 86400), nextUpdate: Date(timeIntervalSinceNow: -86400))),
            ("not yet issued", try crl(w.real.intermediate, thisUpdate: Date(timeIntervalSinceNow: 86400), nextUpdate: Date(timeIntervalSinceNow: 2 * 86400))),
            // Signed by another key: it may neither revoke nor vouch.
            ("forged", try crl(w.real.intermediate, revoking: [w.real.leaf], signer: w.rogue.intermediate.privateKey)),
            // The rogue CA's CRL has another issuer name.
            ("other issuer", try crl(w.rogue.intermediate, revoking: [w.real.leaf])),
        ]
        for (label, leafCRL) in cases {
            let crls = [rootCRL] + (leafCRL.map { [$0] } ?? [])
            let e = expectRefusal(.revocationCheckFailed) {
                try RevocationTrustEvaluator(crls: crls).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
            }
            #expect(e?.message.contains("unknown") == true, "\(label): \(e?.message ?? "")")
            let lenient = try RevocationTrustEvaluator(crls: crls, requiresCRL: false).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
            #expect(lenient.reason.contains("1 of 2"), "\(label)")
        }
    }

    @Test(arguments: TestBackends.names)
    func theVerificationDateOfTheTrustDecidesWhichCRLsAreCurrent(_ name: String) throws {
        let backend = TestBackends.named(name)
        let crls = [try crl(w.real.intermediate, revoking: [w.real.leaf], thisUpdate: Date(timeIntervalSinceNow: -60),
                            nextUpdate: Date(timeIntervalSinceNow: 2 * 86400)), try crl(w.real.root)]
        var trust = w.trust(w.real.chain)
        trust.verificationDate = Date(timeIntervalSinceNow: -1800)  // before the leaf was revoked: no current CRL
        expectRefusal(.revocationCheckFailed) { try RevocationTrustEvaluator(crls: crls).evaluate(trust, forHost: host, using: backend) }
        _ = try RevocationTrustEvaluator(crls: crls, requiresCRL: false).evaluate(trust, forHost: host, using: backend)
        trust.verificationDate = nil
        expectRefusal(.revocationCheckFailed) { try RevocationTrustEvaluator(crls: crls, requiresCRL: false).evaluate(trust, forHost: host, using: backend) }
    }

    @Test(arguments: TestBackends.names)
    func aSelfSignedAnchorHasNothingToCheck(_ name: String) throws {
        let trust = Trust(certificates: [w.selfSigned.certificate], anchors: .only([w.selfSigned.certificate]))
        let decision = try RevocationTrustEvaluator(crls: []).evaluate(trust, forHost: host, using: TestBackends.named(name))
        #expect(decision.reason.contains("0 of 0"))
    }
}
