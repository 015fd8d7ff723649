import Foundation
import Synchronization
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The verified-chain cache: each rule it promises, proved on a counting backend.
/// Serialized: some tests change the process-wide switches and bound.
@Suite("Verified-chain cache", .serialized)
struct VerifiedChainCacheTests {
    let host = "www.example.com"

    func trust(_ h: TestHierarchy, anchors: TrustAnchors, host: String? = nil, at date: Date? = nil) -> Trust {
        var trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: host ?? self.host)], anchors: anchors)
        trust.verificationDate = date
        return trust
    }

    @Test("re-evaluating a verified chain skips the signature work and gives the same evaluation")
    func reEvaluationSkipsSignatures() throws {
        let h = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        let first = trust(h, anchors: anchors).evaluate(using: backend)
        #expect(first.isTrusted)
        #expect(backend.signatureChecks == 2)
        #expect(anchors.verifiedChainCount == 1)

        // A new Trust from freshly parsed DER: the same question.
        let reparsed = try h.chain.map { try Certificate(derEncoded: $0.der) }
        let again = Trust(certificates: reparsed, policies: [.ssl(hostname: host)], anchors: anchors).evaluate(using: backend)
        #expect(again.isTrusted)
        #expect(again.result == first.result)
        #expect(again.chain == first.chain)
        #expect(backend.signatureChecks == 2, "no signature checked again")
    }

    @Test("never answers past the earliest notAfter or before the latest notBefore of the path")
    func onlyWithinThePathsValidity() throws {
        let now = Date()
        // The intermediate expires first and becomes valid last: its window bounds the path's.
        let h = try TestHierarchy.make(customizeIntermediate: {
            $0.notBefore = now.addingTimeInterval(-3600)
            $0.notAfter = now.addingTimeInterval(3600)
        })
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        #expect(trust(h, anchors: anchors, at: now).evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == 2)

        let inside = trust(h, anchors: anchors, at: now.addingTimeInterval(1800)).evaluate(using: backend)
        #expect(inside.isTrusted)
        #expect(backend.signatureChecks == 2, "within the window: from the cache")

        let notAfter = h.intermediate.certificate.notValidAfter
        let atEnd = trust(h, anchors: anchors, at: notAfter).evaluate(using: backend)
        #expect(atEnd.isTrusted, "inclusive, as the engine judges validity")
        #expect(backend.signatureChecks == 2)

        let after = trust(h, anchors: anchors, at: notAfter.addingTimeInterval(1)).evaluate(using: backend)
        #expect(!after.isTrusted)
        #expect(after.failures.contains { $0.code == .expired && $0.certificateIndex == 1 })
        #expect(backend.signatureChecks == 4, "past the earliest notAfter: evaluated afresh")

        let notBefore = h.intermediate.certificate.notValidBefore
        let before = trust(h, anchors: anchors, at: notBefore.addingTimeInterval(-1)).evaluate(using: backend)
        #expect(!before.isTrusted)
        #expect(before.failures.contains { $0.code == .notYetValid && $0.certificateIndex == 1 })
        #expect(backend.signatureChecks == 6, "before the latest notBefore: evaluated afresh")
    }

    @Test("other anchors start from an empty cache; other policies are another question")
    func invalidatedByAnchorsAndPolicies() throws {
        let h = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        #expect(trust(h, anchors: anchors).evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == 2)

        // Changing the anchors (a new anchor set, even with the same certificates) re-verifies.
        let other = TrustAnchors.only(h.anchors.certificates)
        #expect(trust(h, anchors: other).evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == 4)
        // Anchors that no longer include the root: not trusted, whatever was cached elsewhere.
        let unrelated = try TestHierarchy.make()
        let replaced = trust(h, anchors: .only(unrelated.anchors.certificates)).evaluate(using: backend)
        #expect(!replaced.isTrusted)

        // Another host, purpose or profile: evaluated afresh, with its own verdict.
        let wrongHost = trust(h, anchors: anchors, host: "evil.example.net").evaluate(using: backend)
        #expect(!wrongHost.isTrusted)
        #expect(wrongHost.failures.first?.code == .hostnameMismatch)
        var checksBefore = backend.signatureChecks
        var clientPurpose = trust(h, anchors: anchors)
        clientPurpose.policies = [.ssl(server: false)]
        #expect(clientPurpose.evaluate(using: backend).isTrusted, "the test leaf has no extendedKeyUsage")
        #expect(backend.signatureChecks == checksBefore + 2, "another purpose: evaluated afresh")
        checksBefore = backend.signatureChecks
        var rfc = trust(h, anchors: anchors)
        rfc.policies.append(.profile(.rfc5280))
        #expect(rfc.evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == checksBefore + 2)

        // A removal empties this anchor set's cache.
        anchors.removeVerifiedChains()
        #expect(anchors.verifiedChainCount == 0)
        #expect(trust(h, anchors: anchors).evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == checksBefore + 4)
    }

    @Test("refusals are never cached; the native verifier is never cached")
    func onlyEngineTrustIsCached() throws {
        let h = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        for _ in 0..<2 { #expect(!trust(h, anchors: anchors, host: "evil.example.net").evaluate(using: backend).isTrusted) }
        #expect(backend.signatureChecks == 4)
        #expect(anchors.verifiedChainCount == 0)

        var native = trust(h, anchors: anchors)
        #expect(native.evaluateNatively(using: OpenSSLTrustBackend()).isTrusted)
        #expect(anchors.verifiedChainCount == 0)
        // A provider without the native-verifier role says so, and decides nothing.
        let refused = native.evaluateNatively(using: backend)
        #expect(!refused.isTrusted && refused.primaryFailure?.code == .unsupported, "\(refused)")
    }

    @Test("a trust reached after another path failed validation is not cached")
    func onlyFirstPathTrustIsCached() throws {
        // Two intermediates with the same name and key: the first offered has expired, so the
        // engine rejects that path and trusts the second. Another date could pick the first.
        let h = try TestHierarchy.make()
        var expiredProfile = TestHierarchy.intermediateProfile()
        expiredProfile.notBefore = Date().addingTimeInterval(-7200)
        expiredProfile.notAfter = Date().addingTimeInterval(-3600)
        let expired = try TestPKI.issue(expiredProfile, subjectKey: h.intermediate.privateKey, issuer: h.root)
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        let chain = [h.leaf.certificate, expired.certificate, h.intermediate.certificate]
        let evaluation = Trust(certificates: chain, policies: [.ssl(hostname: host)], anchors: anchors).evaluate(using: backend)
        #expect(evaluation.isTrusted)
        #expect(anchors.verifiedChainCount == 0)
    }

    @Test("bounded: the least recently used chain is evicted first")
    func boundedLRU() throws {
        let restore = setTemporarily(\VerifiedChainCache.Type.capacity, to: 2)
        defer { restore() }
        let root = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(root.anchors.certificates)
        // Three leaves under one intermediate.
        let leaves = try (0..<3).map { i in
            try TestPKI.issue(.leaf(commonName: "h\(i).example.com", dnsNames: ["h\(i).example.com"]), issuer: root.intermediate)
        }
        func evaluate(_ i: Int) -> Bool {
            Trust(certificates: [leaves[i].certificate, root.intermediate.certificate],
                  policies: [.ssl(hostname: "h\(i).example.com")], anchors: anchors).evaluate(using: backend).isTrusted
        }
        #expect(evaluate(0) && evaluate(1))
        #expect(evaluate(0), "0 is now the most recently used")
        let afterTwo = backend.signatureChecks
        #expect(evaluate(2))
        #expect(anchors.verifiedChainCount == 2)
        #expect(evaluate(0))
        #expect(backend.signatureChecks == afterTwo + 2, "0 was kept")
        #expect(evaluate(1))
        #expect(backend.signatureChecks == afterTwo + 4, "1, the least recently used, was evicted")
    }

    @Test("safe under concurrent use: 200 parallel evaluations, one verdict")
    func concurrentUse() async throws {
        let h = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        let der = h.chain.map(\.der)
        let host = self.host
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for i in 0..<200 {
                group.addTask {
                    let chain = der.compactMap { try? Certificate(derEncoded: $0) }
                    let name = i % 5 == 0 ? "evil.example.net" : host
                    let evaluation = Trust(certificates: chain, policies: [.ssl(hostname: name)], anchors: anchors).evaluate(using: backend)
                    return (i % 5 != 0, evaluation.isTrusted)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.0 == $0.1 }, "every evaluation got its own verdict")
        #expect(anchors.verifiedChainCount == 1)
    }

    @Test("can be switched off, per evaluation and process-wide")
    func switchedOff() throws {
        let h = try TestHierarchy.make()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only(h.anchors.certificates)
        var uncached = trust(h, anchors: anchors)
        uncached.usesVerifiedChainCache = false
        #expect(uncached.evaluate(using: backend).isTrusted)
        #expect(uncached.evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == 4)
        #expect(anchors.verifiedChainCount == 0)

        VerifiedChainCache.isEnabled = false
        defer { VerifiedChainCache.isEnabled = true }
        #expect(trust(h, anchors: anchors).evaluate(using: backend).isTrusted)
        #expect(trust(h, anchors: anchors).evaluate(using: backend).isTrusted)
        #expect(backend.signatureChecks == 8)
        #expect(anchors.verifiedChainCount == 0)
    }

    // MARK: Revocation on a cached path

    /// The fixture's trust with `policy` and answers, on the counting backend's own anchor set.
    func revocationTrust(_ f: RevocationFixture, _ anchors: TrustAnchors, _ policy: RevocationPolicy?,
                         crls: [[UInt8]] = [], stapled: [[UInt8]] = [], chain: [Certificate]? = nil) throws -> Trust {
        var trust = try f.trust(policy ?? .off, crls: crls, stapled: stapled)
        trust.anchors = anchors
        if let chain { trust.certificates = chain }
        return trust
    }

    /// The fixture, a counting backend and an anchor set whose cache holds the fixture's path:
    /// its plain question (no revocation) trusted once.
    func cachedPath() throws -> (RevocationFixture, SignatureCountingBackend, TrustAnchors) {
        let f = try RevocationFixture()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only([f.root.certificate])
        #expect(try revocationTrust(f, anchors, nil).evaluate(using: backend).isTrusted)
        return (f, backend, anchors)
    }

    @Test("with revocation on, a cached path is answered after its revocation is asked again")
    func revocationIsAskedAgainOnACachedPath() throws {
        let (f, backend, anchors) = try cachedPath()
        #expect(backend.signatureChecks == 2 && anchors.verifiedChainCount == 1)

        let good = try f.leafOCSP()
        let first = try revocationTrust(f, anchors, RevocationFixture.hardLeaf, stapled: [good]).evaluate(using: backend)
        #expect(first.isTrusted, "\(first)")
        #expect(first.revocation.map(\.status) == [.good])
        #expect(first.revocation.map(\.source) == [.stapledOCSPResponse])
        #expect(backend.signatureChecks == 3, "the chain's two signatures are not checked again; the response's one is")
        let again = try revocationTrust(f, anchors, RevocationFixture.hardLeaf, stapled: [good]).evaluate(using: backend)
        #expect(again.isTrusted && again.revocation.map(\.status) == [.good])
        #expect(backend.signatureChecks == 3, "nor the response's, once verified")
    }

    @Test("on a cached path, a revoked or unanswered certificate is refused, never replayed as trusted")
    func revokedOnACachedPathIsRefused() throws {
        let (f, backend, anchors) = try cachedPath()
        let revoked = try f.leafOCSP(.revoked(at: Date(timeIntervalSinceNow: -60), reason: .keyCompromise))
        let refused = try revocationTrust(f, anchors, RevocationFixture.hardLeaf, stapled: [revoked]).evaluate(using: backend)
        #expect(!refused.isTrusted && refused.primaryFailure?.code == .revoked, "\(refused)")
        let unanswered = try revocationTrust(f, anchors, RevocationFixture.hardLeaf).evaluate(using: backend)
        #expect(!unanswered.isTrusted && unanswered.primaryFailure?.code == .revocationStatusUnknown, "\(unanswered)")
        let revokingCRL = try f.leafCRL(revoking: [.init(f.leaf)])
        let byCRL = try revocationTrust(f, anchors, RevocationFixture.soft, crls: [revokingCRL]).evaluate(using: backend)
        #expect(!byCRL.isTrusted && byCRL.primaryFailure?.code == .revoked, "\(byCRL)")
        // Soft-fail without an answer passes, as it does without the cache.
        let soft = try revocationTrust(f, anchors, RevocationFixture.soft).evaluate(using: backend)
        #expect(soft.isTrusted && soft.revocation.map(\.status) == [.unknown, .unknown], "\(soft)")
        // And the plain question is still answered from the cache, with no revocation in it.
        let plain = try revocationTrust(f, anchors, nil).evaluate(using: backend)
        #expect(plain.isTrusted && plain.revocation.isEmpty)
    }

    @Test("a cached path through a revoked intermediate sends the search on to another path")
    func revokedCachedPathFallsBackToTheSearch() throws {
        let f = try RevocationFixture()
        let reissued = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: f.intermediate.privateKey, issuer: f.root)
        let chain = [f.leaf.certificate, f.intermediate.certificate, reissued.certificate]
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only([f.root.certificate])
        let cached = try revocationTrust(f, anchors, nil, chain: chain).evaluate(using: backend)
        #expect(cached.isTrusted && cached.chain[1] == f.intermediate.certificate && anchors.verifiedChainCount == 1)

        let crls = [try f.leafCRL(), try f.intermediateCRL(revoking: [.init(f.intermediate)])]
        let evaluation = try revocationTrust(f, anchors, RevocationFixture.hardLeaf.with(scope: .wholeChain), crls: crls, chain: chain)
            .evaluate(using: backend)
        #expect(evaluation.isTrusted, "\(evaluation)")
        #expect(evaluation.chain[1] == reissued.certificate, "the re-issued intermediate, as the uncached search finds")
        #expect(evaluation.revocation.map(\.status) == [.good, .good])
    }

    @Test("what revocation said is never kept: a trusted evaluation with revocation leaves only its path")
    func revocationAnswersAreNotCached() throws {
        let f = try RevocationFixture()
        let backend = SignatureCountingBackend()
        let anchors = TrustAnchors.only([f.root.certificate])
        let first = try revocationTrust(f, anchors, RevocationFixture.hardLeaf, stapled: [try f.leafOCSP()]).evaluate(using: backend)
        #expect(first.isTrusted && first.revocation.count == 1 && anchors.verifiedChainCount == 1)
        let plain = try revocationTrust(f, anchors, nil).evaluate(using: backend)
        #expect(plain.isTrusted && plain.revocation.isEmpty, "\(plain.revocation)")
        #expect(backend.signatureChecks == 3, "the chain (2) and the response (1), once each")
    }
}
