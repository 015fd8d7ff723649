import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Android's `<certificateTransparency enabled>` (Android 16's network security config): decided
/// per domain-config in Android's order and applied through `PinSetTrustEvaluator` with the log
/// list the app gives it. The test root is the test system store's.
@Suite("Android: <certificateTransparency> applied")
struct AndroidCertificateTransparencyTests {
    let f: TransparencyFixture

    init() throws { f = try TransparencyFixture() }

    func config(_ inner: String, resources: AndroidResources? = nil) throws -> PinningConfiguration {
        try PinningConfiguration(androidNetworkSecurityConfig: Data("<network-security-config>\(inner)</network-security-config>".utf8),
                                 resources: resources)
    }

    @Test("Which hosts: the domain-config's own element, else off under its own @raw anchors, else inherited, else off")
    func resolution() throws {
        try TemporaryDirectory.with { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("raw"), withIntermediateDirectories: true)
            try TestPKI.writePEM([f.root], to: dir.appendingPathComponent("raw/my_ca.pem"))
            let resources = AndroidResources(directory: dir.path)
            let c = try config("""
                <base-config><certificateTransparency enabled="true"/></base-config>
                <domain-config><domain includeSubdomains="true">public.example</domain>
                  <domain-config><domain>off.public.example</domain><certificateTransparency enabled="false"/></domain-config>
                </domain-config>
                <domain-config><domain includeSubdomains="true">own.example</domain>
                  <trust-anchors><certificates src="@raw/my_ca"/></trust-anchors>
                  <domain-config><domain>forced.own.example</domain><certificateTransparency enabled="true"/></domain-config>
                </domain-config>
                """, resources: resources)
            #expect(c.requiresCertificateTransparency(for: "elsewhere.example"), "base-config")
            #expect(c.requiresCertificateTransparency(for: "a.public.example"), "inherited from base-config")
            #expect(!c.requiresCertificateTransparency(for: "off.public.example"))
            #expect(!c.requiresCertificateTransparency(for: "own.example"), "its own @raw anchors turn it off")
            #expect(!c.requiresCertificateTransparency(for: "x.own.example"))
            #expect(c.requiresCertificateTransparency(for: "forced.own.example"), "enabled=true forces it over own CAs")
            #expect(!(try config("<base-config/>")).requiresCertificateTransparency(for: "a.example"), "off unless enabled")
        }
    }

    @Test("Enabled: a chain without enough SCTs is refused, one with them passes; without a log list the host is refused",
          arguments: TestBackends.names)
    func applied(backend: String) throws {
        let c = try config("<domain-config><domain>ct.example</domain><certificateTransparency enabled=\"true\"/></domain-config>")
        var evaluator = PinSetTrustEvaluator(c)
        evaluator.certificateTransparency = CertificateTransparencyPolicy(
            logList: try CertificateTransparencyLogList(logs: f.logs, timestamp: Date()), rules: .chrome)
        let pre = try f.precertificate()
        let logged = try pre.issueFinal(scts: [try f.embeddedSCT(f.logA, pre), try f.embeddedSCT(f.logB, pre)])
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM([f.root], to: bundle)
            func trust(_ leaf: TestCertificate) -> Trust {
                var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "ct.example")])
                trust.anchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
                return trust
            }
            let b = TestBackends.named(backend)
            #expect(throws: ServerTrustError.self) { try evaluator.evaluate(trust(try f.leaf()), forHost: "ct.example", using: b) }
            #expect(throws: Never.self) { try evaluator.evaluate(trust(logged), forHost: "ct.example", using: b) }
            #expect(throws: Never.self) { try evaluator.evaluate(trust(try f.leaf("other.example")), forHost: "other.example", using: b) }
            do {
                _ = try PinSetTrustEvaluator(c).evaluate(trust(logged), forHost: "ct.example", using: b)
                Issue.record("accepted without a log list")
            } catch let error as ServerTrustError {
                #expect(error.message.contains("no log list"), "\(error.message)")
            }
        }
    }

    @Test("On a chain validated elsewhere: accepted only when it was validated under an enforced, met CT policy")
    func validatedChain() throws {
        let c = try config("<domain-config><domain>ct.example</domain><certificateTransparency enabled=\"true\"/></domain-config>")
        let policy = CertificateTransparencyPolicy(logList: try CertificateTransparencyLogList(logs: f.logs, timestamp: Date()),
                                                   rules: .chrome, appliesToCustomAnchors: true)
        var evaluator = PinSetTrustEvaluator(c)
        evaluator.certificateTransparency = policy
        let pre = try f.precertificate()
        let logged = try pre.issueFinal(scts: [try f.embeddedSCT(f.logA, pre), try f.embeddedSCT(f.logB, pre)])
        func validated(_ withCT: Bool) throws -> (ValidatedChain, Trust) {
            var trust = Trust(certificates: [logged.certificate], policies: [.ssl(hostname: "ct.example")])
            trust.setAnchorCertificates([f.root.certificate])
            if withCT { trust.certificateTransparency = policy }
            return (try #require(trust.evaluate(using: TestBackends.all[0]).validatedChain), trust)
        }
        let (plain, plainTrust) = try validated(false)
        #expect(throws: ServerTrustError.self) { try evaluator.evaluate(validatedChain: plain, of: plainTrust, forHost: "ct.example") }
        let (checked, checkedTrust) = try validated(true)
        #expect(throws: Never.self) { try evaluator.evaluate(validatedChain: checked, of: checkedTrust, forHost: "ct.example") }
        #expect(throws: ServerTrustError.self) {
            try PinSetTrustEvaluator(c).evaluate(validatedChain: checked, of: checkedTrust, forHost: "ct.example")
        }
    }

    @Test("What Android does not define is refused by name")
    func refusals() throws {
        func expectRefused(_ inner: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try config(inner)
                Issue.record("accepted", sourceLocation: sourceLocation)
            } catch let error as PinningError {
                #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(error)", sourceLocation: sourceLocation)
            }
        }
        expectRefused("<base-config><certificateTransparency/></base-config>", "missing attribute enabled")
        expectRefused("<base-config><certificateTransparency enabled=\"yes\"/></base-config>", "enabled must be true or false")
        expectRefused("<base-config><certificateTransparency enabled=\"true\" logList=\"@raw/logs\"/></base-config>", "attribute logList")
        expectRefused("<base-config><certificateTransparency enabled=\"true\"><log-list/></certificateTransparency></base-config>",
                      "element <log-list>")
        expectRefused("<base-config><certificateTransparency enabled=\"true\"/><certificateTransparency enabled=\"false\"/></base-config>",
                      "more than one <certificateTransparency>")
        expectRefused("<debug-overrides><certificateTransparency enabled=\"false\"/></debug-overrides>", "element <certificateTransparency>")
    }
}
