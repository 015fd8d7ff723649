import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Path building and anchors, checked in detail (the chain as built, the result kind, the index of
/// each failure) on every backend: the rules every `TrustBackend` must share.
@Suite("Path building and anchors")
struct PathBuildingTests {
    static let host = "www.example.com"
    static let day: TimeInterval = 86400

    static func evaluate(
        _ backendName: String, _ chain: [TestCertificate], anchors: [TestCertificate],
        policies: [TrustPolicy] = [.basicX509], at date: Date? = nil
    ) -> TrustEvaluation {
        var trust = Trust(certificates: chain.certificates, policies: policies, anchors: .only(anchors.certificates))
        trust.verificationDate = date
        return trust.evaluate(using: TestBackends.named(backendName))
    }

    @Test("anchors need not be self-signed", arguments: TestBackends.names)
    func anchorsNeedNotBeSelfSigned(backend: String) throws {
        let pki = try TestHierarchy.make()
        let partial = Self.evaluate(backend, [pki.leaf], anchors: [pki.intermediate], policies: [.ssl(hostname: Self.host)])
        #expect(partial.isTrusted, "\(partial.failures)")
        #expect(partial.chain == [pki.leaf.certificate, pki.intermediate.certificate])
        #expect(partial.result == .proceed)

        // Presented and an anchor: the path still ends at the intermediate.
        let both = Self.evaluate(backend, pki.chain, anchors: [pki.intermediate, pki.root])
        #expect(both.chain == [pki.leaf.certificate, pki.intermediate.certificate])

        // The leaf itself (issued by the intermediate, not self-signed) as the only anchor.
        let leafAnchor = Self.evaluate(backend, [pki.leaf], anchors: [pki.leaf], policies: [.ssl(hostname: Self.host)])
        #expect(leafAnchor.isTrusted, "\(leafAnchor.failures)")
        #expect(leafAnchor.chain == [pki.leaf.certificate])
        // ... still subject to its dates and host.
        #expect(Self.evaluate(backend, [pki.leaf], anchors: [pki.leaf], at: Date(timeIntervalSinceNow: 60 * Self.day))
            .primaryFailure?.code == .expired)
        #expect(Self.evaluate(backend, [pki.leaf], anchors: [pki.leaf], policies: [.ssl(hostname: "other.example.com")])
            .primaryFailure?.code == .hostnameMismatch)

        let selfSigned = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]))
        #expect(Self.evaluate(backend, [selfSigned], anchors: [selfSigned], policies: [.ssl(hostname: Self.host)]).isTrusted)

        // An anchor that is not a CA cannot issue (OpenSSL: invalid CA certificate at depth 1).
        let notCA = try TestHierarchy.make(customizeIntermediate: { $0.isCA = false })
        let refused = Self.evaluate(backend, [notCA.leaf], anchors: [notCA.intermediate])
        #expect(refused.primaryFailure?.code == .notCertificateAuthority)
        #expect(refused.primaryFailure?.certificateIndex == 1)
    }

    @Test("intermediates in any order, with strangers and look-alikes", arguments: TestBackends.names)
    func intermediatesInAnyOrderWithStrangers(backend: String) throws {
        let long = try TestScenario.longChain(intermediates: 5)
        let stranger = try TestHierarchy.make()
        let shuffled = [long.chain[0]] + [3, 1, 5, 2, 4].map { long.chain[$0] } + [stranger.intermediate, stranger.leaf]
        let evaluation = Self.evaluate(backend, shuffled, anchors: long.anchors + [stranger.root])
        #expect(evaluation.isTrusted, "\(evaluation.failures)")
        #expect(evaluation.chain == long.chain.certificates + long.anchors.certificates)

        // Two anchors with the same name and different keys: the one whose key verifies is used.
        let pki = try TestHierarchy.make()
        let sameName = try TestHierarchy.make().root
        let twoRoots = Self.evaluate(backend, pki.chain, anchors: [sameName, pki.root])
        #expect(twoRoots.isTrusted, "\(twoRoots.failures)")
        #expect(twoRoots.chain.last == pki.root.certificate)

        // Two intermediates with the same name: the one that signed the leaf is preferred.
        let impostor = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: pki.root)
        let twoIntermediates = Self.evaluate(backend, [pki.leaf, impostor, pki.intermediate], anchors: pki.anchors)
        #expect(twoIntermediates.isTrusted, "\(twoIntermediates.failures)")
        #expect(twoIntermediates.chain[1] == pki.intermediate.certificate)
    }
}
