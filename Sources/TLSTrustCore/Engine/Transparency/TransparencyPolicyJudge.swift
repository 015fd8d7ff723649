import Foundation

/// Apple's and Chrome's CT policies, rule by rule (docs/transparency.md states each with its
/// source). Judges the verified SCTs of a trusted path; never verifies a signature itself.
enum TransparencyPolicyJudge {
    /// How a valid SCT's log stands at the time of check.
    enum Standing {
        /// The log is qualified, usable or read-only: "currently approved" (Apple), a log in a
        /// state that counts at time of check (Chrome).
        case current
        /// The log is retired and the SCT predates its retirement: "once approved".
        case once
    }

    /// One valid SCT that may count, with what the rules ask of it.
    struct Counted {
        let verification: SCTVerification
        let log: CertificateTransparencyLog
        let standing: Standing
    }

    static func judge(_ rules: CertificateTransparencyPolicy.Rules, leaf: Certificate, scts: [SCTVerification]) -> (Bool, String) {
        var counted: [Counted] = []
        var excluded: [String] = []
        for sct in scts where sct.isValid {
            guard let log = sct.log, let timestamp = sct.timestamp else { continue }
            switch log.state {
            case .qualified?, .usable?, .readOnly?:
                break
            case .retired?:
                // A retired log counts only for SCTs it issued before its retirement.
                guard let since = log.stateSince, timestamp.date < since else {
                    excluded.append("\(log): retired before the SCT's timestamp")
                    continue
                }
            case .pending?, .rejected?, nil:
                excluded.append("\(log): \(log.state?.rawValue ?? "no state") logs never count")
                continue
            }
            if rules == .apple, let interval = log.temporalInterval, !interval.contains(leaf.notValidAfter) {
                excluded.append("\(log): the certificate's notAfter is outside the log's temporal interval")
                continue
            }
            if rules == .chrome, sct.source == .ocspResponse {
                excluded.append("\(log): Chrome does not count SCTs delivered in OCSP responses")
                continue
            }
            counted.append(Counted(verification: sct, log: log, standing: log.state == .retired ? .once : .current))
        }
        let (ok, reason) = rules == .apple ? apple(counted, leaf: leaf) : chrome(counted, leaf: leaf)
        let note = excluded.isEmpty ? "" : " (not counted: \(excluded.joined(separator: "; ")))"
        return (ok, reason + note)
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
        let current = logs.filter { $0.standing == .current }
        if current.count >= 2, current.contains(where: { $0.verification.source != .embedded }) {
            return (true, "2 or more SCTs from currently approved logs, one delivered by TLS or OCSP")
        }
        let embedded = distinctLogs(counted.filter { $0.verification.source == .embedded })
        guard embedded.contains(where: { $0.standing == .current }) else {
            return (false, "no SCT delivered by TLS or OCSP with another from a currently approved log, and no embedded SCT from a currently approved log")
        }
        let seconds = lifetime(leaf)
        let days = Int((seconds / 86400).rounded(.up))
        let (needed, perOperator): (Int, Int)
        if seconds <= 180 * 86400 {
            (needed, perOperator) = (2, 1)
        } else if seconds <= 398 * 86400 {
            (needed, perOperator) = (3, 2)
        } else {
            return (false, "the certificate's lifetime of \(days) days is over 398: no number of embedded SCTs meets Apple's table")
        }
        var perOperatorCount: [String: Int] = [:]
        var counts = 0
        for sct in embedded where perOperatorCount[sct.log.operatorName, default: 0] < perOperator {
            perOperatorCount[sct.log.operatorName, default: 0] += 1
            counts += 1
        }
        guard counts >= needed else {
            return (false, "a lifetime of \(days) days needs \(needed) embedded SCTs from distinct logs, at most \(perOperator) per operator; \(counts) count")
        }
        return (true, "\(counts) embedded SCTs from distinct logs (\(needed) needed for \(days) days, at most \(perOperator) per operator), one from a currently approved log")
    }

    /// Chrome (ct_policy.md, log_states.md).
    static func chrome(_ counted: [Counted], leaf: Certificate) -> (Bool, String) {
        let tls = distinctLogs(counted.filter { $0.verification.source == .tlsExtension && $0.standing == .current })
        if tls.count >= 2, Set(tls.map(\.log.operatorName)).count >= 2 {
            return (true, "2 or more TLS-delivered SCTs from logs of 2 or more operators")
        }
        let embedded = distinctLogs(counted.filter { $0.verification.source == .embedded })
        guard embedded.contains(where: { $0.standing == .current }) else {
            return (false, "Chrome requires 2 TLS-delivered SCTs from logs of 2 operators, or an embedded SCT from a qualified, usable or read-only log; neither is present")
        }
        let seconds = lifetime(leaf)
        let needed = seconds <= 180 * 86400 ? 2 : 3
        guard embedded.count >= needed else {
            return (false, "a lifetime of \(Int((seconds / 86400).rounded(.up))) days needs embedded SCTs from \(needed) distinct logs; \(embedded.count) found")
        }
        guard Set(embedded.map(\.log.operatorName)).count >= 2 else {
            return (false, "Chrome requires embedded SCTs from at least 2 distinct log operators; all are from \(embedded[0].log.operatorName)")
        }
        return (true, "embedded SCTs from \(embedded.count) distinct logs of \(Set(embedded.map(\.log.operatorName)).count) operators, one from a current log")
    }
}
