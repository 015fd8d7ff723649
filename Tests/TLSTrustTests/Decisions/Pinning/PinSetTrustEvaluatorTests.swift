import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Every rule of the SPKI pin-set evaluator, on every backend, with chains from the factory.
@Suite("Pin-set evaluator")
struct PinSetTrustEvaluatorTests {
    typealias F = PinningFixtures

    static func hierarchy() throws -> TestHierarchy {
        try TestHierarchy.make(leafDNSNames: ["api.example.com", "v2.api.example.com"])
    }

    func evaluate(_ set: PinSet, _ h: TestHierarchy, host: String = "api.example.com", backend: String,
                  reporter: (any PinFailureReporter)? = nil, at date: Date? = nil) throws -> ServerTrustDecision {
        try PinSetTrustEvaluator(set, reporter: reporter)
            .evaluate(F.trust(h, at: date), forHost: host, using: TestBackends.named(backend))
    }

    func refusal(_ body: () throws -> ServerTrustDecision) -> ServerTrustError? {
        do {
            let decision = try body()
            Issue.record("accepted: \(decision)")
            return nil
        } catch let error as ServerTrustError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("a pin matches at its position in the validated chain", arguments: TestBackends.names)
    func positions(backend: String) throws {
        let h = try Self.hierarchy()
        let spare = try F.sparePin()
        // Any position: the leaf's key matches at index 0.
        var decision = try evaluate(try PinSet(domain: "api.example.com", pins: [F.pin(h.leaf), spare]), h, backend: backend)
        #expect(decision.pinMatch?.chainIndex == 0)
        #expect(decision.pinMatch?.positions == [.leaf])
        #expect(decision.evaluator == "PinSetTrustEvaluator")
        #expect(decision.validatedChain?.count == 3)
        // The intermediate and the root, each where it sits.
        decision = try evaluate(try PinSet(domain: "api.example.com", pins: [F.pin(h.intermediate, position: .intermediate), spare]), h, backend: backend)
        #expect(decision.pinMatch?.chainIndex == 1)
        decision = try evaluate(try PinSet(domain: "api.example.com", pins: [F.pin(h.root, position: .root), spare]), h, backend: backend)
        #expect(decision.pinMatch?.chainIndex == 2)
        decision = try evaluate(try PinSet(domain: "api.example.com", pins: [F.pin(h.leaf, position: .leaf), spare]), h, backend: backend)
        #expect(decision.pinMatch?.chainIndex == 0)

        // Each key at a position it does not hold is no match.
        for pin in [F.pin(h.intermediate, position: .leaf), F.pin(h.leaf, position: .intermediate), F.pin(h.leaf, position: .root),
                    F.pin(h.root, position: .intermediate), F.pin(h.intermediate, position: .root)] {
            let error = refusal { try evaluate(try PinSet(domain: "api.example.com", pins: [pin, spare]), h, backend: backend) }
            #expect(error?.code == .pinSetFailed, "\(pin)")
        }
    }

    @Test("sha384/ and sha512/ pins match like sha256/ ones", arguments: TestBackends.names)
    func longerDigests(backend: String) throws {
        let h = try Self.hierarchy()
        let set = try PinSet(domain: "api.example.com", pins: [F.pin(h.intermediate, .sha384), F.pin(h.root, .sha512)])
        #expect(try evaluate(set, h, backend: backend).pinMatch?.chainIndex == 1)
    }

    @Test("an enforced mismatch refuses and reports the validated chain", arguments: TestBackends.names)
    func enforcedMismatch(backend: String) throws {
        let h = try Self.hierarchy()
        let reporter = CollectingReporter()
        let set = try PinSet(domain: "example.com", pins: [try F.sparePin(), try F.sparePin()], includesSubdomains: true,
                             reportURIs: [URL(string: "https://reports.example.net/pins")!])
        let error = refusal { try evaluate(set, h, backend: backend, reporter: reporter) }
        #expect(error?.code == .pinSetFailed)
        #expect(error?.expectedPins == set.pins.map(\.text))
        #expect(error?.builtChain == [h.leaf, h.intermediate, h.root].certificates)
        let report = try #require(reporter.reports.first)
        #expect(reporter.reports.count == 1)
        #expect(report.hostname == "api.example.com" && report.port == 443 && report.notedHostname == "example.com")
        #expect(report.includeSubdomains && report.enforce)
        #expect(report.validatedCertificateChain == [h.leaf, h.intermediate, h.root].map(\.certificate.pemEncoded))
        #expect(report.knownPins == set.pins.map { "pin-sha256=\"\($0.text.dropFirst(7))\"" })
        #expect(report.reason.contains("no pin"))
    }

    @Test("report-only: a mismatch is reported, not refused", arguments: TestBackends.names)
    func reportOnly(backend: String) throws {
        let h = try Self.hierarchy()
        let reporter = CollectingReporter()
        let set = try PinSet(domain: "api.example.com", pins: [try F.sparePin()], enforces: false)
        let decision = try evaluate(set, h, backend: backend, reporter: reporter)
        #expect(decision.pinMatch == nil)
        #expect(decision.reason.contains("report-only"))
        #expect(reporter.reports.count == 1 && reporter.reports.first?.enforce == false)
    }

    @Test("an expired set no longer applies, but default validation still runs", arguments: TestBackends.names)
    func expiry(backend: String) throws {
        let h = try Self.hierarchy()
        let set = try PinSet(domain: "api.example.com", pins: [try F.sparePin(), try F.sparePin()],
                             expiration: Date().addingTimeInterval(-86400))
        let reporter = CollectingReporter()
        let decision = try evaluate(set, h, backend: backend, reporter: reporter)
        #expect(decision.reason.contains("expired") && reporter.reports.isEmpty)
        // Before the expiry (a verification date in the past), the same set refuses.
        let past = Date().addingTimeInterval(-2 * 86400)
        let h2 = try TestHierarchy.make(leafDNSNames: ["api.example.com"], customizeRoot: { $0.notBefore = past.addingTimeInterval(-3600) },
                                        customizeIntermediate: { $0.notBefore = past.addingTimeInterval(-3600) },
                                        customizeLeaf: { $0.notBefore = past.addingTimeInterval(-3600) })
        #expect(refusal { try evaluate(set, h2, backend: backend, at: past) }?.code == .pinSetFailed)
        // Expired pins never excuse a chain that does not validate.
        let stranger = try Self.hierarchy()
        var trust = F.trust(h)
        trust.anchors = .only(stranger.anchors.certificates)
        #expect(throws: ServerTrustError.self) {
            try PinSetTrustEvaluator(set).evaluate(trust, forHost: "api.example.com", using: TestBackends.named(backend))
        }
    }

    @Test("includeSubdomains decides whether a subdomain is pinned", arguments: TestBackends.names)
    func subdomains(backend: String) throws {
        let h = try Self.hierarchy()
        let spare = [try F.sparePin(), try F.sparePin()]
        let exact = try PinSet(domain: "api.example.com", pins: spare)
        #expect(try evaluate(exact, h, host: "v2.api.example.com", backend: backend).reason.contains("not pinned"))
        let deep = try PinSet(domain: "api.example.com", pins: spare, includesSubdomains: true)
        #expect(refusal { try evaluate(deep, h, host: "v2.api.example.com", backend: backend) }?.code == .pinSetFailed)
    }

    @Test("default validation always runs: matching pins never excuse an invalid chain", arguments: TestBackends.names)
    func defaultValidationFirst(backend: String) throws {
        let h = try Self.hierarchy()
        let set = try PinSet(domain: "api.example.com", pins: [F.pin(h.leaf), F.pin(h.root)])
        let reporter = CollectingReporter()
        // Wrong host name.
        #expect(refusal { try evaluate(set, h, host: "api.example.org", backend: backend, reporter: reporter) }?.code == .hostValidationFailed)
        // Unknown anchor: the pinned root is not trusted.
        var trust = F.trust(h)
        trust.anchors = .only([])
        let error = refusal {
            try PinSetTrustEvaluator(set, reporter: reporter).evaluate(trust, forHost: "api.example.com", using: TestBackends.named(backend))
        }
        #expect(error?.code == .defaultEvaluationFailed)
        #expect(reporter.reports.isEmpty, "only pin failures of a validated chain are reported")
    }

    @Test("a forged chain with the genuine pinned certificate appended is refused (OkHttp CVE-2016-2402)", arguments: TestBackends.names)
    func appendedGenuineCertificate(backend: String) throws {
        let genuine = try Self.hierarchy()
        let attacker = try Self.hierarchy()   // a CA the client trusts too (say, a mis-issuing public CA)
        let set = try PinSet(domain: "api.example.com", pins: [F.pin(genuine.intermediate), F.pin(genuine.root)])
        var trust = Trust(certificates: [attacker.leaf, attacker.intermediate, genuine.intermediate, genuine.root].certificates)
        trust.anchors = .only([attacker.root, genuine.root].certificates)
        let error = refusal {
            try PinSetTrustEvaluator(set).evaluate(trust, forHost: "api.example.com", using: TestBackends.named(backend))
        }
        #expect(error?.code == .pinSetFailed)
        #expect(error?.builtChain == [attacker.leaf, attacker.intermediate, attacker.root].certificates)
    }

    @Test("hosts without a set are validated and accepted; an excluded subdomain too", arguments: TestBackends.names)
    func unpinnedHosts(backend: String) throws {
        let h = try Self.hierarchy()
        let spare = [try F.sparePin(), try F.sparePin()]
        let configuration = try PinningConfiguration([
            try PinSet(domain: "example.com", pins: spare, includesSubdomains: true), .excluded(domain: "api.example.com"),
        ])
        let decision = try PinSetTrustEvaluator(configuration)
            .evaluate(F.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        #expect(decision.reason.contains("not pinned") && decision.isValidated)
        #expect(throws: ServerTrustError.self) {
            try PinSetTrustEvaluator(configuration)
                .evaluate(F.trust(h), forHost: "v2.api.example.com", using: TestBackends.named(backend))
        }
    }

    @Test func theShorthandAndLintForwardTheConfiguration() throws {
        let configuration = try PinningConfiguration([try PinSet(domain: "example.com", pins: [try F.sparePin()], allowsSinglePin: true)])
        let evaluator: PinSetTrustEvaluator = .pinSets(configuration)
        #expect(evaluator.configuration == configuration)
        #expect(evaluator.lint().map(\.code) == [.singlePin])
    }
}
