import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Revocation shapes for the differential suite: CRLs minted at test time with `CRLBuilder`
/// (revoked leaf, revoked intermediate, a CRL by another CA, stale and future CRLs, a wrong
/// signer, a missing CRL, scope and reasons), each under hard and soft mode where the two can
/// differ. They join `DifferentialTests.nativeCatalogue`, so the engine must give one verdict on
/// every backend and each native verifier may differ from it only where
/// `KnownDifferences.nativeDeviations` says so; GnuTLS and mbedTLS, which declare no CRL support,
/// must answer `unsupported`.
extension DifferentialTests {
    /// A hierarchy whose leaf is checked against CRLs: the intermediate's CRL (for the leaf) and
    /// the root's (for the intermediate), each customisable, under `policy`.
    static func crlCase(
        _ name: String, policy: RevocationPolicy,
        intermediate: @escaping @Sendable (inout CertificateProfile) -> Void = { _ in },
        crls: @escaping @Sendable (TestHierarchy) throws -> [[UInt8]]
    ) -> Case {
        Case(name: name) {
            let pki = try TestHierarchy.make(customizeIntermediate: intermediate)
            var trust = trust(pki.chain, anchors: pki.anchors, host: "www.example.com")
            trust.crls = try crls(pki).map { try CertificateRevocationList(derEncoded: $0) }
            trust.revocation = policy
            return trust
        }
    }

    /// A CRL of `issuer` listing `revoked`, with `customize` applied before it is signed.
    static func crl(_ issuer: TestCertificate, revoking revoked: [TestCertificate] = [],
                    _ customize: (inout CRLBuilder) throws -> Void = { _ in }) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: issuer)
        builder.entries = revoked.map { CRLBuilder.Entry($0) }
        try customize(&builder)
        return try builder.build()
    }

    static let hard = RevocationPolicy(mode: .hard)
    static let soft = RevocationPolicy(mode: .soft)
    static let hardLeafOnly = RevocationPolicy(mode: .hard, scope: .leafOnly)
    static let softLeafOnly = RevocationPolicy(mode: .soft, scope: .leafOnly)

    /// Stale: the next update was three days ago.
    static func stale(_ b: inout CRLBuilder) {
        b.thisUpdate = Date(timeIntervalSinceNow: -10 * 86400)
        b.nextUpdate = Date(timeIntervalSinceNow: -3 * 86400)
    }

    /// From the future: this update is a day ahead (well past the engine's five-minute skew).
    static func future(_ b: inout CRLBuilder) {
        b.thisUpdate = Date(timeIntervalSinceNow: 86400)
        b.nextUpdate = Date(timeIntervalSinceNow: 8 * 86400)
    }

    /// Another key, same issuer name and authorityKeyIdentifier: the signature does not verify.
    static func wrongSigner(_ b: inout CRLBuilder) throws {
        b.signingKey = try TestPrivateKey.shared(.ecdsaP256, slot: 7)
    }

    static let revocationCatalogue: [Case] = [
        crlCase("crl.notRevokedHard", policy: hard) { [try crl($0.intermediate), try crl($0.root)] },
        crlCase("crl.revokedLeafHard", policy: hard) { [try crl($0.intermediate, revoking: [$0.leaf]), try crl($0.root)] },
        crlCase("crl.revokedLeafSoft", policy: soft) { [try crl($0.intermediate, revoking: [$0.leaf])] },
        crlCase("crl.revokedLeafOnHold", policy: hardLeafOnly) { pki in
            [try crl(pki.intermediate) { $0.entries = [.init(pki.leaf, reason: .certificateHold)] }]
        },
        crlCase("crl.revokedIntermediateHard", policy: hard) {
            [try crl($0.intermediate), try crl($0.root, revoking: [$0.intermediate])]
        },
        crlCase("crl.revokedIntermediateSoft", policy: soft) { [try crl($0.root, revoking: [$0.intermediate])] },
        crlCase("crl.revokedIntermediateLeafOnly", policy: softLeafOnly) {
            [try crl($0.intermediate), try crl($0.root, revoking: [$0.intermediate])]
        },
        crlCase("crl.anchorOnItsOwnCRL", policy: hard) {
            [try crl($0.intermediate), try crl($0.root, revoking: [$0.root])]
        },
        // The intermediate is the anchor (a partial chain): no CRL speaks for it, and none need,
        // since the anchor is never checked — OpenSSL's CRL_CHECK_ALL asks anyway.
        Case(name: "crl.intermediateAnchorHard") {
            let pki = try TestHierarchy.make()
            var trust = DifferentialTests.trust([pki.leaf], anchors: [pki.intermediate], host: "www.example.com")
            trust.crls = [try CertificateRevocationList(derEncoded: crl(pki.intermediate))]
            trust.revocation = hard
            return trust
        },
        Case(name: "crl.intermediateAnchorRevokesLeafHard") {
            let pki = try TestHierarchy.make()
            var trust = DifferentialTests.trust([pki.leaf], anchors: [pki.intermediate], host: "www.example.com")
            trust.crls = [try CertificateRevocationList(derEncoded: crl(pki.intermediate, revoking: [pki.leaf]))]
            trust.revocation = hard
            return trust
        },
        crlCase("crl.otherCAHard", policy: hardLeafOnly) {
            let other = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Other CA"))
            return [try crl(other, revoking: [$0.leaf])]
        },
        crlCase("crl.otherCASoft", policy: softLeafOnly) {
            let other = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Other CA"))
            return [try crl(other, revoking: [$0.leaf])]
        },
        crlCase("crl.staleHard", policy: hardLeafOnly) { [try crl($0.intermediate, stale)] },
        crlCase("crl.staleSoft", policy: softLeafOnly) { [try crl($0.intermediate, stale)] },
        crlCase("crl.futureHard", policy: hardLeafOnly) { [try crl($0.intermediate, future)] },
        crlCase("crl.futureSoft", policy: softLeafOnly) { [try crl($0.intermediate, future)] },
        crlCase("crl.wrongSignerHard", policy: hardLeafOnly) { [try crl($0.intermediate, wrongSigner)] },
        crlCase("crl.wrongSignerSoft", policy: softLeafOnly) { [try crl($0.intermediate, wrongSigner)] },
        crlCase("crl.wrongSignerListsLeafSoft", policy: softLeafOnly) {
            [try crl($0.intermediate, revoking: [$0.leaf], wrongSigner)]
        },
        crlCase("crl.missingHard", policy: hard) { _ in [] },
        crlCase("crl.missingSoft", policy: soft) { _ in [] },
        crlCase("crl.missingForIntermediateHard", policy: hard) { [try crl($0.intermediate)] },
        crlCase("crl.missingForIntermediateLeafOnly", policy: hardLeafOnly) { [try crl($0.intermediate)] },
        crlCase("crl.issuerWithoutCRLSignHard", policy: hardLeafOnly,
                intermediate: { $0.keyUsage = [.keyCertSign] }) { [try crl($0.intermediate)] },
        crlCase("crl.withoutCRLNumberHard", policy: hardLeafOnly) { [try crl($0.intermediate) { $0.crlNumber = nil }] },
        crlCase("crl.deltaOnlyHard", policy: hardLeafOnly) { [try crl($0.intermediate) { $0.deltaCRLIndicator = 1 }] },
        crlCase("crl.indirectHard", policy: hardLeafOnly) {
            [try crl($0.intermediate) { $0.issuingDistributionPoint = CRLBuilder.IssuingDistributionPoint(indirectCRL: true) }]
        },
        crlCase("crl.caOnlyScopeForLeafHard", policy: hardLeafOnly) {
            [try crl($0.intermediate, revoking: [$0.leaf]) {
                $0.issuingDistributionPoint = CRLBuilder.IssuingDistributionPoint(onlyContainsCACerts: true)
            }]
        },
    ]
}

/// What each revocation shape must give, from the engine and from OpenSSL's native verifier (the
/// one native verifier that takes CRLs): not only "they agree or the difference is listed" but
/// the verdicts themselves, so a regression on both sides at once cannot pass.
@Suite("Differential: native CRL revocation against the engine")
struct DifferentialRevocationTests {
    typealias Expectation = TestScenario.Expectation

    /// Case → (engine on every backend, OpenSSL native). Where the two differ the case is listed
    /// in `KnownDifferences`, and `DifferentialTests.native` checks that listing.
    static let expected: [String: (engine: Expectation, openSSL: Expectation)] = [
        "crl.notRevokedHard": (.trusted, .trusted),
        "crl.revokedLeafHard": (.rejected(.revoked), .rejected(.revoked)),
        "crl.revokedLeafSoft": (.rejected(.revoked), .rejected(.revoked)),
        "crl.revokedLeafOnHold": (.rejected(.revoked), .rejected(.revoked)),
        "crl.revokedIntermediateHard": (.rejected(.revoked), .rejected(.revoked)),
        "crl.revokedIntermediateSoft": (.rejected(.revoked), .rejected(.revoked)),
        "crl.revokedIntermediateLeafOnly": (.trusted, .trusted),
        "crl.anchorOnItsOwnCRL": (.trusted, .trusted),
        "crl.intermediateAnchorHard": (.trusted, .trusted),
        "crl.intermediateAnchorRevokesLeafHard": (.rejected(.revoked), .rejected(.revoked)),
        "crl.otherCAHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.otherCASoft": (.trusted, .trusted),
        "crl.staleHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.staleSoft": (.trusted, .rejected(.revocationStatusUnknown)),
        "crl.futureHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.futureSoft": (.trusted, .rejected(.revocationStatusUnknown)),
        "crl.wrongSignerHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.wrongSignerSoft": (.trusted, .rejected(.revocationStatusUnknown)),
        "crl.wrongSignerListsLeafSoft": (.trusted, .rejected(.revocationStatusUnknown)),
        "crl.missingHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.missingSoft": (.trusted, .trusted),
        "crl.missingForIntermediateHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.missingForIntermediateLeafOnly": (.trusted, .trusted),
        "crl.issuerWithoutCRLSignHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.withoutCRLNumberHard": (.rejected(.revocationStatusUnknown), .trusted),
        "crl.caOnlyScopeForLeafHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.deltaOnlyHard": (.rejected(.revocationStatusUnknown), .rejected(.revocationStatusUnknown)),
        "crl.indirectHard": (.trusted, .rejected(.revocationStatusUnknown)),
    ]

    /// OpenSSL's own text on the first native failure, where it tells the shapes apart.
    static let openSSLText: [String: String] = [
        "crl.revokedLeafHard": "certificate revoked",
        "crl.missingHard": "unable to get certificate CRL",
        "crl.staleSoft": "CRL has expired",
        "crl.futureSoft": "CRL is not yet valid",
        "crl.wrongSignerSoft": "CRL signature failure",
        "crl.wrongSignerListsLeafSoft": "CRL signature failure",
        "crl.caOnlyScopeForLeafHard": "different CRL scope",
    ]

    static var openSSL: any TrustBackend { TestBackends.all.first { $0.name == "openssl" }! }

    @Test func everyRevocationShapeHasAnExpectation() {
        #expect(Set(DifferentialTests.revocationCatalogue.map(\.name)) == Set(Self.expected.keys))
    }

    @Test("engine and OpenSSL native verdicts on each CRL shape", arguments: DifferentialTests.revocationCatalogue)
    func verdicts(_ testCase: DifferentialTests.Case) throws {
        let expected = try #require(Self.expected[testCase.name])
        var trust = try testCase.make()
        let engine = trust.evaluate(using: Self.openSSL)
        #expect(DifferentialTests.outcome(engine) == expected.engine, "engine on \(testCase.name): \(engine)")
        let native = trust.evaluateNatively(using: Self.openSSL)
        #expect(DifferentialTests.outcome(native) == expected.openSSL, "OpenSSL native on \(testCase.name): \(native)")
        // OpenSSL's own codes are kept: a revocation failure names the library's error.
        if case .rejected(let code) = expected.openSSL, code == .revoked || code == .revocationStatusUnknown {
            #expect(native.failures.first?.libraryCode != nil, "\(native)")
        }
        if let text = Self.openSSLText[testCase.name] {
            #expect(native.failures.first?.detail.contains(text) == true, "OpenSSL native on \(testCase.name): \(native)")
        }
    }

    @Test func gnuTLSAndMbedTLSRefuseCRLsAsUnsupported() throws {
        let pki = try TestHierarchy.make()
        var trust = DifferentialTests.trust(pki.chain, anchors: pki.anchors, host: "www.example.com")
        trust.crls = [try CertificateRevocationList(derEncoded: DifferentialTests.crl(pki.intermediate, revoking: [pki.leaf]))]
        trust.revocation = .soft
        for backend in TestBackends.all where backend.name != "openssl" {
            let evaluation = trust.evaluateNatively(using: backend)
            #expect(DifferentialTests.outcome(evaluation) == .rejected(.unsupported), "\(backend.name): \(evaluation)")
            #expect(evaluation.failures.first?.detail.contains("revocation (CRLs)") == true, "\(evaluation)")
        }
    }

    /// OpenSSL's verifier takes no OCSP response and fetches nothing: such requests are refused
    /// before it runs, never judged on the CRLs alone.
    @Test func ocspAnswersAndFetchingAreUnsupportedNatively() throws {
        let pki = try TestHierarchy.make()
        var base = DifferentialTests.trust(pki.chain, anchors: pki.anchors, host: "www.example.com")
        base.crls = [try CertificateRevocationList(derEncoded: DifferentialTests.crl(pki.intermediate))]
        base.revocation = .hard

        var withOCSP = base
        withOCSP.ocspResponses = [[0x30, 0x03, 0x0A, 0x01, 0x01]]  // any bytes: refused before they are read
        var fetching = base
        fetching.revocation = RevocationPolicy(mode: .hard, allowsNetworkFetch: true)
        var ocspOnly = base
        ocspOnly.revocation = RevocationPolicy(mode: .hard, methods: .ocsp)
        for (trust, missing) in [(withOCSP, "revocation (OCSP)"), (fetching, "revocation (network fetch)"),
                                 (ocspOnly, "revocation (OCSP)")] {
            let evaluation = trust.evaluateNatively(using: Self.openSSL)
            #expect(DifferentialTests.outcome(evaluation) == .rejected(.unsupported), "\(evaluation)")
            #expect(evaluation.failures.first?.detail.contains(missing) == true, "\(evaluation)")
        }
        // OCSP answers under a CRL-only policy are not consulted by the engine: CRLs alone suffice.
        var crlOnly = withOCSP
        crlOnly.revocation = RevocationPolicy(mode: .hard, methods: .crl, scope: .leafOnly)
        #expect(DifferentialTests.outcome(crlOnly.evaluateNatively(using: Self.openSSL)) == .trusted)
    }

    /// The CRLs belong to one evaluation (its `X509_STORE_CTX`), never to the anchor store that
    /// evaluations with the same anchors share: concurrent evaluations with and without a CRL
    /// listing the leaf each get their own verdict.
    @Test func concurrentEvaluationsDoNotShareCRLs() async throws {
        let pki = try TestHierarchy.make()
        let anchors = TrustAnchors.only(pki.anchors.certificates)
        func trust(revoking: [TestCertificate]) throws -> Trust {
            var trust = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: anchors)
            trust.revocation = RevocationPolicy(mode: .hard, scope: .leafOnly)
            trust.crls = [try CertificateRevocationList(derEncoded: DifferentialTests.crl(pki.intermediate, revoking: revoking))]
            return trust
        }
        let (revoked, good) = (try trust(revoking: [pki.leaf]), try trust(revoking: []))
        let backend = Self.openSSL
        let results = await withTaskGroup(of: (Bool, TestScenario.Expectation).self) { group in
            for i in 0..<64 {
                group.addTask {
                    let isRevoked = i.isMultiple(of: 2)
                    return (isRevoked, DifferentialTests.outcome((isRevoked ? revoked : good).evaluateNatively(using: backend)))
                }
            }
            return await group.reduce(into: [(Bool, TestScenario.Expectation)]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        for (isRevoked, outcome) in results {
            #expect(outcome == (isRevoked ? .rejected(.revoked) : .trusted))
        }
    }

    @Test func requiredFeaturesFollowTheInputs() {
        func features(_ inputs: RevocationInputs) -> NativeVerifierFeatures { inputs.requiredNativeFeatures }
        #expect(features(.none) == [])
        #expect(features(RevocationInputs(policy: .soft)) == [.crlRevocation])
        #expect(features(RevocationInputs(policy: .hard, ocspResponses: [[0x30]])) == [.crlRevocation, .ocspRevocation])
        #expect(features(RevocationInputs(policy: .hard, stapledOCSPResponses: [[0x30]])) == [.crlRevocation, .ocspRevocation])
        #expect(features(RevocationInputs(policy: RevocationPolicy(mode: .soft, methods: .crl), ocspResponses: [[0x30]])) == [.crlRevocation])
        #expect(features(RevocationInputs(policy: RevocationPolicy(mode: .soft, methods: .ocsp))) == [.crlRevocation, .ocspRevocation])
        #expect(features(RevocationInputs(policy: RevocationPolicy(mode: .soft, allowsNetworkFetch: true))) == [.crlRevocation, .revocationFetching])
        #expect(NativeVerifierFeatures.revocation == [.crlRevocation, .ocspRevocation, .revocationFetching])
    }
}
