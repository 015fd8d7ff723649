import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("Evaluators: default, anchored, composite, disabled")
struct EvaluatorTests {
    let w: EvaluatorWorld
    init() throws { w = try EvaluatorWorld() }

    // MARK: ValidatedChain

    @Test(arguments: TestBackends.names)
    func onlyATrustedEvaluationYieldsAValidatedChain(_ name: String) throws {
        let backend = TestBackends.named(name)
        var trust = w.trust(w.real.chain)
        trust.policies = [.ssl(hostname: EvaluatorWorld.host)]
        let chain = try #require(trust.evaluate(using: backend).validatedChain)
        #expect(chain.certificates == [w.real.leaf, w.real.intermediate, w.real.root].certificates)
        #expect(chain.leaf == w.real.leaf.certificate && chain.anchor == w.real.root.certificate)
        #expect(chain.positions(at: 0) == [.leaf] && chain.positions(at: 1) == [.intermediate] && chain.positions(at: 2) == [.root])
        #expect(chain.firstIndex(ofPublicKeyPin: w.real.intermediate.certificate.publicKey.pin) == 1)
        #expect(chain.backendName == name)

        // An evaluation assembled by hand claims trust for the presented list: no validated chain.
        let fabricated = TrustEvaluation(chain: w.forgedWithGenuineAppended.certificates, failures: [], backendName: name,
                                         anchoredAtCustomAnchor: true)
        #expect(fabricated.isTrusted && fabricated.validatedChain == nil)
        // The library's own verifier answers for comparison only: its trust is never a validated chain.
        let native = trust.evaluateNatively(using: backend)
        #expect(native.isTrusted && native.validatedChain == nil, "\(native)")

        trust.policies = [.ssl(hostname: "other.example.com")]
        #expect(trust.evaluate(using: backend).validatedChain == nil)
        #expect(w.trust(w.app.chain).evaluate(using: backend).validatedChain == nil)
    }

    @Test(arguments: TestBackends.names)
    func aSelfSignedAnchorIsBothLeafAndRoot(_ name: String) throws {
        let trust = Trust(certificates: [w.selfSigned.certificate], policies: [.ssl(hostname: EvaluatorWorld.host)],
                          anchors: .only([w.selfSigned.certificate]))
        let chain = try #require(trust.evaluate(using: TestBackends.named(name)).validatedChain)
        #expect(chain.count == 1 && chain.positions(at: 0) == [.leaf, .root])
    }

    // MARK: Default

    @Test(arguments: TestBackends.names)
    func defaultEvaluationTrustsTheSystemStoreAndChecksTheHost(_ name: String) throws {
        let backend = TestBackends.named(name)
        let decision = try pick(.default).evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.evaluator == "DefaultTrustEvaluator")
        #expect(decision.backendName == name)
        #expect(decision.validatedChain?.count == 3)
        #expect(decision.presentedChain == w.real.chain.certificates)
        #expect(decision.duration > .zero)

        let wrongHost = expectRefusal(.hostValidationFailed) {
            try DefaultTrustEvaluator().evaluate(w.trust(w.real.chain), forHost: "www.example.org", using: backend)
        }
        #expect(wrongHost?.evaluation?.primaryFailure?.code == .hostnameMismatch)
        #expect(wrongHost?.host == "www.example.org")
        #expect(wrongHost?.builtChain.count == 3)
        _ = try pick(.default(validateHost: false)).evaluate(w.trust(w.real.chain), forHost: "www.example.org", using: backend)

        let unknown = expectRefusal(.defaultEvaluationFailed) {
            try DefaultTrustEvaluator().evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(unknown?.evaluation?.primaryFailure?.code == .unknownIssuer)
        #expect(unknown?.presentedChain == w.app.chain.certificates)
        expectRefusal(.noCertificatesPresented) { try DefaultTrustEvaluator().evaluate(w.trust([]), forHost: EvaluatorWorld.host, using: backend) }
    }

    @Test(arguments: TestBackends.names)
    func defaultEvaluationUsesTheSystemStoreOfTheEnvironmentByDefault(_ name: String) throws {
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM([w.real.root], to: bundle)
            let store = SystemTrustStore(files: [bundle.path])
            let trust = Trust(certificates: w.real.chain.certificates,
                              anchors: TrustAnchors([], includingSystemStore: true, systemStore: store))
            let decision = try DefaultTrustEvaluator().evaluate(trust, forHost: EvaluatorWorld.host, using: TestBackends.named(name))
            #expect(decision.validatedChain?.evaluation.result == .unspecified)
        }
    }

    @Test(arguments: TestBackends.names)
    func defaultEvaluationKeepsTheCallersProfileAndCommonNameOptIn(_ name: String) throws {
        let backend = TestBackends.named(name)
        // A leaf naming the host only in its common name: refused unless the trust opts in.
        let cnOnly = try TestPKI.issue(.leaf(commonName: EvaluatorWorld.host), issuer: w.real.intermediate)
        var trust = w.trust([cnOnly, w.real.intermediate])
        expectRefusal(.hostValidationFailed) { try DefaultTrustEvaluator().evaluate(trust, forHost: EvaluatorWorld.host, using: backend) }
        trust.policies = [.ssl(hostname: nil, allowingCommonName: true)]
        _ = try DefaultTrustEvaluator().evaluate(trust, forHost: EvaluatorWorld.host, using: backend)
        // A depth limit the caller set still applies.
        trust = w.trust(w.real.chain)
        trust.policies = [.maximumChainDepth(0)]
        let tooDeep = expectRefusal(.defaultEvaluationFailed) { try DefaultTrustEvaluator().evaluate(trust, forHost: EvaluatorWorld.host, using: backend) }
        #expect(tooDeep?.evaluation?.primaryFailure?.code == .chainTooLong)
    }

    // MARK: Anchored

    @Test(arguments: TestBackends.names)
    func anAppCAAsTheOnlyAnchorRefusesASystemTrustedProxy(_ name: String) throws {
        let backend = TestBackends.named(name)
        let evaluator: any ServerTrustEvaluating = .anchored([w.app.root.certificate])
        let decision = try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.validatedChain?.anchor == w.app.root.certificate)
        #expect(decision.validatedChain?.evaluation.result == .proceed)
        let refused = expectRefusal(.defaultEvaluationFailed) {
            try evaluator.evaluate(w.trust(w.rogue.chain), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(refused?.evaluation?.primaryFailure?.code == .unknownIssuer)
        #expect(refused?.pinnedCertificates == [w.app.root.certificate])
        expectRefusal(.hostValidationFailed) { try evaluator.evaluate(w.trust(w.app.chain), forHost: "evil.example.com", using: backend) }
        expectRefusal(.noPinsConfigured) { try AnchoredTrustEvaluator(anchors: []).evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    @Test(arguments: TestBackends.names)
    func anchoredEvaluationCanAddTheSystemStore(_ name: String) throws {
        let backend = TestBackends.named(name)
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM([w.real.root], to: bundle)
            let evaluator = AnchoredTrustEvaluator(anchors: [w.app.root.certificate], includingSystemStore: true,
                                                   systemStore: SystemTrustStore(files: [bundle.path]))
            _ = try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
            _ = try evaluator.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
            expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust(w.rogue.chain), forHost: EvaluatorWorld.host, using: backend) }
        }
    }

    /// Seed 003: two CA anchors, a self-signed one and a public one, through SecTrustSetAnchorCertificates.
    @Test(arguments: TestBackends.names)
    func twoCAAnchorsTrustBothOfTheirServers(_ name: String) throws {
        let backend = TestBackends.named(name)
        let evaluator: any ServerTrustEvaluating = .anchored([w.selfSigned.certificate, w.real.root.certificate])
        #expect(try evaluator.evaluate(w.trust([w.selfSigned]), forHost: EvaluatorWorld.host, using: backend).validatedChain?.count == 1)
        #expect(try evaluator.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend).validatedChain?.count == 3)
        expectRefusal(.defaultEvaluationFailed) { try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    // MARK: Composite

    @Test(arguments: TestBackends.names)
    func aCompositeNeedsEveryEvaluator(_ name: String) throws {
        let backend = TestBackends.named(name)
        let keys = [w.real.intermediate.certificate.publicKey]
        let both: any ServerTrustEvaluating = .composite([.default, .publicKeys(keys)])
        let decision = try both.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.steps.map(\.evaluator) == ["DefaultTrustEvaluator", "PublicKeysTrustEvaluator"])
        #expect(decision.pinMatch?.chainIndex == 1)
        #expect(decision.validatedChain?.count == 3)
        expectRefusal(.publicKeyPinningFailed) { try both.evaluate(w.trust(w.rogue.chain), forHost: EvaluatorWorld.host, using: backend) }
        expectRefusal(.hostValidationFailed) { try both.evaluate(w.trust(w.real.chain), forHost: "x.example.org", using: backend) }
        expectRefusal(.invalidConfiguration) { try CompositeTrustEvaluator(evaluators: []).evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    // MARK: Disabled

    @Test(arguments: TestBackends.names)
    func theDisabledEvaluatorAcceptsAnythingAndSaysSo(_ name: String) throws {
        let evaluator = DisabledTrustEvaluatorForTestingOnly()
        let decision = try evaluator.evaluate(w.trust(w.rogue.chain), forHost: "anything.invalid", using: TestBackends.named(name))
        #expect(decision.validatedChain == nil && !decision.isValidated)
        #expect(decision.reason.contains("DISABLED"))
        #expect(evaluator.lint().map(\.code) == [.trustEvaluationDisabled])
    }

    // MARK: Errors and lint

    @Test func errorsAndWarningsCompareByCode() {
        let a = ServerTrustError(.certificatePinningFailed, host: "a", message: "one", evaluator: "X")
        let b = ServerTrustError(.certificatePinningFailed, host: "b", message: "two", evaluator: "Y")
        #expect(a == b)
        #expect(a != ServerTrustError(.publicKeyPinningFailed, host: "a", message: "one", evaluator: "X"))
        #expect(a.description == "a: X refused (certificatePinningFailed): one")
        #expect(Set(ServerTrustError.Code.allCases).count == ServerTrustError.Code.allCases.count)
        #expect(LintWarning(.singlePin, subject: "example.com", "m").description == "singlePin (example.com): m")
    }

    @Test func lintNamesDangerousEvaluatorSettings() {
        #expect(DefaultTrustEvaluator().lint().isEmpty)
        #expect(DefaultTrustEvaluator(validateHost: false).lint().map(\.code) == [.domainValidationDisabled])
        #expect(AnchoredTrustEvaluator(anchors: []).lint().map(\.code) == [.noPins])
        #expect(PinnedCertificatesTrustEvaluator(certificates: [], validateHost: false).lint().map(\.code) == [.noPins, .domainValidationDisabled])
        #expect(PublicKeysTrustEvaluator(keys: [w.real.leaf.certificate.publicKey]).lint().isEmpty)
        #expect(CompositeTrustEvaluator(evaluators: [DefaultTrustEvaluator(validateHost: false), DisabledTrustEvaluatorForTestingOnly()])
            .lint().map(\.code) == [.domainValidationDisabled, .trustEvaluationDisabled])
    }
}
