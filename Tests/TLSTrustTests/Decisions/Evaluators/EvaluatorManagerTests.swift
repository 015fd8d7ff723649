import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("Evaluators: ServerTrustManager")
struct EvaluatorManagerTests {
    private func key(_ manager: ServerTrustManager, _ host: String) -> String? { manager.rule(forHost: host)?.key }

    @Test func exactNamesAndPatternsChooseTheEvaluator() throws {
        let m = try ServerTrustManager(evaluators: [
            "api.example.com": DefaultTrustEvaluator(),
            "*.example.com": DefaultTrustEvaluator(),
            "**.cdn.example.com": DefaultTrustEvaluator(),
            "*.cdn.example.com": DefaultTrustEvaluator(),
            "**.example.org": DefaultTrustEvaluator(),
            "192.0.2.1": DefaultTrustEvaluator(),
            "[2001:db8::1]": DefaultTrustEvaluator(),
        ])
        #expect(key(m, "api.example.com") == "api.example.com")
        #expect(key(m, "API.Example.COM.") == "api.example.com", "case-insensitive; one trailing dot dropped")
        #expect(key(m, "www.example.com") == "*.example.com")
        #expect(key(m, "example.com") == nil, "*. needs exactly one label")
        #expect(key(m, "a.b.example.com") == nil, "*. matches one label only")
        #expect(key(m, "cdn.example.com") == "**.cdn.example.com", "both match; the longer suffix wins")
        #expect(key(m, "img.cdn.example.com") == "*.cdn.example.com", "*. wins over **. on the same suffix")
        #expect(key(m, "a.b.cdn.example.com") == "**.cdn.example.com")
        #expect(key(m, "example.org") == "**.example.org", "**. matches no label too")
        #expect(key(m, "x.y.z.example.org") == "**.example.org")
        #expect(key(m, "badexample.org") == nil, "a suffix match is on a label boundary")
        #expect(key(m, "example.org.evil.com") == nil)
        #expect(key(m, "192.0.2.1") == "192.0.2.1")
        #expect(key(m, "2001:db8:0::1") == "[2001:db8::1]", "IP literals compare canonically")
        #expect(key(m, ".example.com") == nil)
    }

    @Test func malformedKeysAreRefused() {
        for bad in ["", "*", "*.", "**.", "a.*.example.com", "w*.example.com", "*.*.example.com", "***.example.com", "..example.com"] {
            #expect(throws: TLSTrustError.self, "\(bad)") { try ServerTrustManager(evaluators: [bad: DefaultTrustEvaluator()]) }
        }
        #expect(throws: TLSTrustError.self) {
            try ServerTrustManager(evaluators: ["Example.com": DefaultTrustEvaluator(), "example.com.": DefaultTrustEvaluator()])
        }
    }

    @Test(arguments: TestBackends.names)
    func theManagerEvaluatesWithTheChosenEvaluatorAndRefusesUnknownHosts(_ name: String) throws {
        let backend = TestBackends.named(name)
        let w = try EvaluatorWorld()
        let m = try ServerTrustManager(evaluators: ["**.example.com": .anchored([w.app.root.certificate])])
        let decision = try m.evaluate(w.trust(w.app.chain), forHost: EvaluatorWorld.host, using: backend)
        #expect(decision.evaluator == "AnchoredTrustEvaluator")
        #expect(decision.reason.hasPrefix("rule '**.example.com'"))
        #expect(decision.steps.count == 1)
        expectRefusal(.defaultEvaluationFailed) { try m.evaluate(w.trust(w.real.chain), forHost: EvaluatorWorld.host, using: backend) }

        let unknown = expectRefusal(.noEvaluatorForHost) { try m.evaluate(w.trust(w.real.chain), forHost: "api.example.net", using: backend) }
        #expect(unknown?.host == "api.example.net")
        #expect(throws: ServerTrustError.self) { try m.serverTrustEvaluator(forHost: "api.example.net") }

        // Not all hosts: an unknown host gets default evaluation, never a free pass.
        let lax = try ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: ["**.example.com": .anchored([w.app.root.certificate])])
        #expect(try lax.serverTrustEvaluator(forHost: "api.example.net") == nil)
        let realHost = try TestHierarchy.make(leafDNSNames: ["api.example.net"])
        let trust = Trust(certificates: realHost.chain.certificates, anchors: .only([realHost.root.certificate]))
        #expect(try lax.evaluate(trust, forHost: "api.example.net", using: backend).evaluator == "DefaultTrustEvaluator")
        expectRefusal(.defaultEvaluationFailed) { try lax.evaluate(w.trust(w.app.chain), forHost: "api.example.net", using: backend) }
        #expect(lax.lint().map(\.code) == [.hostsNotEvaluated])
    }

    @Test func managerLintNamesTheKey() throws {
        let m = try ServerTrustManager(evaluators: ["a.example.com": DefaultTrustEvaluator(validateHost: false)])
        let warnings = m.lint()
        #expect(warnings.map(\.code) == [.domainValidationDisabled])
        #expect(warnings.first?.subject == "a.example.com: DefaultTrustEvaluator")
    }
}
