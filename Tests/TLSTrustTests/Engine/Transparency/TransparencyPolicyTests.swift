import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Apple's and Chrome's CT policies through the one door, rule by rule: each test tries to meet a
/// rule with SCTs that must not count (the same operator twice, the same log twice, a retired
/// log's late SCT, a log whose interval misses the certificate, Static CT API logs alone, a stale
/// list). The chains end at the test root, given as an anchor with the opt-in for custom anchors.
@Suite("Engine: Certificate Transparency — Apple's and Chrome's policies")
struct TransparencyPolicyTests {
    static let day: TimeInterval = 86400
    let f: TransparencyFixture
    /// A second log of operator A, and a tiled log of operator C.
    let logA2: TestCTLog
    let tiledC: TestCTLog

    init() throws {
        f = try TransparencyFixture()
        logA2 = try TestCTLog(operator: "Operator A", name: "A second")
        tiledC = try TestCTLog(operator: "Operator C", kind: .staticCTAPI)
    }

    /// A leaf valid for `days` with embedded SCTs from `logs` (each dated `at`).
    func leaf(days: Double = 30, embedded logs: [TestCTLog], at date: Date = Date(timeIntervalSinceNow: -60)) throws -> TestCertificate {
        var profile = f.leafProfile()
        profile.notBefore = Date(timeIntervalSinceNow: -3600)
        profile.notAfter = profile.notBefore + days * Self.day - 1
        let pre = try TestPrecertificate(profile: profile, issuer: f.root)
        return try pre.issueFinal(scts: try logs.map { try $0.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash, at: date) })
    }

    func evaluate(_ leaf: TestCertificate, rules: CertificateTransparencyPolicy.Rules, logs: [CertificateTransparencyLog]? = nil,
                  tls: [TestCTLog] = [], ocsp: [TestCTLog] = [], listTimestamp: Date? = Date(), customAnchors: Bool = true,
                  backend: any TrustBackend = TestBackends.all[0]) throws -> TrustEvaluation {
        var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "ct.example")])
        trust.setAnchorCertificates([f.root.certificate])
        let list = try CertificateTransparencyLogList(logs: logs ?? [f.logA.log, f.logB.log, logA2.log, tiledC.log], timestamp: listTimestamp)
        trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules, appliesToCustomAnchors: customAnchors)
        if !tls.isEmpty {
            trust.signedCertificateTimestampList = SCTListEncoding.list(try tls.map { try $0.sct(forCertificate: leaf.der) })
        }
        if !ocsp.isEmpty {
            let list = SCTListEncoding.list(try ocsp.map { try $0.sct(forCertificate: leaf.der) })
            let single = OCSPResponseBuilder.SingleResponse(
                certID: try .init(certificate: leaf, issuer: f.root), status: .good,
                extensions: [RawExtension(oid: TransparencyOID.ocspSCTList, isCritical: false, valueDER: SCTListEncoding.extensionValue(list))])
            trust.ocspResponses = [try OCSPResponseBuilder(signer: f.root, responses: [single]).build()]
        }
        return trust.evaluate(using: backend)
    }

    func expectRefused(_ evaluation: TrustEvaluation, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!evaluation.isTrusted, sourceLocation: sourceLocation)
        #expect(evaluation.failures.map(\.code) == [.certificateTransparencyRequired], sourceLocation: sourceLocation)
        #expect(evaluation.failures.first?.detail.contains(words) == true, "\(evaluation.failures.first?.detail ?? "")",
                sourceLocation: sourceLocation)
        #expect(evaluation.result == .recoverableTrustFailure, sourceLocation: sourceLocation)
        #expect(evaluation.certificateTransparency?.isEnforced == true, sourceLocation: sourceLocation)
    }

    // MARK: Apple

    @Test("Apple, 180 days or less: 2 embedded SCTs of 2 operators; the same operator or the same log twice does not count",
          arguments: TestBackends.names)
    func appleShortLived(backend: String) throws {
        let b = TestBackends.named(backend)
        let good = try evaluate(try leaf(embedded: [f.logA, f.logB]), rules: .apple, backend: b)
        #expect(good.isTrusted)
        #expect(good.certificateTransparency?.isCompliant == true && good.certificateTransparency?.isEnforced == true)
        #expect(good.certificateTransparency?.timestamps.map(\.status) == [.valid, .valid])
        expectRefused(try evaluate(try leaf(embedded: [f.logA, logA2]), rules: .apple, backend: b), "at most 1 per operator")
        expectRefused(try evaluate(try leaf(embedded: [f.logA, f.logA]), rules: .apple, backend: b), "2 SCTs")
    }

    @Test("Apple, 181 to 398 days: 3 embedded SCTs, at most 2 per operator; over 398 days none suffice")
    func appleLonger() throws {
        #expect(try evaluate(try leaf(days: 300, embedded: [f.logA, logA2, f.logB]), rules: .apple).isTrusted)
        expectRefused(try evaluate(try leaf(days: 300, embedded: [f.logA, f.logB]), rules: .apple), "needs 3")
        let logA3 = try TestCTLog(operator: "Operator A", name: "A third")
        expectRefused(try evaluate(try leaf(days: 300, embedded: [f.logA, logA2, logA3]), rules: .apple,
                                   logs: [f.logA.log, logA2.log, logA3.log, f.logB.log]), "at most 2 per operator")
        expectRefused(try evaluate(try leaf(days: 400, embedded: [f.logA, logA2, f.logB]), rules: .apple), "over 398")
    }

    @Test("Apple: 2 SCTs from current logs with one by TLS or OCSP; a TLS SCT alone or an embedded one alone is not enough")
    func appleDelivered() throws {
        let plain = try f.leaf()
        #expect(try evaluate(plain, rules: .apple, tls: [f.logA, f.logB]).isTrusted)
        #expect(try evaluate(try leaf(embedded: [f.logA]), rules: .apple, tls: [logA2]).isTrusted)
        #expect(try evaluate(try leaf(embedded: [f.logA]), rules: .apple, ocsp: [f.logB]).isTrusted)
        expectRefused(try evaluate(plain, rules: .apple, tls: [f.logA]), "2 SCTs")
        expectRefused(try evaluate(plain, rules: .apple), "2 SCTs")
    }

    @Test("Apple: a retired log counts only for SCTs before its retirement; an interval that misses notAfter, a pending log, a bad SCT never")
    func appleLogStates() throws {
        let retired = TestCTLog(f.logB, state: .retired, stateSince: Date(timeIntervalSinceNow: -3 * Self.day), temporalInterval: nil)
        let logs = [f.logA.log, retired.log]
        #expect(try evaluate(try leaf(embedded: [f.logA, retired], at: Date(timeIntervalSinceNow: -4 * Self.day)), rules: .apple, logs: logs).isTrusted)
        expectRefused(try evaluate(try leaf(embedded: [f.logA, retired]), rules: .apple, logs: logs), "retired before the SCT")

        let elsewhere = TestCTLog(f.logB, state: .usable, stateSince: nil,
                                  temporalInterval: Date(timeIntervalSinceNow: 400 * Self.day)..<Date(timeIntervalSinceNow: 800 * Self.day))
        expectRefused(try evaluate(try leaf(embedded: [f.logA, elsewhere]), rules: .apple, logs: [f.logA.log, elsewhere.log]), "temporal interval")
        let pending = TestCTLog(f.logB, state: .pending, stateSince: nil, temporalInterval: nil)
        expectRefused(try evaluate(try leaf(embedded: [f.logA, pending]), rules: .apple, logs: [f.logA.log, pending.log]), "pending logs never count")
        let future = try evaluate(try leaf(embedded: [f.logA, f.logB], at: Date(timeIntervalSinceNow: 3600)), rules: .apple)
        expectRefused(future, "2 SCTs")
        #expect(future.certificateTransparency?.timestamps.map(\.status) == [.futureTimestamp, .futureTimestamp])
    }

    @Test("Apple: at least one SCT from an RFC 6962 log")
    func appleRFC6962() throws {
        let tiledD = try TestCTLog(operator: "Operator D", kind: .staticCTAPI)
        expectRefused(try evaluate(try leaf(embedded: [tiledC, tiledD]), rules: .apple, logs: [tiledC.log, tiledD.log]), "RFC 6962")
        #expect(try evaluate(try leaf(embedded: [tiledC, f.logA]), rules: .apple).isTrusted)
    }

    // MARK: Chrome

    @Test("Chrome, embedded: 2 (3 beyond 180 days) distinct logs of 2 operators, one of them current", arguments: TestBackends.names)
    func chromeEmbedded(backend: String) throws {
        let b = TestBackends.named(backend)
        #expect(try evaluate(try leaf(embedded: [f.logA, f.logB]), rules: .chrome, backend: b).isTrusted)
        expectRefused(try evaluate(try leaf(embedded: [f.logA, logA2]), rules: .chrome, backend: b), "2 distinct log operators")
        expectRefused(try evaluate(try leaf(days: 200, embedded: [f.logA, f.logB]), rules: .chrome, backend: b), "3 distinct logs")
        #expect(try evaluate(try leaf(days: 200, embedded: [f.logA, logA2, f.logB]), rules: .chrome, backend: b).isTrusted)
        let retiredA = TestCTLog(f.logA, state: .retired, stateSince: Date(), temporalInterval: nil)
        let retiredB = TestCTLog(f.logB, state: .retired, stateSince: Date(), temporalInterval: nil)
        expectRefused(try evaluate(try leaf(embedded: [retiredA, retiredB]), rules: .chrome, logs: [retiredA.log, retiredB.log], backend: b),
                      "qualified, usable or read-only")
    }

    @Test("Chrome, TLS or OCSP: 2 SCTs from current logs of 2 operators, one from an RFC 6962 log")
    func chromeDelivered() throws {
        let plain = try f.leaf()
        #expect(try evaluate(plain, rules: .chrome, tls: [f.logA, f.logB]).isTrusted)
        #expect(try evaluate(plain, rules: .chrome, ocsp: [f.logA, f.logB]).isTrusted, "OCSP-delivered SCTs count")
        #expect(try evaluate(plain, rules: .chrome, tls: [f.logA], ocsp: [f.logB]).isTrusted)
        expectRefused(try evaluate(plain, rules: .chrome, tls: [f.logA, logA2]), "neither is present")
        expectRefused(try evaluate(plain, rules: .chrome, tls: [f.logA], ocsp: [logA2]), "neither is present")
        let tiledD = try TestCTLog(operator: "Operator D", kind: .staticCTAPI)
        expectRefused(try evaluate(plain, rules: .chrome, logs: [tiledC.log, tiledD.log], tls: [tiledC, tiledD]), "neither is present")
        #expect(try evaluate(plain, rules: .chrome, logs: [tiledC.log, f.logA.log], tls: [tiledC, f.logA]).isTrusted)
    }

    @Test("Chrome: a log list over 70 days old, or without a timestamp, stops enforcement and says so")
    func chromeStaleList() throws {
        let plain = try f.leaf()
        let stale = try evaluate(plain, rules: .chrome, listTimestamp: Date(timeIntervalSinceNow: -71 * Self.day))
        #expect(stale.isTrusted)
        #expect(stale.certificateTransparency?.isEnforced == false)
        #expect(stale.certificateTransparency?.reason.contains("days old") == true)
        let undated = try evaluate(plain, rules: .chrome, listTimestamp: nil)
        #expect(undated.isTrusted && undated.certificateTransparency?.isEnforced == false)
        expectRefused(try evaluate(plain, rules: .chrome, listTimestamp: Date(timeIntervalSinceNow: -69 * Self.day)), "neither")
        expectRefused(try evaluate(plain, rules: .apple, listTimestamp: Date(timeIntervalSinceNow: -400 * Self.day)), "2 SCTs")
    }

    @Test("A chain that ends at a custom anchor is held to the policy only with the opt-in; the report is there either way")
    func customAnchors() throws {
        let plain = try f.leaf()
        let relaxed = try evaluate(plain, rules: .apple, customAnchors: false)
        #expect(relaxed.isTrusted && relaxed.result == .proceed)
        #expect(relaxed.certificateTransparency?.isEnforced == false)
        #expect(relaxed.certificateTransparency?.isCompliant == false)
        #expect(relaxed.certificateTransparency?.reason.contains("anchor the app supplied") == true)
        expectRefused(try evaluate(plain, rules: .apple, customAnchors: true), "2 SCTs")
    }

    @Test("A result kept with the leaf answers only the same SCTs, list, rules and issuer, at a time no SCT is after")
    func keptResults() throws {
        let leaf = try f.leaf()
        let good = SCTListEncoding.list([try f.logA.sct(forCertificate: leaf.der), try f.logB.sct(forCertificate: leaf.der)])
        let list = try CertificateTransparencyLogList(logs: [f.logA.log, f.logB.log], timestamp: Date())
        func evaluate(_ sctList: [UInt8], list: CertificateTransparencyLogList, rules: CertificateTransparencyPolicy.Rules = .apple,
                      at date: Date? = nil) -> TrustEvaluation {
            var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "ct.example")])
            trust.setAnchorCertificates([f.root.certificate])
            trust.verificationDate = date
            trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules, appliesToCustomAnchors: true)
            trust.signedCertificateTimestampList = sctList
            return trust.evaluate(using: TestBackends.all[0])
        }
        #expect(evaluate(good, list: list).isTrusted)
        #expect(evaluate(good, list: list).isTrusted, "answered from the kept result")
        expectRefused(evaluate(Array(good.prefix(good.count - 1)) + [good.last! ^ 1], list: list), "2 SCTs")
        let onlyA = try CertificateTransparencyLogList(logs: [f.logA.log], timestamp: Date())
        expectRefused(evaluate(good, list: onlyA), "2 SCTs")
        #expect(evaluate(good, list: list, rules: .chrome).certificateTransparency?.reason.contains("delivered by TLS or OCSP") == true,
                "Chrome's own reason, not Apple's kept one")
        let early = evaluate(good, list: list, at: Date(timeIntervalSinceNow: -600))
        expectRefused(early, "2 SCTs")
        #expect(early.certificateTransparency?.timestamps.map(\.status) == [.futureTimestamp, .futureTimestamp])
        #expect(evaluate(good, list: list).isTrusted)
    }
}
