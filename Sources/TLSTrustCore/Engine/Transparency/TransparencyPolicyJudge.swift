import Foundation

/// Apple's and Chrome's CT policies, rule by rule (docs/transparency.md states each with its
/// source). Judges the verified SCTs of a trusted path; never verifies a signature itself.
enum TransparencyPolicyJudge {
    /// How a valid SCT's log stands at the time of check.
    enum Standing {
        /// The log is qualified, usable or read-only (or retired at a time after the check):
        /// "currently approved" (Apple), a log in a state that counts at time of check (Chrome).
        case current
        /// The log is retired, and the SCT and the certificate's issuance predate the retirement:
        /// "once approved".
        case once
    }

    /// One valid SCT that may count, with what the rules ask of it.
    struct Counted {
        let verification: SCTVerification
        let log: CertificateTransparencyLog
        let standing: Standing
        /// The operator that ran the log when the SCT was issued.
        let operatorName: String

        var source: SCTSource { verification.source }
    }

    /// What the rules decided, and the verification times at which the same SCTs get the same
    /// answer: a log's retirement takes effect at its timestamp, so an answer holds only on one
    /// side of each retirement that matters.
    struct Judgement {
        let compliant: Bool
        let why: String
        let holds: Range<Date>
    }

    /// The notBefore from which Apple's lifetime table counts days (180 / 398); a certificate
    /// issued before it is judged by Apple's earlier table in months (trustd's
    /// `verify_embedded_sct_policy_v1`): 2021-04-21T00:00:00Z.
    static let appleDayTableStart = Date(timeIntervalSince1970: 1_618_963_200)

    static func judge(_ rules: CertificateTransparencyPolicy.Rules, leaf: Certificate, scts: [SCTVerification],
                      at date: Date) -> Judgement {
        var holds = Date.distantPast..<Date.distantFuture
        /// Whether `log` is retired at the time of check (Chromium's `IsLogDisqualified`: a log
        /// whose retirement timestamp is after the check still counts as it did before).
        func isRetired(_ log: CertificateTransparencyLog) -> Bool {
            guard log.state == .retired else { return false }
            guard let since = log.stateSince else { return true }
            if date < since {
                holds = holds.clamped(to: Date.distantPast..<since)
                return false
            }
            holds = holds.clamped(to: since..<Date.distantFuture)
            return true
        }
        func isCurrent(_ log: CertificateTransparencyLog) -> Bool {
            switch log.state {
            case .qualified?, .usable?, .readOnly?: true
            case .retired?: !isRetired(log)
            case .pending?, .rejected?, nil: false
            }
        }
        let valid: [(sct: SCTVerification, log: CertificateTransparencyLog, time: Date)] = scts.compactMap { sct in
            guard sct.isValid, let log = sct.log, let timestamp = sct.timestamp else { return nil }
            return (sct, log, timestamp.date)
        }
        // The certificate's issuance, as both judge it against retirements: the earliest SCT from
        // a log current at the time of check (Chrome: "the earliest SCT among all SCTs presented";
        // trustd: issuanceTime from the SCTs of currently qualified logs).
        let issuance = valid.filter { isCurrent($0.log) }.map(\.time).min()

        var counted: [Counted] = []
        var excluded: [String] = []
        for (sct, log, timestamp) in valid {
            let standing: Standing
            switch log.state {
            case .qualified?, .usable?, .readOnly?:
                // trustd: an SCT a log issued after it became read-only ("frozen") is not valid.
                if rules == .apple, log.state == .readOnly, let since = log.stateSince, timestamp > since {
                    excluded.append("\(log): dated after the log became read-only")
                    continue
                }
                standing = .current
            case .retired?:
                if !isRetired(log) {
                    standing = .current
                    break
                }
                // Both: only embedded SCTs of a retired log count, and only for a certificate issued
                // and an SCT dated before the retirement.
                guard sct.source == .embedded else {
                    excluded.append("\(log): a retired log's SCT counts only when embedded in the certificate")
                    continue
                }
                guard let since = log.stateSince, timestamp < since else {
                    excluded.append("\(log): retired before the SCT's timestamp")
                    continue
                }
                guard let issued = issuance, issued < since else {
                    excluded.append("\(log): retired before the certificate's issuance (its earliest SCT from a current log)")
                    continue
                }
                standing = .once
            case .pending?, .rejected?, nil:
                excluded.append("\(log): \(log.state?.rawValue ?? "no state") logs never count")
                continue
            }
            if rules == .apple, let interval = log.temporalInterval, !interval.contains(leaf.notValidAfter) {
                excluded.append("\(log): the certificate's notAfter is outside the log's temporal interval")
                continue
            }
            counted.append(Counted(verification: sct, log: log, standing: standing, operatorName: log.operatorName(at: timestamp)))
        }
        let (ok, reason) = rules == .apple ? apple(counted, leaf: leaf) : chrome(counted, leaf: leaf)
        let note = excluded.isEmpty ? "" : " (not counted: \(excluded.joined(separator: "; ")))"
        return Judgement(compliant: ok, why: reason + note, holds: holds)
    }

    /// The certificate's lifetime in seconds, notBefore through notAfter inclusive (RFC 5280
    /// §4.1.2.5; Apple measures days of 86,400 seconds, any part of a day counting as one).
    static func lifetime(_ leaf: Certificate) -> TimeInterval {
        leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) + 1
    }

    /// Distinct logs among `scts` (the same log twice counts once).
    static func distinctLogs(_ scts: [Counted]) -> [Counted] {
        var seen = Set<[UInt8]>()
        return scts.filter { seen.insert($0.log.logID).inserted }
    }

    /// Apple (support.apple.com/103214).
    static func apple(_ counted: [Counted], leaf: Certificate) -> (Bool, String) {
        let logs = distinctLogs(counted)
        guard logs.count >= 2 else {
            return (false, "Apple requires at least 2 SCTs from once or currently approved logs; \(logs.count) found")
        }
        guard logs.contains(where: { $0.log.kind == .rfc6962 }) else {
            return (false, "Apple requires at least one SCT from an RFC 6962 log; all are from Static CT API logs")
        }
        let current = distinctLogs(counted.filter { $0.standing == .current })
        if current.count >= 2, counted.contains(where: { $0.standing == .current && $0.source != .embedded }) {
            return (true, "2 or more SCTs from currently approved logs, one delivered by TLS or OCSP")
        }
        let embedded = distinctLogs(counted.filter { $0.source == .embedded })
        guard embedded.contains(where: { $0.standing == .current }) else {
            return (false, "no SCT delivered by TLS or OCSP with another from a currently approved log, and no embedded SCT from a currently approved log")
        }
        guard let (needed, perOperator, lifetime) = appleEmbeddedRequirement(leaf) else {
            let days = Int((Self.lifetime(leaf) / 86400).rounded(.up))
            return (false, "the certificate's lifetime of \(days) days is over 398: no number of embedded SCTs meets Apple's table")
        }
        var perOperatorCount: [String: Int] = [:]
        var counts = 0
        for sct in embedded where perOperatorCount[sct.operatorName, default: 0] < (perOperator ?? .max) {
            perOperatorCount[sct.operatorName, default: 0] += 1
            counts += 1
        }
        let limit = perOperator.map { ", at most \($0) per operator" } ?? ""
        guard counts >= needed else {
            return (false, "a lifetime of \(lifetime) needs \(needed) embedded SCTs from distinct logs\(limit); \(counts) count")
        }
        return (true, "\(counts) embedded SCTs from distinct logs (\(needed) needed for \(lifetime)\(limit)), one from a currently approved log")
    }

    /// Apple's number of embedded SCTs for the certificate's lifetime, with the most one operator
    /// may contribute (nil: no limit), and the lifetime in words; nil when no number suffices.
    /// The table is chosen by the certificate's issuance (notBefore), as trustd chooses it.
    static func appleEmbeddedRequirement(_ leaf: Certificate) -> (needed: Int, perOperator: Int?, lifetime: String)? {
        if leaf.notValidBefore >= appleDayTableStart {
            let seconds = lifetime(leaf)
            let days = "\(Int((seconds / 86400).rounded(.up))) days"
            if seconds <= 180 * 86400 { return (2, 1, days) }
            if seconds <= 398 * 86400 { return (3, 2, days) }
            return nil
        }
        // Whole calendar months from notBefore to notAfter in UTC, as trustd counts them.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let months = calendar.dateComponents([.month], from: leaf.notValidBefore, to: leaf.notValidAfter).month ?? .max
        let needed = months < 15 ? 2 : months <= 27 ? 3 : months <= 39 ? 4 : 5
        return (needed, nil, "\(months) months (issued before Apple's table in days)")
    }

    /// Chrome (ct_policy.md, log_states.md).
    static func chrome(_ counted: [Counted], leaf: Certificate) -> (Bool, String) {
        let delivered = distinctLogs(counted.filter { $0.source != .embedded && $0.standing == .current })
        let deliveredOperators = Set(delivered.map(\.operatorName))
        if delivered.count >= 2, deliveredOperators.count >= 2, delivered.contains(where: { $0.log.kind == .rfc6962 }) {
            return (true, "SCTs delivered by TLS or OCSP from \(delivered.count) current logs of \(deliveredOperators.count) operators, one an RFC 6962 log")
        }
        let embedded = distinctLogs(counted.filter { $0.source == .embedded })
        guard embedded.contains(where: { $0.standing == .current }) else {
            return (false, "Chrome requires 2 SCTs delivered by TLS or OCSP from current logs of 2 operators, one an RFC 6962 log, or an embedded SCT from a qualified, usable or read-only log; neither is present")
        }
        // Chrome: notAfter minus notBefore, more than 180 days needing 3.
        let seconds = leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore)
        let needed = seconds > 180 * 86400 ? 3 : 2
        guard embedded.count >= needed else {
            return (false, "a lifetime of \(seconds > 180 * 86400 ? "over" : "at most") 180 days needs embedded SCTs from \(needed) distinct logs; \(embedded.count) found")
        }
        let operators = Set(embedded.map(\.operatorName))
        guard operators.count >= 2 else {
            return (false, "Chrome requires embedded SCTs from at least 2 distinct log operators; all are from \(embedded[0].operatorName)")
        }
        guard embedded.contains(where: { $0.log.kind == .rfc6962 }) else {
            return (false, "Chrome requires at least one embedded SCT from an RFC 6962 log; all are from Static CT API logs")
        }
        return (true, "embedded SCTs from \(embedded.count) distinct logs of \(operators.count) operators, one from a current log")
    }
}
