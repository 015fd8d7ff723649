import Foundation
import TLSTrustToolSupport
import TLSTrust

extension EvaluationJSON {
    /// What Certificate Transparency checking found (`certificateTransparency`; `null` without
    /// `--ct-log-list`): whether the policy was enforced and met, why, and every SCT.
    struct TransparencyRecord: Encodable {
        /// One SCT: its source, log, operator, timestamp, status and why; the log ID in the tools' one
        /// hex form (log lists write it in base64).
        struct SCTRecord: Encodable {
            let source: String
            @ExplicitNull var logID: String?
            @ExplicitNull var log: String?
            @ExplicitNull var logOperator: String?
            @ExplicitNull var timestamp: String?
            let status: String
            let reason: String

            init(_ sct: SCTVerification) {
                source = sct.source.rawValue
                logID = sct.timestamp.map { ToolJSON.hex($0.logID) }
                log = sct.log?.name
                logOperator = sct.log?.operatorName
                timestamp = sct.timestamp.map { ISO8601DateFormatter().string(from: $0.date) }
                status = sct.status.rawValue
                reason = sct.reason
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
