import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Revocation inside path validation (issue 22): what answers the engine believes, what it
/// refuses, and how soft- and hard-fail judge the absence of an answer — on every backend.
@Suite("Engine: revocation — CRLs and OCSP in path validation")
struct EngineRevocationTests {
    let f: RevocationFixture

    init() throws { f = try RevocationFixture() }

    // MARK: Policy

    @Test("off: nothing consulted unless the app gives answers; soft: no answer is tolerated; hard: no answer is refused")
    func modes() throws {
        let revoking = try f.leafCRL(revoking: [.init(f.leaf)])
        expectEngine(try f.trust(.off), .trusted, "off, nothing given")
        expectEngine(try f.trust(.off, crls: [revoking]), .refused(.revoked), "an answer the app gave is never ignored: soft-fail")
        expectEngine(try f.trust(.off, stapled: [try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60)))]), .trusted,
                     "a staple alone does not turn revocation on")
        expectEngine(try f.trust(RevocationFixture.soft), .trusted, "soft with no answer")
        expectEngine(try f.trust(RevocationFixture.hard), .refused(.revocationStatusUnknown), "hard with no answer")
        expectEngine(try f.trust(RevocationFixture.soft, crls: [revoking]), .refused(.revoked))
    }

    @Test("Hard-fail needs an answer for every certificate but the anchor, or only the leaf with leafOnly")
    func hardFailScope() throws {
        let leafCRL = try f.leafCRL(), intermediateCRL = try f.intermediateCRL()
        expectEngine(try f.trust(RevocationFixture.hard, crls: [leafCRL]), .refused(.revocationStatusUnknown),
                     "the intermediate has no answer")
        expectEngine(try f.trust(RevocationFixture.hard, crls: [leafCRL, intermediateCRL]), .trusted)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [leafCRL]), .trusted)
        let evaluation = try f.trust(RevocationFixture.hard, crls: [leafCRL, intermediateCRL]).evaluate(using: TestBackends.all[0])
        #expect(evaluation.revocation.map(\.status) == [.good, .good])
        #expect(evaluation.revocation.map(\.source) == [.crl, .crl])
        #expect(evaluation.revocation.map(\.certificateIndex) == [0, 1])
    }

    @Test("A revoked intermediate is refused, and the record names the source and reason")
    func revokedIntermediate() throws {
        let trust = try f.trust(RevocationFixture.soft, crls: [try f.intermediateCRL(revoking: [.init(f.intermediate, reason: .cACompromise)])])
        expectEngine(trust, .refused(.revoked))
        let evaluation = trust.evaluate(using: TestBackends.all[0])
        #expect(evaluation.failures.first?.certificateIndex == 1)
        let record = try #require(evaluation.revocation.first { $0.certificateIndex == 1 })
        #expect(record.status == .revoked && record.source == .crl && record.reason == .cACompromise)
        #expect(evaluation.result == .fatalTrustFailure)
    }

    @Test("A revoked answer is never hidden by a good one from another source")
    func revokedWins() throws {
        let goodCRL = try f.leafCRL()
        let revokedOCSP = try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60), reason: .keyCompromise))
        expectEngine(try f.trust(RevocationFixture.soft, crls: [goodCRL], ocsp: [revokedOCSP]), .refused(.revoked))
        expectEngine(try f.trust(RevocationFixture.soft, crls: [goodCRL], stapled: [revokedOCSP]), .refused(.revoked))
        var preferCRL = RevocationFixture.soft
        preferCRL.prefersCRL = true
        expectEngine(try f.trust(preferCRL, crls: [goodCRL], ocsp: [revokedOCSP]), .refused(.revoked))
    }

    @Test("A path through a revoked intermediate is left for another path through a valid one")
    func revokedIntermediateSendsTheSearchOn() throws {
        // The same CA key certified twice: the first certificate revoked, the second not.
        let reissued = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: f.intermediate.privateKey, issuer: f.root)
        var trust = try f.trust(RevocationFixture.hardLeaf.with(scope: .wholeChain),
                                crls: [try f.leafCRL(), try f.intermediateCRL(revoking: [.init(f.intermediate)])])
        trust.certificates = [f.leaf.certificate, f.intermediate.certificate, reissued.certificate]
        expectEngine(trust, .trusted, "the re-issued intermediate validates")
        let evaluation = trust.evaluate(using: TestBackends.all[0])
        #expect(evaluation.chain[1] == reissued.certificate)
        #expect(evaluation.revocation.map(\.status) == [.good, .good])
    }

    @Test("Methods: a policy without CRLs does not read them; without OCSP does not read responses")
    func methods() throws {
        let revokingCRL = try f.leafCRL(revoking: [.init(f.leaf)])
        let revokedOCSP = try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60)))
        expectEngine(try f.trust(RevocationPolicy(mode: .soft, methods: .ocsp), crls: [revokingCRL]), .trusted)
        expectEngine(try f.trust(RevocationPolicy(mode: .soft, methods: .crl), ocsp: [revokedOCSP]), .trusted)
        expectEngine(try f.trust(RevocationPolicy(mode: .soft, methods: .ocsp), ocsp: [revokedOCSP]), .refused(.revoked))
    }

    // MARK: OCSP

    @Test("OCSP: good, revoked and unknown answers signed by the issuer, SHA-1 and SHA-256 CertIDs")
    func ocspStatuses() throws {
        for hash in [OCSPResponseBuilder.CertIDHash.sha1, .sha256] {
            expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try f.leafOCSP(.good, hash: hash)]), .trusted, "good \(hash)")
            expectEngine(try f.trust(RevocationFixture.hardLeaf, ocsp: [try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60)), hash: hash)]),
                         .refused(.revoked), "revoked \(hash)")
        }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try f.leafOCSP(.unknown)]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.soft, stapled: [try f.leafOCSP(.unknown)]), .trusted)
        let evaluation = try f.trust(RevocationFixture.hardLeaf, stapled: [try f.leafOCSP()]).evaluate(using: TestBackends.all[0])
        #expect(evaluation.revocation.first?.source == .stapledOCSPResponse)
    }

    @Test("OCSP: a response by the issuer's key hash is believed")
    func responderByKeyHash() throws {
        let response = try f.leafOCSP { $0.responderID = try .keyHash(of: f.intermediate) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [response]), .trusted)
    }

    @Test("OCSP: a delegated responder with id-kp-OCSPSigning and nocheck is believed; every other signer is not")
    func delegatedResponders() throws {
        let delegate = try TestPKI.issue(.ocspResponder(), issuer: f.intermediate)
        func signed(by signer: TestCertificate, including: [TestCertificate]? = nil) throws -> [UInt8] {
            try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60))) {
                $0.signingKey = signer.privateKey
                $0.responderID = try .name(of: signer)
                $0.certificates = including ?? [signer]
            }
        }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try signed(by: delegate)]), .refused(.revoked),
                     "the delegated responder's revoked answer is believed")

        let noEKU = try TestPKI.issue(.ocspResponder(commonName: "No EKU", extendedKeyUsage: [.serverAuth]), issuer: f.intermediate)
        let otherCA = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: f.root)
        let foreign = try TestPKI.issue(.ocspResponder(commonName: "Foreign"), issuer: otherCA)
        let unrelated = try TestPKI.issue(.ocspResponder(commonName: "Unrelated"), issuer: nil)
        let noCheck = try TestPKI.issue(.ocspResponder(commonName: "Checked", noCheck: false), issuer: f.intermediate)
        for (name, signer) in [("without id-kp-OCSPSigning", noEKU), ("certified by another CA", foreign),
                               ("self-signed, unrelated", unrelated), ("the leaf itself", f.leaf)] {
            // Not believed: under hard-fail that is no answer; a revoked answer from them changes nothing.
            expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try signed(by: signer)]),
                         .refused(.revocationStatusUnknown), "signed by a responder \(name)")
            expectEngine(try f.trust(RevocationFixture.soft, stapled: [try signed(by: signer)]), .trusted, "soft, \(name)")
        }
        // Without nocheck the responder's own status must be known under hard-fail: a CRL that does not list it.
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try signed(by: noCheck)]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try f.leafCRL()], stapled: [try signed(by: noCheck)]), .refused(.revoked))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try f.leafCRL(revoking: [.init(noCheck)])], stapled: [try signed(by: noCheck)]),
                     .trusted, "a revoked responder's answer is not believed; the CRL itself says the leaf is good")
        // A responder whose certificate is not included cannot be checked.
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try signed(by: delegate, including: [])]),
                     .refused(.revocationStatusUnknown))
    }

    @Test("OCSP: a response signed by an unrelated key, or with a broken signature, is not believed")
    func badSignatures() throws {
        let stranger = try TestPKI.issue(.certificateAuthority(commonName: "Stranger"), issuer: nil)
        let forged = try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60))) { $0.signingKey = stranger.privateKey }
        let corrupted = try f.leafOCSP { $0.corruptsSignature = true }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [forged]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [corrupted]), .refused(.revocationStatusUnknown))
        let detail = try f.trust(RevocationFixture.hardLeaf, stapled: [corrupted]).evaluate(using: TestBackends.all[0]).failures.first?.detail ?? ""
        #expect(detail.contains("does not verify"), "\(detail)")
    }

    @Test("OCSP: an answer about another certificate says nothing about this one")
    func certIDMismatch() throws {
        let other = try TestPKI.issue(.leaf(commonName: "other.example.com", dnsNames: ["other.example.com"]), issuer: f.intermediate)
        let aboutOther = try TestPKI.ocspResponse(for: other, issuer: f.intermediate, status: .revoked(at: Date(timeIntervalSinceNow: -60)))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [aboutOther]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.soft, stapled: [aboutOther]), .trusted)
        // The right serial under another issuer's hashes is still another certificate.
        let wrongIssuer = try f.leafOCSP { $0.responses[0].certID.issuerKeyHash = [UInt8](repeating: 7, count: 20) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [wrongIssuer]), .refused(.revocationStatusUnknown))
    }

    @Test("OCSP: stale, from the future, and within the clock skew")
    func ocspTimes() throws {
        let stale = try f.leafOCSP(thisUpdate: Date(timeIntervalSinceNow: -3 * 86400), nextUpdate: Date(timeIntervalSinceNow: -2 * 86400))
        let future = try f.leafOCSP(thisUpdate: Date(timeIntervalSinceNow: 86400), nextUpdate: Date(timeIntervalSinceNow: 2 * 86400))
        let slightlyAhead = try f.leafOCSP(thisUpdate: Date(timeIntervalSinceNow: 120))
        let noNextRecent = try f.leafOCSP(thisUpdate: Date(timeIntervalSinceNow: -3600), nextUpdate: nil)
        let noNextOld = try f.leafOCSP(thisUpdate: Date(timeIntervalSinceNow: -3 * 86400), nextUpdate: nil)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [stale]), .refused(.revocationStatusUnknown), "stale")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [future]), .refused(.revocationStatusUnknown), "from the future")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [slightlyAhead]), .trusted, "two minutes ahead, within skew")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [noNextRecent]), .trusted, "no nextUpdate, an hour old")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [noNextOld]), .refused(.revocationStatusUnknown), "no nextUpdate, three days old")
        // A stale revoked answer still does not make the certificate good.
        let staleRevoked = try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -4 * 86400)),
                                          thisUpdate: Date(timeIntervalSinceNow: -3 * 86400), nextUpdate: Date(timeIntervalSinceNow: -2 * 86400))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [staleRevoked]), .refused(.revocationStatusUnknown))
    }

    @Test("OCSP: unsuccessful, malformed and critical-extension responses are no answer")
    func unusableResponses() throws {
        let tryLater = OCSPResponseBuilder.unsuccessful(.tryLater)
        let garbage: [UInt8] = [0x30, 0x03, 0x0A, 0x01]
        let critical = try f.leafOCSP { $0.responseExtensions = [RawExtension(oid: "1.2.3.4.5", isCritical: true, valueDER: [0x05, 0x00])] }
        for (name, bytes) in [("tryLater", tryLater), ("malformed DER", garbage), ("an unknown critical extension", critical)] {
            expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [bytes]), .refused(.revocationStatusUnknown), "\(name)")
            expectEngine(try f.trust(RevocationFixture.soft, stapled: [bytes]), .trusted, "soft, \(name)")
        }
        let record = try f.trust(RevocationFixture.soft, stapled: [garbage]).evaluate(using: TestBackends.all[0]).revocation.first
        #expect(record?.status == .unknown && record?.detail.contains("malformed") == true, "\(String(describing: record))")
    }

    // MARK: CRLs

    @Test("CRL: reasons — certificateHold revokes; removeFromCRL in a complete CRL makes it unusable")
    func crlReasons() throws {
        expectEngine(try f.trust(RevocationFixture.soft, crls: [try f.leafCRL(revoking: [.init(f.leaf, reason: .certificateHold)])]),
                     .refused(.revoked))
        let remove = try f.leafCRL(revoking: [.init(f.leaf, reason: .removeFromCRL)])
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [remove]), .refused(.revocationStatusUnknown))
    }

    @Test("CRL: every reason not to believe one (or not to take it as a full answer)", arguments: [
        "wrong signer", "corrupt signature", "stale", "future", "no cRLNumber", "critical cRLNumber", "delta CRL",
        "only some reasons", "unknown critical extension", "critical entry extension", "certificateIssuer entry",
        "issuer without cRLSign",
    ])
    func unusableCRLs(_ name: String) throws {
        let stranger = try TestPKI.issue(.certificateAuthority(commonName: "Stranger"), issuer: nil)
        let revokeLeaf = [CRLBuilder.Entry(f.leaf)]
        var fixture = f
        let crl: [UInt8]
        switch name {
        case "wrong signer": crl = try f.leafCRL(revoking: revokeLeaf) { $0.signingKey = stranger.privateKey }
        case "corrupt signature": crl = try f.leafCRL { $0.corruptsSignature = true }
        case "stale": crl = try f.leafCRL { $0.thisUpdate = Date(timeIntervalSinceNow: -9 * 86400); $0.nextUpdate = Date(timeIntervalSinceNow: -2 * 86400) }
        case "future": crl = try f.leafCRL { $0.thisUpdate = Date(timeIntervalSinceNow: 86400) }
        case "no cRLNumber": crl = try f.leafCRL { $0.crlNumber = nil }
        case "critical cRLNumber":
            crl = try f.leafCRL { $0.crlNumber = nil; $0.extensions = [RawExtension(oid: "2.5.29.20", isCritical: true, valueDER: [0x02, 0x01, 0x05])] }
        case "delta CRL": crl = try f.leafCRL { $0.deltaCRLIndicator = 1 }
        case "only some reasons": crl = try f.leafCRL { $0.issuingDistributionPoint = .init(onlySomeReasons: [0x60]) }
        case "unknown critical extension": crl = try f.leafCRL { $0.extensions = [RawExtension(oid: "1.2.3.4.5", isCritical: true, valueDER: [0x05, 0x00])] }
        case "critical entry extension":
            crl = try f.leafCRL(revoking: [.init(serialNumber: [0x7F], extensions: [RawExtension(oid: "1.2.3.4.6", isCritical: true, valueDER: [0x05, 0x00])])])
        case "certificateIssuer entry":
            crl = try f.leafCRL(revoking: [.init(serialNumber: [0x7F], certificateIssuer: [.dnsName("ca.example")])])
        case "issuer without cRLSign":
            fixture = try RevocationFixture(customizeIntermediate: { $0.keyUsage = [.keyCertSign] })
            crl = try fixture.leafCRL()
        default: Issue.record("unknown case \(name)"); return
        }
        expectEngine(try fixture.trust(RevocationFixture.hardLeaf, crls: [crl]), .refused(.revocationStatusUnknown), "\(name), hard")
        expectEngine(try fixture.trust(RevocationFixture.soft, crls: [crl]), .trusted, "\(name), soft: judged without it")
    }

    @Test("CRL: a CRL of another CA with the leaf's serial says nothing; issuingDistributionPoint scopes")
    func crlScope() throws {
        let otherCA = try TestPKI.issue(.certificateAuthority(commonName: "Other CA"), issuer: nil)
        var otherBuilder = try CRLBuilder(issuer: otherCA)
        otherBuilder.entries = [.init(f.leaf)]
        expectEngine(try f.trust(RevocationFixture.soft, crls: [try otherBuilder.build()]), .trusted)

        let caOnly = try f.leafCRL(revoking: [.init(f.leaf)]) { $0.issuingDistributionPoint = .init(onlyContainsCACerts: true) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [caOnly]), .refused(.revocationStatusUnknown), "CA-only CRL covers no leaf")
        // An indirect CRL of the certificate's own issuer lists that issuer's certificates too
        // (RFC 5280 §5.2.5): entries without certificateIssuer are its own.
        let indirect = try f.leafCRL(revoking: [.init(f.leaf)]) { $0.issuingDistributionPoint = .init(indirectCRL: true) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [indirect]), .refused(.revoked))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [try f.leafCRL { $0.issuingDistributionPoint = .init(indirectCRL: true) }]), .trusted)
        let userOnly = try f.leafCRL(revoking: [.init(f.leaf)]) { $0.issuingDistributionPoint = .init(onlyContainsUserCerts: true) }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [userOnly]), .refused(.revoked))

        let url = "http://crl.example/leaf.crl"
        let pointed = try RevocationFixture(customizeLeaf: { $0 = $0.withRevocationPointers(crlURLs: [url]) })
        let matching = try pointed.leafCRL(revoking: [.init(pointed.leaf)]) { $0.issuingDistributionPoint = .init(uris: [url]) }
        let elsewhere = try pointed.leafCRL(revoking: [.init(pointed.leaf)]) { $0.issuingDistributionPoint = .init(uris: ["http://crl.example/other.crl"]) }
        expectEngine(try pointed.trust(RevocationFixture.hardLeaf, crls: [matching]), .refused(.revoked))
        expectEngine(try pointed.trust(RevocationFixture.hardLeaf, crls: [elsewhere]), .refused(.revocationStatusUnknown))
    }

    @Test("CRL: the exact second of nextUpdate is current; the next second is not (no skew for CRLs beyond the policy's)")
    func crlBoundary() throws {
        let next = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
        let crl = try f.leafCRL { $0.nextUpdate = next }
        var exact = RevocationFixture.hardLeaf
        exact.maximumClockSkew = 0
        expectEngine(try f.trust(exact, crls: [crl], at: next), .trusted)
        expectEngine(try f.trust(exact, crls: [crl], at: next.addingTimeInterval(1)), .refused(.revocationStatusUnknown))
    }

    @Test("CRL: a hundred thousand entries are looked up by hash; a million and one are refused at parse")
    func largeCRLs() throws {
        var big = try CRLBuilder(issuer: f.intermediate)
        big.syntheticEntryCount = 100_000
        big.entries = [.init(f.leaf)]
        let bytes = try big.build()
        let clock = ContinuousClock()
        var parsed: CertificateRevocationList?
        let elapsed = clock.measure { parsed = try? CertificateRevocationList(derEncoded: bytes) }
        #expect(parsed?.entries.count == 100_001)
        #expect(elapsed < .seconds(20), "parsing took \(elapsed)")  // a bound, not a benchmark: see docs/benchmarks.md
        expectEngine(try f.trust(RevocationFixture.hardLeaf, crls: [bytes]), .refused(.revoked))

        var huge = try CRLBuilder(issuer: f.intermediate)
        huge.syntheticEntryCount = CertificateRevocationList.maximumEntries + 1
        let error = #expect(throws: TLSTrustError.self) { try CertificateRevocationList(derEncoded: try huge.build()) }
        #expect(error?.code == .limitExceeded)
    }
}

extension RevocationPolicy {
    func with(scope: Scope) -> RevocationPolicy {
        var copy = self
        copy.scope = scope
        return copy
    }
}
