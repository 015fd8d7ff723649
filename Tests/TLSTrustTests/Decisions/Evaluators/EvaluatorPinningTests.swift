import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("Evaluators: pinned certificates and public keys")
struct EvaluatorPinningTests {
    let w: EvaluatorWorld
    init() throws { w = try EvaluatorWorld() }

    // MARK: Pinned certificates

    @Test(arguments: TestBackends.names)
    func aPinnedCertificateIsFoundAtItsPositionInTheValidatedChain(_ name: String) throws {
        let backend = TestBackends.named(name)
        for (index, pinned, position) in [(0, w.real.leaf, ValidatedChain.Position.leaf), (1, w.real.intermediate, .intermediate),
                                          (2, w.real.root, .root)] {
            let decision = try pick(.pinnedCertificates([pinned.certificate]))
                .evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
            let match = try #require(decision.pinMatch)
            #expect(match.chainIndex == index && match.positions == [position] && match.certificate == pinned.certificate)
            #expect(match.pin.hasPrefix("certificate sha256:"))
            #expect(decision.evaluator == "PinnedCertificatesTrustEvaluator")
        }
        let other = expectRefusal(.certificatePinningFailed) {
            try pick(.pinnedCertificates([w.app.leaf.certificate]))
                .evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(other?.builtChain.count == 3)
        #expect(other?.pinnedCertificates == [w.app.leaf.certificate])
        expectRefusal(.noPinsConfigured) {
            try pick(.pinnedCertificates([])).evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        }
        expectRefusal(.hostValidationFailed) {
            try pick(.pinnedCertificates([w.real.leaf.certificate]))
                .evaluate(w.trust(w.real.chain), forHost: "www.example.org", using: backend)
        }
        _ = try pick(.pinnedCertificates([w.real.leaf.certificate], validateHost: false))
            .evaluate(w.trust(w.real.chain), forHost: "www.example.org", using: backend)
    }

    /// Seed 002: a self-signed server whose certificate the app carries.
    @Test(arguments: TestBackends.names)
    func aPinnedSelfSignedServerNeedsAcceptSelfSignedCertificates(_ name: String) throws {
        let backend = TestBackends.named(name)
        let pinned = [w.selfSigned.certificate]
        expectRefusal(.defaultEvaluationFailed) {
            try pick(.pinnedCertificates(pinned)).evaluate(w.trust([w.selfSigned]), forHost: EvaluatorWorld.host, using: backend)
        }
        let decision = try pick(.pinnedCertificates(pinned, acceptSelfSignedCertificates: true))
            .evaluate(w.trust([w.selfSigned]), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.pinMatch?.positions == [.leaf, .root])
        expectRefusal(.hostValidationFailed) {
            try pick(.pinnedCertificates(pinned, acceptSelfSignedCertificates: true))
                .evaluate(w.trust([w.selfSigned]), forHost: "other.example.com", using: backend)
        }
        // With acceptSelfSignedCertificates the pins are the only anchors: the system store no longer vouches.
        expectRefusal(.defaultEvaluationFailed) {
            try pick(.pinnedCertificates(pinned, acceptSelfSignedCertificates: true))
                .evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        }
    }

    @Test(arguments: TestBackends.names)
    func withoutDefaultValidationTheLeafMustStillChainToAPin(_ name: String) throws {
        let backend = TestBackends.named(name)
        // The app's private root, not in the system store: accepted through the pin alone.
        let evaluator: any ServerTrustEvaluating = .pinnedCertificates([w.app.root.certificate], performDefaultValidation: false)
        let decision = try evaluator.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.pinMatch?.chainIndex == 2)
        // Presenting the pinned root after a chain it did not sign is not enough.
        let refused = expectRefusal(.defaultEvaluationFailed) {
            try evaluator.evaluate(w.trust(w.rogue.chain + [w.app.root]), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(refused?.evaluation?.primaryFailure?.code == .unknownIssuer)
        // An expired pinned self-signed certificate is refused: pinning is not a licence to skip dates.
        let expired = try TestPKI.issue({
            var p = CertificateProfile.leaf(commonName: EvaluatorWorld.host, dnsNames: [EvaluatorWorld.host])
            p.notBefore = Date(timeIntervalSinceNow: -40 * 86400)
            p.notAfter = Date(timeIntervalSinceNow: -86400)
            return p
        }(), issuer: nil)
        let e = expectRefusal(.defaultEvaluationFailed) {
            try pick(.pinnedCertificates([expired.certificate], performDefaultValidation: false))
                .evaluate(w.trust([expired]), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(e?.evaluation?.primaryFailure?.code == .expired)
    }

    // MARK: Public keys

    @Test(arguments: TestBackends.names)
    func aPinnedPublicKeyIsFoundInTheValidatedChain(_ name: String) throws {
        let backend = TestBackends.named(name)
        let key = w.real.intermediate.certificate.publicKey
        let decision = try pick(.publicKeys([key])).evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.pinMatch?.pin == key.pin)
        #expect(decision.pinMatch?.chainIndex == 1 && decision.pinMatch?.positions == [.intermediate])
        #expect(decision.description.contains(key.pin))

        let refused = expectRefusal(.publicKeyPinningFailed) {
            try pick(.publicKeys([w.app.leaf.certificate.publicKey]))
                .evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend)
        }
        #expect(refused?.expectedPins == [w.app.leaf.certificate.publicKey.pin])
        #expect(refused?.builtChain.count == 3)
        expectRefusal(.noPinsConfigured) { try pick(.publicKeys([])).evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    @Test(arguments: TestBackends.names)
    func aKeyPinSurvivesTheLeafBeingReissued(_ name: String) throws {
        let backend = TestBackends.named(name)
        let reissued = try TestPKI.issue(.leaf(commonName: EvaluatorWorld.host, dnsNames: [EvaluatorWorld.host]),
                                         subjectKey: w.real.leaf.privateKey, issuer: w.real.intermediate)
        #expect(reissued.certificate != w.real.leaf.certificate)
        let decision = try pick(.publicKeys([w.real.leaf.certificate.publicKey]))
            .evaluate(w.trust([reissued, w.real.intermediate]), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.pinMatch?.chainIndex == 0)
        expectRefusal(.certificatePinningFailed) {
            try pick(.pinnedCertificates([w.real.leaf.certificate]))
                .evaluate(w.trust([reissued, w.real.intermediate]), forHost: EvaluatorWorld.host, using: backend)
        }
    }

    @Test(arguments: TestBackends.names)
    func withoutDefaultValidationTheLeafMustBeSignedUnderAPinnedKey(_ name: String) throws {
        let backend = TestBackends.named(name)
        // A self-signed server, its key pinned: accepted without any CA.
        let own: any ServerTrustEvaluating = .publicKeys([w.selfSigned.certificate.publicKey], performDefaultValidation: false)
        #expect(try own.evaluate(w.trust([w.selfSigned]), forHost: EvaluatorWorld.host, using: backend).pinMatch?.chainIndex == 0)
        // The app's intermediate key pinned: the app chain passes although its root is in no store.
        let app: any ServerTrustEvaluating = .publicKeys([w.app.intermediate.certificate.publicKey], performDefaultValidation: false)
        #expect(try app.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend).pinMatch?.chainIndex == 1)
        // A pinned root key that only the trust's anchors carry also counts.
        let root: any ServerTrustEvaluating = .publicKeys([w.real.root.certificate.publicKey], performDefaultValidation: false)
        #expect(try root.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend).pinMatch?.chainIndex == 2)
        // No certificate anywhere carries the key.
        expectRefusal(.publicKeyPinningFailed) { try app.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend) }
    }

    // MARK: The OkHttp CVE-2016-2402 class

    /// A forged chain for the host, issued by a CA the system store trusts, with the genuine
    /// pinned certificates appended to the presented list, is refused by every pinning evaluator
    /// in every configuration: pins are matched against the validated chain only.
    @Test(arguments: TestBackends.names)
    func aForgedChainWithTheGenuinePinnedCertificateAppendedIsRefused(_ name: String) throws {
        let backend = TestBackends.named(name)
        let forged = w.trust(w.forgedWithGenuineAppended)
        // The forged chain alone is valid as far as the system store is concerned.
        _ = try DefaultTrustEvaluator().evaluate(forged, forHost: EvaluatorWorld.host, using: backend)

        for pinned in [w.real.leaf, w.real.intermediate, w.real.root] {
            for performDefaultValidation in [true, false] {
                let byCertificate = expectRefusal(performDefaultValidation ? .certificatePinningFailed : .defaultEvaluationFailed) {
                    try pick(.pinnedCertificates([pinned.certificate], performDefaultValidation: performDefaultValidation))
                        .evaluate(forged, forHost: EvaluatorWorld.host, using: backend)
                }
                #expect(byCertificate?.presentedChain.contains(pinned.certificate) == true)
                #expect(byCertificate?.builtChain.contains(pinned.certificate) != true)
                let byKey = expectRefusal(.publicKeyPinningFailed) {
                    try pick(.publicKeys([pinned.certificate.publicKey], performDefaultValidation: performDefaultValidation))
                        .evaluate(forged, forHost: EvaluatorWorld.host, using: backend)
                }
                #expect(byKey?.expectedPins == [pinned.certificate.publicKey.pin])
            }
            expectRefusal(.defaultEvaluationFailed) {
                try pick(.pinnedCertificates([pinned.certificate], acceptSelfSignedCertificates: true))
                    .evaluate(forged, forHost: EvaluatorWorld.host, using: backend)
            }
        }
    }
}
