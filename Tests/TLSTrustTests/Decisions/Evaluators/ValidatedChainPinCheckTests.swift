import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// `PinSetTrustEvaluator.evaluate(validatedChain:of:forHost:)` and `SecurityPolicy.evaluate(_:forDomain:using:)`:
/// the hooks that let a caller evaluate once and still have each rule decided by its evaluator
/// (`tlstrust evaluate`).
@Suite("Pin sets on an already validated chain")
struct ValidatedChainPinCheckTests {
    typealias F = PinningFixtures

    @Test("the same decisions as a full evaluation, without validating again", arguments: TestBackends.names)
    func sameDecisions(backend name: String) throws {
        let backend = TestBackends.named(name)
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let trust = F.trust(h)
        var server = trust
        server.policies = [.ssl(hostname: "api.example.com")]
        let chain = try #require(server.evaluate(using: backend).validatedChain)
        let spare = try F.sparePin()

        let matching = PinSetTrustEvaluator(try PinSet(domain: "api.example.com", pins: [spare, F.pin(h.intermediate)]))
        let full = try matching.evaluate(trust, forHost: "api.example.com", using: backend)
        let onChain = try matching.evaluate(validatedChain: chain, of: trust, forHost: "api.example.com")
        #expect(onChain.pinMatch == full.pinMatch && onChain.pinMatch?.chainIndex == 1)

        let refusing = try PinSetTrustEvaluator(pinsForEveryHost: [spare])
        #expect(throws: ServerTrustError(.pinSetFailed, host: "", message: "", evaluator: "")) {
            try refusing.evaluate(validatedChain: chain, of: trust, forHost: "api.example.com")
        }
        // An unpinned host: the validated chain is accepted as it is.
        let other = PinSetTrustEvaluator(try PinSet(domain: "other.example.com", pins: [spare, F.pin(h.root)]))
        #expect(try other.evaluate(validatedChain: chain, of: trust, forHost: "api.example.com").pinMatch == nil)
    }

    @Test("a chain validated to other anchors than those the configuration names is refused")
    func configuredAnchors() throws {
        let backend = TestBackends.named("openssl")
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let own = try TestHierarchy.make()
        var configuration = try PinningConfiguration()
        try configuration.add(DomainTrustAnchors(domain: "api.example.com",
                                                 anchors: ConfiguredTrustAnchors(certificates: [own.root.certificate])))
        let trust = F.trust(h)
        let chain = try #require(trust.evaluate(using: backend).validatedChain)
        let error = #expect(throws: ServerTrustError.self) {
            try PinSetTrustEvaluator(configuration).evaluate(validatedChain: chain, of: trust, forHost: "api.example.com")
        }
        #expect(error?.code == .defaultEvaluationFailed && error?.message.contains("not at a trust anchor") == true)
    }

    @Test("SecurityPolicy with a nil domain: evaluateServerTrust's verdict, with its evidence")
    func policyWithoutDomain() throws {
        let backend = TestBackends.named("openssl")
        let h = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [h.root.certificate])
        let decision = try policy.evaluate(F.trust(h), forDomain: nil, using: backend)
        #expect(decision.pinMatch?.chainIndex == 2 && decision.validatedChain?.count == 3)
        #expect(policy.evaluateServerTrust(F.trust(h), forDomain: nil, using: backend))

        let refusing = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [other.root.certificate])
        let error = #expect(throws: ServerTrustError.self) { try refusing.evaluate(F.trust(h), forDomain: nil, using: backend) }
        #expect(error?.code == .publicKeyPinningFailed && error?.evaluation != nil)
        #expect(!refusing.evaluateServerTrust(F.trust(h), forDomain: nil, using: backend))
    }
}
