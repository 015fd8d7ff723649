import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Which chains a CT policy holds by default: those ending at a system (public) anchor. The test
/// root is put in a test system store (a PEM bundle), so these chains are publicly anchored
/// without the opt-in for custom anchors; each test tries to get a public chain past the policy.
@Suite("Engine: Certificate Transparency for chains ending at a system anchor")
struct TransparencySystemAnchorTests {
    let f: TransparencyFixture

    init() throws { f = try TransparencyFixture() }

    /// A leaf with embedded SCTs from `logs`.
    func leaf(embedded logs: [TestCTLog]) throws -> TestCertificate {
        let pre = try f.precertificate()
        return try pre.issueFinal(scts: try logs.map { try f.embeddedSCT($0, pre) })
    }

    /// Evaluates `leaf` with the test root in the system store, plus `appAnchors` given by the app.
    func evaluate(_ leaf: TestCertificate, rules: CertificateTransparencyPolicy.Rules = .apple, system: Bool = true,
                  appAnchors: [TestCertificate] = [], customAnchorsToo: Bool = false, backend: String) throws -> TrustEvaluation {
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM(system ? [f.root] : [], to: bundle)
            var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "ct.example")])
            trust.anchors = TrustAnchors(appAnchors.map(\.certificate), includingSystemStore: true,
                                         systemStore: SystemTrustStore(files: [bundle.path]))
            let list = try CertificateTransparencyLogList(logs: f.logs, timestamp: Date())
            trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules,
                                                                          appliesToCustomAnchors: customAnchorsToo)
            return trust.evaluate(using: TestBackends.named(backend))
        }
    }

    func expectRefused(_ evaluation: TrustEvaluation, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!evaluation.isTrusted, sourceLocation: sourceLocation)
        #expect(evaluation.failures.map(\.code) == [.certificateTransparencyRequired], sourceLocation: sourceLocation)
        #expect(evaluation.result == .recoverableTrustFailure, sourceLocation: sourceLocation)
        #expect(evaluation.certificateTransparency?.isEnforced == true, sourceLocation: sourceLocation)
    }

    @Test("A publicly anchored chain without SCTs is refused under either policy, without the opt-in", arguments: TestBackends.names)
    func publicWithoutSCTs(backend: String) throws {
        let plain = try f.leaf()
        expectRefused(try evaluate(plain, rules: .apple, backend: backend))
        expectRefused(try evaluate(plain, rules: .chrome, backend: backend))
        // The same chain without a CT policy is trusted: the refusal is the policy's.
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM([f.root], to: bundle)
            var trust = Trust(certificates: [plain.certificate], policies: [.ssl(hostname: "ct.example")])
            trust.anchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
            let evaluation = trust.evaluate(using: TestBackends.named(backend))
            #expect(evaluation.isTrusted && evaluation.certificateTransparency == nil)
        }
    }

    @Test("A publicly anchored chain with enough valid SCTs passes; with too few, or with one for another certificate, it does not",
          arguments: TestBackends.names)
    func publicWithSCTs(backend: String) throws {
        let good = try evaluate(try leaf(embedded: [f.logA, f.logB]), backend: backend)
        #expect(good.isTrusted && good.result == .unspecified, "a system anchor: unspecified, as SecTrust")
        #expect(good.certificateTransparency?.isEnforced == true && good.certificateTransparency?.isCompliant == true)
        #expect(try evaluate(try leaf(embedded: [f.logA, f.logB]), rules: .chrome, backend: backend).isTrusted)
        expectRefused(try evaluate(try leaf(embedded: [f.logA]), backend: backend))
        // An SCT list copied from another certificate's precertificate does not verify for this one.
        let other = try f.precertificate()
        let pre = try f.precertificate()
        let forged = try pre.issueFinal(scts: [try f.embeddedSCT(f.logA, other), try f.embeddedSCT(f.logB, other)])
        let refused = try evaluate(forged, backend: backend)
        expectRefused(refused)
        #expect(refused.certificateTransparency?.timestamps.map(\.status) == [.invalidSignature, .invalidSignature])
    }

    @Test("A chain ending at the app's own anchor is not held to the policy unless opted in", arguments: TestBackends.names)
    func customAnchor(backend: String) throws {
        let plain = try f.leaf()
        let relaxed = try evaluate(plain, system: false, appAnchors: [f.root], backend: backend)
        #expect(relaxed.isTrusted && relaxed.result == .proceed)
        #expect(relaxed.certificateTransparency?.isEnforced == false)
        #expect(relaxed.certificateTransparency?.reason.contains("anchor the app supplied") == true)
        expectRefused(try evaluate(plain, system: false, appAnchors: [f.root], customAnchorsToo: true, backend: backend))
    }

    @Test("Passing a public root again as an app anchor does not lift the policy from chains to it", arguments: TestBackends.names)
    func publicRootAsAppAnchor(backend: String) throws {
        expectRefused(try evaluate(try f.leaf(), system: true, appAnchors: [f.root], backend: backend))
        expectRefused(try evaluate(try f.leaf(), rules: .chrome, system: true, appAnchors: [f.root], backend: backend))
    }
}
