import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Each CT rule at its edge, to the second where the rule has one: lifetimes, the list's age, log
/// retirements before and after the time of check, read-only logs, operator history, Static CT
/// API logs, and Apple's tables chosen by the certificate's issuance. Every chain ends at a root
/// issued long before the dates used, given as an anchor with the opt-in for custom anchors.
@Suite("Engine: Certificate Transparency — each rule at its edge")
struct TransparencyRuleEdgeTests {
    static let day: TimeInterval = 86400
    let root: TestCertificate
    let logA: TestCTLog
    let logA2: TestCTLog
    let logB: TestCTLog
    let now = Date()

    init() throws {
        var profile = CertificateProfile.certificateAuthority(commonName: "CT Edge Root")
        profile.notBefore = Date(timeIntervalSince1970: 1_500_000_000)
        root = try TestPKI.issue(profile)
        logA = try TestCTLog(operator: "Operator A")
        logA2 = try TestCTLog(operator: "Operator A", name: "A second")
        logB = try TestCTLog(operator: "Operator B", keyType: .rsa(bits: 2048))
    }

    /// A leaf valid from `notBefore` for `seconds` (notAfter − notBefore), embedding an SCT of
    /// each log at its date (a minute after notBefore when none is given).
    func leaf(from notBefore: Date? = nil, seconds: TimeInterval = 30 * day, embedded: [(TestCTLog, Date?)]) throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: "ct.example", dnsNames: ["ct.example"])
        profile.notBefore = notBefore ?? now - 3600
        profile.notAfter = profile.notBefore + seconds
        let pre = try TestPrecertificate(profile: profile, issuer: root)
        return try pre.issueFinal(scts: try embedded.map { log, date in
            try log.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash, at: date ?? profile.notBefore + 60)
        })
    }

    func evaluate(_ leaf: TestCertificate, _ rules: CertificateTransparencyPolicy.Rules, logs: [CertificateTransparencyLog],
                  tls: [TestCTLog] = [], listTimestamp: Date? = nil, at date: Date? = nil) throws -> TrustEvaluation {
        var trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "ct.example")])
        trust.setAnchorCertificates([root.certificate])
        trust.verificationDate = date ?? now
        let list = try CertificateTransparencyLogList(logs: logs, timestamp: listTimestamp ?? now)
        trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules, appliesToCustomAnchors: true)
        if !tls.isEmpty {
            trust.signedCertificateTimestampList = SCTListEncoding.list(try tls.map { try $0.sct(forCertificate: leaf.der, at: now - 120) })
        }
        return trust.evaluate(using: TestBackends.all[0])
    }

    func expectRefused(_ evaluation: TrustEvaluation, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(evaluation.failures.map(\.code) == [.certificateTransparencyRequired], sourceLocation: sourceLocation)
        #expect(evaluation.failures.first?.detail.contains(words) == true, "\(evaluation.failures.first?.detail ?? "trusted")",
                sourceLocation: sourceLocation)
    }

    var ab: [CertificateTransparencyLog] { [logA.log, logA2.log, logB.log] }

    @Test("Lifetime: Chrome needs 3 embedded SCTs from 180 days and 1 second (notAfter − notBefore); Apple from 180 days counted inclusively")
    func lifetimeEdges() throws {
        #expect(try evaluate(try leaf(seconds: 180 * Self.day, embedded: [(logA, nil), (logB, nil)]), .chrome, logs: ab).isTrusted)
        expectRefused(try evaluate(try leaf(seconds: 180 * Self.day + 1, embedded: [(logA, nil), (logB, nil)]), .chrome, logs: ab),
                      "needs embedded SCTs from 3 distinct logs")
        #expect(try evaluate(try leaf(seconds: 180 * Self.day - 1, embedded: [(logA, nil), (logB, nil)]), .apple, logs: ab).isTrusted)
        expectRefused(try evaluate(try leaf(seconds: 180 * Self.day, embedded: [(logA, nil), (logB, nil)]), .apple, logs: ab), "needs 3")
    }

    @Test("Chrome stops enforcing when the list is 70 days old, not a second before")
    func listAgeEdge() throws {
        let plain = try leaf(embedded: [])
        let stale = try evaluate(plain, .chrome, logs: ab, listTimestamp: now - 70 * Self.day)
        #expect(stale.isTrusted && stale.certificateTransparency?.isEnforced == false)
        expectRefused(try evaluate(plain, .chrome, logs: ab, listTimestamp: now - 70 * Self.day + 1), "neither is present")
    }

    @Test("Chrome: embedded SCTs only from Static CT API logs do not meet the policy")
    func chromeEmbeddedRFC6962() throws {
        let tiledC = try TestCTLog(operator: "Operator C", kind: .staticCTAPI)
        let tiledD = try TestCTLog(operator: "Operator D", kind: .staticCTAPI)
        expectRefused(try evaluate(try leaf(embedded: [(tiledC, nil), (tiledD, nil)]), .chrome, logs: [tiledC.log, tiledD.log]), "RFC 6962")
        #expect(try evaluate(try leaf(embedded: [(tiledC, nil), (logA, nil)]), .chrome, logs: [tiledC.log, logA.log]).isTrusted)
    }

    @Test("A log retired after the time of check counts as current; from its retirement, its TLS SCTs never count", arguments: CertificateTransparencyPolicy.Rules.allCases)
    func retirementAtTimeOfCheck(rules: CertificateTransparencyPolicy.Rules) throws {
        let retiring = TestCTLog(logB, state: .retired, stateSince: now + Self.day, temporalInterval: nil)
        let plain = try leaf(embedded: [])
        #expect(try evaluate(plain, rules, logs: [logA.log, retiring.log], tls: [logA, retiring]).isTrusted)
        let after = try evaluate(plain, rules, logs: [logA.log, retiring.log], tls: [logA, retiring], at: now + Self.day)
        #expect(!after.isTrusted)
        #expect(after.certificateTransparency?.reason.contains("a retired log's SCT counts only when embedded") == true,
                "\(after.certificateTransparency?.reason ?? "")")
    }

    @Test("An embedded SCT of a retired log counts only when it and the certificate's issuance predate the retirement",
          arguments: CertificateTransparencyPolicy.Rules.allCases)
    func retiredEmbedded(rules: CertificateTransparencyPolicy.Rules) throws {
        let retiredAt = now - 2 * Self.day
        let retired = TestCTLog(logB, state: .retired, stateSince: retiredAt, temporalInterval: nil)
        let logs = [logA.log, retired.log]
        let early = try leaf(from: now - 5 * Self.day, embedded: [(logA, retiredAt - 10), (retired, retiredAt - 10)])
        #expect(try evaluate(early, rules, logs: logs).isTrusted)
        // The retired log's SCT predates its retirement, but the certificate's earliest SCT from a
        // current log (its issuance) does not.
        let late = try leaf(from: now - 5 * Self.day, embedded: [(logA, retiredAt + 10), (retired, retiredAt - 10)])
        let refused = try evaluate(late, rules, logs: logs)
        #expect(!refused.isTrusted)
        #expect(refused.certificateTransparency?.reason.contains("retired before the certificate's issuance") == true,
                "\(refused.certificateTransparency?.reason ?? "")")
        let after = try leaf(from: now - 5 * Self.day, embedded: [(logA, retiredAt - 10), (retired, retiredAt + 10)])
        #expect(try evaluate(after, rules, logs: logs).certificateTransparency?.reason.contains("retired before the SCT's timestamp") == true)
    }

    @Test("An SCT counts for the operator that ran the log when it was issued (previous_operators)")
    func operatorHistory() throws {
        let handedOver = TestCTLog(logB, state: .usable, stateSince: nil, temporalInterval: nil,
                                   previousOperators: [.init(name: "Operator A", endTime: now + Self.day)])
        let certificate = try leaf(embedded: [(logA, nil), (handedOver, nil)])
        expectRefused(try evaluate(certificate, .chrome, logs: [logA.log, handedOver.log]), "2 distinct log operators")
        expectRefused(try evaluate(certificate, .apple, logs: [logA.log, handedOver.log]), "at most 1 per operator")
        let earlier = TestCTLog(logB, state: .usable, stateSince: nil, temporalInterval: nil,
                                previousOperators: [.init(name: "Operator A", endTime: now - Self.day)])
        #expect(try evaluate(certificate, .chrome, logs: [logA.log, earlier.log]).isTrusted)
        #expect(try evaluate(certificate, .apple, logs: [logA.log, earlier.log]).isTrusted)
    }

    @Test("Apple: an SCT dated after its log became read-only does not count; Chrome counts read-only logs at the time of check")
    func readOnly() throws {
        let frozen = TestCTLog(logB, state: .readOnly, stateSince: now - Self.day, temporalInterval: nil)
        let late = try leaf(embedded: [(logA, nil), (frozen, now - 60)])
        expectRefused(try evaluate(late, .apple, logs: [logA.log, frozen.log]), "dated after the log became read-only")
        #expect(try evaluate(late, .chrome, logs: [logA.log, frozen.log]).isTrusted)
        let early = try leaf(from: now - 3 * Self.day, embedded: [(logA, nil), (frozen, now - 2 * Self.day)])
        #expect(try evaluate(early, .apple, logs: [logA.log, frozen.log]).isTrusted)
    }

    @Test("Apple's table is chosen by notBefore: months (no operator limit) a second before its day table starts, days from it")
    func appleTableByIssuance() throws {
        let start = Date(timeIntervalSince1970: 1_618_963_200)
        let at = start + 10 * Self.day
        let sameOperator: [(TestCTLog, Date?)] = [(logA, start + 60), (logA2, start + 60)]
        // About 13 months: 2 SCTs under the month table, whatever their operators; over 398 days under the day table.
        let before = try evaluate(try leaf(from: start - 1, seconds: 400 * Self.day, embedded: sameOperator), .apple, logs: ab, at: at)
        #expect(before.isTrusted, "\(before.certificateTransparency?.reason ?? "")")
        expectRefused(try evaluate(try leaf(from: start, seconds: 400 * Self.day, embedded: sameOperator), .apple, logs: ab, at: at), "over 398")
        // 16 months: 3 SCTs.
        expectRefused(try evaluate(try leaf(from: start - 1, seconds: 490 * Self.day, embedded: sameOperator), .apple, logs: ab, at: at),
                      "needs 3")
        #expect(try evaluate(try leaf(from: start - 1, seconds: 490 * Self.day, embedded: sameOperator + [(logB, start + 60)]),
                             .apple, logs: ab, at: at).isTrusted)
    }

    @Test("Apple holds a chain ending at a system anchor to CT from its requirement's start, by the leaf's notBefore")
    func appleRequirementStart() throws {
        let start = Date(timeIntervalSince1970: 1_539_648_000)
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM([root], to: bundle)
            func evaluate(notBefore: Date) throws -> TrustEvaluation {
                var trust = Trust(certificates: [try leaf(from: notBefore, embedded: []).certificate], policies: [.ssl(hostname: "ct.example")])
                trust.anchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
                trust.verificationDate = start + 10 * Self.day
                trust.certificateTransparency = CertificateTransparencyPolicy(
                    logList: try CertificateTransparencyLogList(logs: ab, timestamp: start), rules: .apple)
                return trust.evaluate(using: TestBackends.all[0])
            }
            let older = try evaluate(notBefore: start - 1)
            #expect(older.isTrusted && older.certificateTransparency?.isEnforced == false)
            #expect(older.certificateTransparency?.reason.contains("before Apple began requiring CT") == true)
            expectRefused(try evaluate(notBefore: start), "2 SCTs")
        }
    }

    @Test("Rejected logs and logs without a state never count, under either policy", arguments: CertificateTransparencyPolicy.Rules.allCases)
    func rejectedAndStateless(rules: CertificateTransparencyPolicy.Rules) throws {
        let rejected = TestCTLog(logB, state: .rejected, stateSince: now - Self.day, temporalInterval: nil)
        let stateless = TestCTLog(logB, state: nil, stateSince: nil, temporalInterval: nil)
        for log in [rejected, stateless] {
            let certificate = try leaf(embedded: [(logA, nil), (log, nil)])
            let evaluation = try evaluate(certificate, rules, logs: [logA.log, log.log], tls: [logA, log])
            #expect(!evaluation.isTrusted)
            #expect(evaluation.certificateTransparency?.reason.contains("logs never count") == true,
                    "\(evaluation.certificateTransparency?.reason ?? "")")
        }
    }

    @Test("An SCT dated before the certificate's notBefore counts, as in trustd and Chrome", arguments: CertificateTransparencyPolicy.Rules.allCases)
    func sctBeforeNotBefore(rules: CertificateTransparencyPolicy.Rules) throws {
        let certificate = try leaf(embedded: [(logA, now - 2 * Self.day), (logB, now - 2 * Self.day)])
        let evaluation = try evaluate(certificate, rules, logs: ab)
        #expect(evaluation.isTrusted)
        #expect(evaluation.certificateTransparency?.timestamps.map(\.status) == [.valid, .valid])
    }

    @Test("A kept report is not answered when the opt-in, the OCSP SCTs, or the side of a retirement or of the list's 70 days differ")
    func keptReportKey() throws {
        let plain = try leaf(embedded: [])
        let retiring = TestCTLog(logB, state: .retired, stateSince: now + Self.day, temporalInterval: nil)
        let list = try CertificateTransparencyLogList(logs: [logA.log, retiring.log], timestamp: now - 60 * Self.day)
        let good = SCTListEncoding.list([try logA.sct(forCertificate: plain.der, at: now - 120), try retiring.sct(forCertificate: plain.der, at: now - 120)])
        let other = try leaf(embedded: [])
        let borrowed = SCTListEncoding.list([try logA.sct(forCertificate: other.der, at: now - 120), try retiring.sct(forCertificate: other.der, at: now - 120)])
        func evaluate(_ rules: CertificateTransparencyPolicy.Rules = .apple, ocsp: [UInt8]? = nil, optIn: Bool = true,
                      at date: Date? = nil) throws -> TrustEvaluation {
            var trust = Trust(certificates: [plain.certificate], policies: [.ssl(hostname: "ct.example")])
            trust.setAnchorCertificates([root.certificate])
            trust.verificationDate = date ?? now
            trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules, appliesToCustomAnchors: optIn)
            if let ocsp {
                let single = OCSPResponseBuilder.SingleResponse(
                    certID: try .init(certificate: plain, issuer: root), status: .good,
                    extensions: [RawExtension(oid: TransparencyOID.ocspSCTList, isCritical: false, valueDER: SCTListEncoding.extensionValue(ocsp))])
                trust.ocspResponses = [try OCSPResponseBuilder(signer: root, responses: [single]).build()]
            }
            return trust.evaluate(using: TestBackends.all[0])
        }
        // The opt-in for custom anchors.
        #expect(try !evaluate().isTrusted)
        #expect(try evaluate(optIn: false).isTrusted)
        #expect(try !evaluate().isTrusted)
        // Other OCSP bytes: SCTs for another certificate.
        #expect(try evaluate(ocsp: good).isTrusted)
        #expect(try !evaluate(ocsp: borrowed).isTrusted)
        #expect(try evaluate(ocsp: good).isTrusted)
        // The time of check past the retirement of one of the two logs, and back.
        #expect(try !evaluate(ocsp: good, at: now + Self.day).isTrusted)
        #expect(try evaluate(ocsp: good).isTrusted)
        // Chrome's 70 days: enforced before, not from them on, and enforced again before.
        #expect(try !evaluate(.chrome, at: now + 10 * Self.day - 1).isTrusted)
        #expect(try evaluate(.chrome, at: now + 10 * Self.day).certificateTransparency?.isEnforced == false)
        #expect(try !evaluate(.chrome, at: now + 10 * Self.day - 1).isTrusted)
    }
}
