import Foundation
import TLSTrustCore

/// Writes a Certificate Transparency log list in Chrome's v3 `log_list.json` or Apple's
/// `current_log_list.json` format, for tests: the logs' operators, kinds (`logs` or
/// `tiled_logs`), states and temporal intervals as the logs describe them.
///
/// ```swift
/// let json = CTLogListWriter.json([logA.log, logB.log], format: .chrome, timestamp: Date())
/// let list = try CertificateTransparencyLogList(json: json)
/// ```
public enum CTLogListWriter {
    /// The list's bytes (UTF-8 JSON); `timestamp` nil leaves `log_list_timestamp` out.
    public static func json(_ logs: [CertificateTransparencyLog], format: CertificateTransparencyLogList.Format = .chrome,
                            timestamp: Date? = Date(), version: String = "1.0") -> [UInt8] {
        var operators: [[String: Any]] = []
        var order: [String] = []
        var byOperator: [String: [CertificateTransparencyLog]] = [:]
        for log in logs {
            if byOperator[log.operatorName] == nil { order.append(log.operatorName) }
            byOperator[log.operatorName, default: []].append(log)
        }
        for (index, name) in order.enumerated() {
            var op: [String: Any] = ["name": name, "email": ["ct@operator\(index).example"]]
            if format == .apple { op["id"] = index }
            let all = byOperator[name] ?? []
            op["logs"] = all.filter { $0.kind == .rfc6962 }.map { entry($0, format: format) }
            op["tiled_logs"] = all.filter { $0.kind == .staticCTAPI }.map { entry($0, format: format) }
            operators.append(op)
        }
        var top: [String: Any] = ["version": version, "operators": operators]
        if let timestamp { top["log_list_timestamp"] = text(timestamp) }
        if format == .apple {
            top["assetVersion"] = 1
            top["assetVersionV2"] = 1
        }
        // Dictionaries and strings only: serialising them cannot fail.
        return Array(try! JSONSerialization.data(withJSONObject: top, options: [.sortedKeys, .prettyPrinted]))
    }

    static func entry(_ log: CertificateTransparencyLog, format: CertificateTransparencyLogList.Format) -> [String: Any] {
        var entry: [String: Any] = [
            "description": log.name, "log_id": Data(log.logID).base64EncodedString(),
            "key": Data(log.key.subjectPublicKeyInfoDER).base64EncodedString(), "mmd": log.kind == .rfc6962 ? 86400 : 60,
        ]
        let host = "ct\(log.logID.prefix(4).map { String($0) }.joined()).example"
        switch log.kind {
        case .rfc6962: entry["url"] = "https://\(host)/"
        case .staticCTAPI:
            entry["submission_url"] = "https://\(host)/submit/"
            entry["monitoring_url"] = "https://\(host)/monitor/"
        }
        if let state = log.state {
            entry["state"] = [state.rawValue: ["timestamp": text(log.stateSince ?? Date(timeIntervalSinceNow: -365 * 86400))]]
        }
        if !log.previousOperators.isEmpty {
            entry["previous_operators"] = log.previousOperators.map { ["name": $0.name, "end_time": text($0.endTime)] }
        }
        if let interval = log.temporalInterval {
            entry["temporal_interval"] = ["start_inclusive": text(interval.lowerBound), "end_exclusive": text(interval.upperBound)]
        }
        return entry
    }

    /// RFC 3339 in UTC, whole seconds.
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
