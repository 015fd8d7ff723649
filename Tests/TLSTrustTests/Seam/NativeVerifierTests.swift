import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Each library's own verifier (`engine: .native`), as it is: trusts a good chain and reports the
/// path it built, names the obvious failures with the library's code, and — through the declared
/// capabilities — refuses what the library cannot be told instead of ignoring it.
@Suite("Native verifiers")
struct NativeVerifierTests {
    static let host = "www.example.com"

    func evaluate(
        _ name: String, _ chain: [TestCertificate], anchors: [TestCertificate],
        policies: [TrustPolicy] = [.ssl(server: true, hostname: host)], at date: Date? = nil
    ) -> TrustEvaluation {
        var trust = Trust(certificates: chain.certificates, policies: policies, anchors: .only(anchors.certificates))
        trust.verificationDate = date
        return trust.evaluateNatively(using: TestBackends.named(name))
    }

    @Test(arguments: TestBackends.names, [TestKeyAlgorithm.rsa2048, .ecdsaP256, .ecdsaP384])
    func aValidChainIsTrustedWithThePathTheLibraryBuilt(_ name: String, _ algorithm: TestKeyAlgorithm) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
        let evaluation = evaluate(name, pki.chain, anchors: pki.anchors)
        #expect(evaluation.isTrusted, "\(evaluation.failures)")
        #expect(evaluation.result == .proceed)
        #expect(evaluation.chain == [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate])
        #expect(evaluation.backendName == name)
    }

    @Test(arguments: TestBackends.names)
    func ed25519ChainsAreTrustedWhereTheLibraryImplementsEd25519(_ name: String) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .ed25519)
        let evaluation = evaluate(name, pki.chain, anchors: pki.anchors)
        #expect(evaluation.isTrusted == (name != "mbedtls"), "\(evaluation.failures)")
        if name == "mbedtls" {
            #expect(evaluation.primaryFailure?.code == .unsupported, "mbedTLS 2.28 cannot parse Ed25519 certificates")
        }
    }

    @Test(arguments: TestBackends.names)
    func aNonSelfSignedAnchorEndsThePath(_ name: String) throws {
        let pki = try TestHierarchy.make()
        let evaluation = evaluate(name, pki.chain, anchors: [pki.intermediate])
        #expect(evaluation.isTrusted, "\(evaluation.failures)")
        #expect(evaluation.chain == [pki.leaf.certificate, pki.intermediate.certificate])
    }

    @Test(arguments: TestBackends.names)
    func failuresCarryThePortableCodeAndTheLibrarysOwn(_ name: String) throws {
        let pki = try TestHierarchy.make()
        let stranger = try TestHierarchy.make()
        let expired = try TestScenario.expiredLeaf()
        let cases: [(String, TrustEvaluation, TrustFailureCode)] = [
            ("wrong host", evaluate(name, pki.chain, anchors: pki.anchors, policies: [.ssl(server: true, hostname: "other.example.com")]), .hostnameMismatch),
            ("unknown issuer", evaluate(name, pki.chain, anchors: stranger.anchors), .unknownIssuer),
            ("expired leaf", evaluate(name, expired.chain, anchors: expired.anchors), .expired),
        ]
        for (label, evaluation, code) in cases {
            #expect(!evaluation.isTrusted, "\(label)")
            let failure = evaluation.failures.first { $0.code == code }
            #expect(failure != nil, "\(label): \(evaluation.failures)")
            #expect(failure?.libraryCode != nil, "\(label)")
            #expect(failure?.detail.isEmpty == false, "\(label)")
        }
    }

    @Test(arguments: TestBackends.names)
    func aLeafWithoutTheRequiredPurposeIsRefused(_ name: String) throws {
        let scenario = try TestScenario.clientAuthOnlyLeaf()
        let evaluation = evaluate(name, scenario.chain, anchors: scenario.anchors)
        #expect(evaluation.failures.contains { $0.code == .purposeNotAllowed }, "\(evaluation.failures)")
    }

    @Test(arguments: TestBackends.names)
    func whatTheLibraryCannotBeToldIsRefusedAsUnsupported(_ name: String) throws {
        let pki = try TestHierarchy.make(leafIPAddresses: ["127.0.0.1"])
        let capabilities = TestBackends.named(name).capabilities.nativeVerifier
        let requests: [(NativeVerifierFeatures, TrustEvaluation)] = [
            (.verificationTime, evaluate(name, pki.chain, anchors: pki.anchors, at: Date())),
            (.ipAddressHost, evaluate(name, pki.chain, anchors: pki.anchors, policies: [.ssl(server: true, hostname: "127.0.0.1")])),
            (.maximumDepth, evaluate(name, pki.chain, anchors: pki.anchors, policies: [.basicX509, .maximumChainDepth(1)])),
            (.crlRevocation, try { () throws -> TrustEvaluation in
                // Soft-fail with the intermediate's CRL (not listing the leaf) and none for the
                // intermediate: trusted by a verifier that takes CRLs.
                var trust = Trust(certificates: pki.chain.certificates, policies: [.ssl(server: true, hostname: Self.host)],
                                  anchors: .only(pki.anchors.certificates))
                trust.revocation = .soft
                trust.crls = [try CertificateRevocationList(derEncoded: TestPKI.issueCRL(issuer: pki.intermediate))]
                return trust.evaluateNatively(using: TestBackends.named(name))
            }()),
        ]
        for (feature, evaluation) in requests {
            if capabilities.contains(feature) {
                #expect(evaluation.isTrusted, "\(feature): \(evaluation.failures)")
            } else {
                #expect(evaluation.primaryFailure?.code == .unsupported, "\(feature): \(evaluation.failures)")
            }
        }
    }

    @Test func theDeclaredNativeFeaturesAreWhatEachLibraryCanBeTold() {
        #expect(OpenSSLTrustBackend().capabilities.nativeVerifier == [.verificationTime, .dnsHostName, .ipAddressHost, .purpose, .maximumDepth, .partialChains,
                                                                      .certificatePolicies, .emailAddress, .crlRevocation])
        #expect(GnuTLSTrustBackend().capabilities.nativeVerifier == [.dnsHostName, .ipAddressHost, .purpose, .partialChains])
        #expect(MbedTLSTrustBackend().capabilities.nativeVerifier == [.dnsHostName, .purpose, .partialChains])
    }

    @Test func openSSLJudgesValidityAtTheRequestedDate() throws {
        let pki = try TestHierarchy.make()
        let later = evaluate("openssl", pki.chain, anchors: pki.anchors, at: Date(timeIntervalSinceNow: 400 * 86400))
        #expect(later.failures.contains { $0.code == .expired && $0.certificateIndex == 0 }, "\(later.failures)")
    }

    @Test(arguments: TestBackends.names)
    func concurrentNativeEvaluationsShareOneAnchorStore(_ name: String) async throws {
        let good = try TestHierarchy.make()
        let bad = try TestHierarchy.make()
        let anchors = TrustAnchors.only([good.root.certificate])
        let backend = TestBackends.named(name)
        func trust(_ pki: TestHierarchy) -> Trust {
            Trust(certificates: pki.chain.certificates, policies: [.ssl(server: true, hostname: Self.host)], anchors: anchors)
        }
        let (goodTrust, badTrust) = (trust(good), trust(bad))
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for i in 0..<64 {
                group.addTask { i.isMultiple(of: 2) ? (true, goodTrust.evaluateNatively(using: backend).isTrusted) : (false, badTrust.evaluateNatively(using: backend).isTrusted) }
            }
            return await group.reduce(into: [(Bool, Bool)]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.0 == $0.1 })
    }
}
