import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("SecurityPolicy (AFSecurityPolicy 4.0.1)")
struct SecurityPolicyTests {
    let w: EvaluatorWorld
    init() throws { w = try EvaluatorWorld() }
    var host: String { EvaluatorWorld.host }

    private func policy(_ mode: SecurityPolicy.PinningMode, _ pinned: [TestCertificate] = [],
                        allowInvalid: Bool = false, validatesDomainName: Bool = true) -> SecurityPolicy {
        var p = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(pinned.certificates))
        p.allowInvalidCertificates = allowInvalid
        p.validatesDomainName = validatesDomainName
        return p
    }

    // MARK: Defaults and history

    @Test func defaultsAreAFNetworking4s() {
        let d = SecurityPolicy.default
        #expect(d.pinningMode == .none && d.pinnedCertificates.isEmpty)
        #expect(!d.allowInvalidCertificates)
        // AFNetworking ≤ 2.5.2 defaulted validatesDomainName to NO: here it is on in every mode.
        for mode in SecurityPolicy.PinningMode.allCases {
            #expect(SecurityPolicy(pinningMode: mode).validatesDomainName, "\(mode)")
            #expect(!SecurityPolicy(pinningMode: mode).allowInvalidCertificates, "\(mode)")
        }
        #expect(d.lint().isEmpty)
    }

    /// AFNetworking 2.5.1: pinning mode none accepted any certificate.
    @Test(arguments: TestBackends.names)
    func regression251ModeNoneValidatesTheChain(_ name: String) throws {
        let backend = TestBackends.named(name)
        #expect(SecurityPolicy.default.evaluateServerTrust(w.trust(w.real.chain), forDomain: host, using: backend))
        #expect(!SecurityPolicy.default.evaluateServerTrust(w.trust(w.app.chain), forDomain: host, using: backend), "unknown issuer")
        #expect(!SecurityPolicy.default.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: host, using: backend), "self-signed")
        #expect(!SecurityPolicy.default.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: nil, using: backend), "self-signed, no domain")
        expectRefusal(.defaultEvaluationFailed) { try SecurityPolicy.default.evaluate(w.trust(w.app.chain), forHost: host, using: backend) }
    }

    /// AFNetworking ≤ 2.5.2: validatesDomainName defaulted to off, so any valid certificate for any host passed.
    @Test(arguments: TestBackends.names)
    func regression252TheDomainIsValidatedByDefault(_ name: String) throws {
        let backend = TestBackends.named(name)
        for p in [SecurityPolicy.default, policy(.certificate, [w.real.root]), policy(.publicKey, [w.real.root])] {
            #expect(p.evaluateServerTrust(w.trust(w.real.chain), forDomain: host, using: backend), "\(p)")
            #expect(!p.evaluateServerTrust(w.trust(w.real.chain), forDomain: "evil.example.org", using: backend), "\(p)")
        }
        expectRefusal(.hostValidationFailed) { try SecurityPolicy.default.evaluate(w.trust(w.real.chain), forHost: "evil.example.org", using: backend) }
        let lax = policy(.none, validatesDomainName: false)
        #expect(lax.evaluateServerTrust(w.trust(w.real.chain), forDomain: "evil.example.org", using: backend))
        #expect(lax.lint().map(\.code) == [.domainValidationDisabled])
        // Without the name, the leaf must still be a TLS server certificate (AFNetworking's basic X.509 policy would not ask).
        let clientOnly = try TestPKI.issue({
            var p = CertificateProfile.leaf(commonName: host, dnsNames: [host])
            p.extendedKeyUsage = [.clientAuth]
            return p
        }(), issuer: w.real.intermediate)
        let e = expectRefusal(.defaultEvaluationFailed) { try lax.evaluate(w.trust([clientOnly, w.real.intermediate]), forHost: host, using: backend) }
        #expect(e?.evaluation?.primaryFailure?.code == .purposeNotAllowed)
    }

    // MARK: The early refusal and mode none

    @Test(arguments: TestBackends.names)
    func validatingADomainWithInvalidCertificatesAllowedRequiresPins(_ name: String) throws {
        let backend = TestBackends.named(name)
        let p = policy(.none, allowInvalid: true)
        // Refused even for a perfectly valid chain, as in AFNetworking.
        #expect(!p.evaluateServerTrust(w.trust(w.real.chain), forDomain: host, using: backend))
        expectRefusal(.policyRefused) { try p.evaluate(w.trust(w.real.chain), forHost: host, using: backend) }
        expectRefusal(.policyRefused) { try policy(.certificate, allowInvalid: true).evaluate(w.trust(w.real.chain), forHost: host, using: backend) }
        expectRefusal(.policyRefused) { try policy(.publicKey, allowInvalid: true).evaluate(w.trust(w.real.chain), forHost: host, using: backend) }
        // Without a domain the check does not apply: mode none with invalid certificates allowed accepts anything.
        #expect(p.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: nil, using: backend))
    }

    @Test(arguments: TestBackends.names)
    func modeNoneWithInvalidCertificatesAllowedAcceptsAnythingAndLintSaysSo(_ name: String) throws {
        let backend = TestBackends.named(name)
        let p = policy(.none, allowInvalid: true, validatesDomainName: false)
        let decision = try p.evaluate(w.trust(w.app.chain), forHost: "anything.example.org", using: backend)
        #expect(decision.validatedChain == nil)
        #expect(decision.reason.contains("WITHOUT validation"))
        #expect(p.lint().map(\.code) == [.domainValidationDisabled, .allowInvalidCertificates])
        // A chain that does validate is reported as validated.
        #expect(try p.evaluate(w.trust(w.real.chain), forHost: host, using: backend).validatedChain?.count == 3)
    }

    // MARK: Certificate mode

    @Test(arguments: TestBackends.names)
    func certificateModeMakesThePinsTheOnlyAnchors(_ name: String) throws {
        let backend = TestBackends.named(name)
        // Pinned leaf of a system-valid chain: the second evaluation ends at the pinned leaf.
        let leafPinned = try policy(.certificate, [w.real.leaf]).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        #expect(leafPinned.validatedChain?.count == 1 && leafPinned.pinMatch?.chainIndex == 0)
        // Pinned intermediate: the chain ends there.
        let intermediatePinned = try policy(.certificate, [w.real.intermediate]).evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        #expect(intermediatePinned.validatedChain?.anchor == w.real.intermediate.certificate)
        #expect(intermediatePinned.pinMatch?.positions == [.root])
        // A chain the system store trusts, but that does not reach a pinned certificate.
        let refused = expectRefusal(.defaultEvaluationFailed) {
            try policy(.certificate, [w.real.root]).evaluate(w.trust(w.rogue.chain), forHost: host, using: backend)
        }
        #expect(refused?.pinnedCertificates == [w.real.root.certificate])
        // The app's private PKI, root pinned: refused unless invalid certificates are allowed,
        // because AFNetworking first validates against the system store.
        let appPolicy = policy(.certificate, [w.app.root])
        expectRefusal(.defaultEvaluationFailed) { try appPolicy.evaluate(w.trust(w.app.chain), forHost: host, using: backend) }
        let allowed = policy(.certificate, [w.app.root], allowInvalid: true)
        #expect(try allowed.evaluate(w.trust(w.app.chain), forHost: host, using: backend).pinMatch?.chainIndex == 2)
        expectRefusal(.noPinsConfigured) { try policy(.certificate).evaluate(w.trust(w.real.chain), forHost: host, using: backend) }
    }

    /// Seed 002: AFNetworking with a self-signed server whose .der certificate the app bundles.
    @Test(arguments: TestBackends.names)
    func aPinnedSelfSignedServerInCertificateMode(_ name: String) throws {
        let backend = TestBackends.named(name)
        let p = policy(.certificate, [w.selfSigned], allowInvalid: true)
        #expect(p.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: host, using: backend))
        #expect(!p.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: "other.example.com", using: backend))
        #expect(!p.evaluateServerTrust(w.trust(w.rogue.chain), forDomain: host, using: backend))
        let other = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: nil)
        #expect(!p.evaluateServerTrust(w.trust([other]), forDomain: host, using: backend), "a different self-signed certificate for the same name")
        #expect(p.lint().isEmpty)
    }

    // MARK: Public-key mode

    @Test(arguments: TestBackends.names)
    func publicKeyModeFindsAPinnedKeyInTheValidatedChain(_ name: String) throws {
        let backend = TestBackends.named(name)
        let p = policy(.publicKey, [w.real.intermediate])
        let decision = try p.evaluate(w.trust(w.real.chain), forHost: host, using: backend)
        #expect(decision.pinMatch?.pin == w.real.intermediate.certificate.publicKey.pin)
        #expect(p.pinnedPublicKeys == [w.real.intermediate.certificate.publicKey])
        let refused = expectRefusal(.publicKeyPinningFailed) { try p.evaluate(w.trust(w.rogue.chain), forHost: host, using: backend) }
        #expect(refused?.expectedPins == [w.real.intermediate.certificate.publicKey.pin])
        // Invalid certificates allowed: a self-signed server whose key is pinned passes.
        let selfSigned = policy(.publicKey, [w.selfSigned], allowInvalid: true)
        #expect(selfSigned.evaluateServerTrust(w.trust([w.selfSigned]), forDomain: host, using: backend))
        // …and so does the app's private chain with its root's key pinned, though no store has that root.
        #expect(policy(.publicKey, [w.app.root], allowInvalid: true).evaluateServerTrust(w.trust(w.app.chain), forDomain: host, using: backend))
    }

    /// The deliberate difference from AFNetworking: in public-key mode with invalid certificates
    /// allowed, AFNetworking accepts any chain in which *some presented* certificate carries a
    /// pinned key. Here the key must be on the leaf's signature path.
    @Test(arguments: TestBackends.names)
    func publicKeyModeRefusesAPinnedCertificateMerelyAppended(_ name: String) throws {
        let backend = TestBackends.named(name)
        for pinned in [w.real.leaf, w.real.intermediate, w.real.root] {
            for allowInvalid in [false, true] {
                let p = policy(.publicKey, [pinned], allowInvalid: allowInvalid)
                // A forged chain from a system-trusted CA with the genuine chain appended (CVE-2016-2402 class).
                let e = expectRefusal(.publicKeyPinningFailed) { try p.evaluate(w.trust(w.forgedWithGenuineAppended), forHost: host, using: backend) }
                #expect(e?.presentedChain.contains(pinned.certificate) == true)
                // An attacker's self-signed leaf with the genuine certificate appended: AFNetworking's bypass.
                let attacker = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: nil)
                #expect(!p.evaluateServerTrust(w.trust([attacker, pinned]), forDomain: host, using: backend),
                        "\(pinned.certificate.subject), allowInvalidCertificates \(allowInvalid)")
            }
        }
        #expect(policy(.publicKey, [w.real.leaf], allowInvalid: true).lint().map(\.code) == [.allowInvalidCertificatesWithPublicKeyPinning])
    }

    @Test(arguments: TestBackends.names)
    func certificateModeRefusesTheForgedChainToo(_ name: String) throws {
        let backend = TestBackends.named(name)
        for pinned in [w.real.leaf, w.real.intermediate, w.real.root] {
            for allowInvalid in [false, true] {
                #expect(!policy(.certificate, [pinned], allowInvalid: allowInvalid)
                    .evaluateServerTrust(w.trust(w.forgedWithGenuineAppended), forDomain: host, using: backend))
            }
        }
    }

    // MARK: certificatesInBundle

    @Test func certificatesAreReadFromEveryCerCrtAndDerFileOfADirectory() throws {
        try TemporaryDirectory.with { dir in
            try TestPKI.writeDER(w.real.leaf, to: dir.appendingPathComponent("server.cer"))
            try TestPKI.writePEM([w.real.intermediate, w.real.root], to: dir.appendingPathComponent("cas.crt"))
            try TestPKI.writeDER(w.selfSigned, to: dir.appendingPathComponent("self.DER"))
            try TestPKI.writeDER(w.app.root, to: dir.appendingPathComponent("ignored.pem"))
            try Data("notes".utf8).write(to: dir.appendingPathComponent("README.txt"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub.cer"), withIntermediateDirectories: false)
            let found = try SecurityPolicy.certificates(inDirectory: dir.path)
            #expect(found == Set([w.real.leaf, w.real.intermediate, w.real.root, w.selfSigned].certificates))
            try Data([0x30, 0x03, 0x02, 0x01, 0x01]).write(to: dir.appendingPathComponent("broken.cer"))
            let error = #expect(throws: TLSTrustError.self) { try SecurityPolicy.certificates(inDirectory: dir.path) }
            #expect(error?.message.contains("broken.cer") == true)
        }
        #expect(throws: TLSTrustError.self) { try SecurityPolicy.certificates(inDirectory: "/nonexistent/tlstrust") }
    }

    @Test func lintNamesDangerousPolicies() {
        #expect(policy(.certificate).lint().map(\.code) == [.noPins])
        #expect(policy(.publicKey, [w.real.leaf], allowInvalid: true, validatesDomainName: false).lint().map(\.code)
            == [.domainValidationDisabled, .allowInvalidCertificatesWithPublicKeyPinning])
        #expect(policy(.certificate, [w.real.leaf]).lint().isEmpty)
    }
}
