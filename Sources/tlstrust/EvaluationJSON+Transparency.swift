import Foundation
import TLSTrust

extension EvaluationJSON {
    /// What Certificate Transparency checking found (`certificateTransparency`; `null` without
    /// `--ct-log-list`): whether the policy was enforced and met, why, and every SCT.
    struct TransparencyRecord: Encodable {
        /// One SCT: its source, log, operator, timestamp, status and why.
        struct SCTRecord: Encodable {
            let source: String
            let logID: String?
            let log: String?
            let logOperator: String?
            let timestamp: String?
            let status: String
            let reason: String

            init(_ sct: SCTVerification) {
                source = sct.source.rawValue
                logID = sct.timestamp.map { Data($0.logID).base64EncodedString() }
                log = sct.log?.name
                logOperator = sct.log?.operatorName
                timestamp = sct.timestamp.map { ISO8601DateFormatter().string(from: $0.date) }
                status = sct.status.rawValue
                reason = sct.reason
            }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(source, forKey: .source)
                try c.encode(logID, forKey: .logID)
                try c.encode(log, forKey: .log)
                try c.encode(logOperator, forKey: .logOperator)
                try c.encode(timestamp, forKey: .timestamp)
                try c.encode(status, forKey: .status)
                try c.encode(reason, forKey: .reason)
            }

            private enum CodingKeys: String, CodingKey { case source, logID, log, logOperator = "operator", timestamp, status, reason }
        }

        let policy: String
        let enforced: Bool
        let compliant: Bool
        let reason: String
        let scts: [SCTRecord]

        init(_ report: CertificateTransparencyReport) {
            policy = report.rules.rawValue
            enforced = report.isEnforced
            compliant = report.isCompliant
            reason = report.reason
            scts = report.timestamps.map(SCTRecord.init)
        }
    }
}
