import Foundation

/// The Certificate Transparency logs SCTs are judged by, read from a log list the app supplies:
/// Chrome's v3 `log_list.json` or Apple's `current_log_list.json` (both: `operators`, each with
/// `logs` (RFC 6962) and `tiled_logs` (Static CT API), each log with `log_id`, `key`, `state`,
/// `temporal_interval` and `previous_operators`).
///
/// TLSTrust ships no list and fetches none (docs/transparency.md). Reading is strict, because a
/// list read wrongly would make every certificate fail — or pass — for the wrong reason: a list
/// that is not JSON, is truncated, names a key twice in one object, holds no log, gives a log ID
/// that is not its key's hash, repeats a log ID, names an unknown state or an empty interval, is
/// refused with an error that names the field.
public struct CertificateTransparencyLogList: Sendable {
    /// Which publisher's format the list is in (Apple's has `assetVersion`).
    public enum Format: String, Sendable, Hashable {
        case chrome, apple
    }

    /// The largest list read: today's lists are a few hundred kilobytes.
    public static let maximumSize = 4 << 20
    /// The age past which Chrome stops enforcing its CT policy (log_list_timestamp older than 70 days).
    public static let chromeMaximumAge: TimeInterval = 70 * 86400

    public var format: Format { storage.format }
    /// The list's `version`, when it has one.
    public var version: String? { storage.version }
    /// The list's `log_list_timestamp`, when it has one.
    public var timestamp: Date? { storage.timestamp }
    /// Every log, of every operator, both kinds.
    public var logs: [CertificateTransparencyLog] { storage.logs }
    var byID: [[UInt8]: CertificateTransparencyLog] { storage.byID }
    /// Who this list is, for the results kept with a certificate: copies of one list share it.
    var identity: Identity { storage }

    typealias Identity = Storage

    /// The list's contents in one shared object, so a copy of a list (in every `Trust` and request
    /// that carries the policy) costs one reference.
    final class Storage: Sendable {
        let format: Format
        let version: String?
        let timestamp: Date?
        let logs: [CertificateTransparencyLog]
        let byID: [[UInt8]: CertificateTransparencyLog]

        init(format: Format, version: String?, timestamp: Date?, logs: [CertificateTransparencyLog],
             byID: [[UInt8]: CertificateTransparencyLog]) {
            self.format = format
            self.version = version
            self.timestamp = timestamp
            self.logs = logs
            self.byID = byID
        }
    }

    let storage: Storage

    /// A list made by hand (tests, or an app with its own source of logs).
    ///
    /// - Throws: `TLSTrustError` `.invalidArgument` when two logs share an ID.
    public init(logs: [CertificateTransparencyLog], timestamp: Date?, format: Format = .chrome, version: String? = nil) throws {
        var byID: [[UInt8]: CertificateTransparencyLog] = [:]
        for log in logs {
            guard byID[log.logID] == nil else { throw Self.error("two logs have the ID \(log.logIDBase64)") }
            byID[log.logID] = log
        }
        storage = Storage(format: format, version: version, timestamp: timestamp, logs: logs, byID: byID)
    }

    /// The log with this ID, if the list has it.
    public func log(id: [UInt8]) -> CertificateTransparencyLog? { byID[id] }

    /// How old the list is at `date` (nil without a timestamp).
    public func age(at date: Date) -> TimeInterval? { timestamp.map { date.timeIntervalSince($0) } }

    /// Reads a list in either format.
    ///
    /// - Throws: `TLSTrustError` `.invalidArgument` naming what is wrong and where.
    public init(json bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumSize else {
            throw Self.error("the list is \(bytes.count) bytes, more than the \(Self.maximumSize) read")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw Self.error("not valid JSON (truncated or malformed): \(error.localizedDescription)")
        }
        if let duplicate = JSONDuplicateKeys.find(in: bytes) {
            throw Self.error("the key \"\(duplicate.key)\" appears twice in \(duplicate.path.isEmpty ? "the top-level object" : duplicate.path)")
        }
        guard let top = object as? [String: Any] else { throw Self.error("the top level is not a JSON object") }
        let format: Format = top["assetVersion"] != nil || top["assetVersionV2"] != nil ? .apple : .chrome
        let version = try Self.optionalString(top, "version", at: "")
        let timestamp = try top["log_list_timestamp"].map { try Self.date($0, at: "log_list_timestamp") }
        guard let operators = top["operators"] as? [Any] else { throw Self.error("operators: missing or not an array") }
        var logs: [CertificateTransparencyLog] = []
        for (o, entry) in operators.enumerated() {
            let at = "operators[\(o)]"
            guard let op = entry as? [String: Any] else { throw Self.error("\(at): not an object") }
            guard let name = op["name"] as? String, !name.isEmpty else { throw Self.error("\(at).name: missing or not a non-empty string") }
            for (field, kind) in [("logs", CertificateTransparencyLog.Kind.rfc6962), ("tiled_logs", .staticCTAPI)] {
                guard let value = op[field] else { continue }
                guard let list = value as? [Any] else { throw Self.error("\(at).\(field): not an array") }
                for (l, item) in list.enumerated() {
                    logs.append(try Self.log(item, operator: name, kind: kind, at: "\(at).\(field)[\(l)]"))
                }
            }
        }
        guard !logs.isEmpty else { throw Self.error("the list holds no log (a list without logs is refused, never read as \"no logs\")") }
        var seen: [[UInt8]: String] = [:]
        for log in logs {
            if let first = seen[log.logID] { throw Self.error("the log ID \(log.logIDBase64) appears twice (\(first) and \(log.name))") }
            seen[log.logID] = log.name
        }
        try self.init(logs: logs, timestamp: timestamp, format: format, version: version)
    }

    private static func log(_ item: Any, operator name: String, kind: CertificateTransparencyLog.Kind, at: String) throws -> CertificateTransparencyLog {
        guard let log = item as? [String: Any] else { throw error("\(at): not an object") }
        let description = try optionalString(log, "description", at: at) ?? ""
        guard let keyText = log["key"] as? String, let keyDER = Base64.decode(Array(keyText.utf8)) else {
            throw error("\(at).key: missing or not base64")
        }
        let key: PublicKey
        do {
            key = try PublicKey(subjectPublicKeyInfoDER: keyDER)
        } catch {
            throw Self.error("\(at).key: not a SubjectPublicKeyInfo (\(error))")
        }
        guard let idText = log["log_id"] as? String, let id = Base64.decode(Array(idText.utf8)) else {
            throw error("\(at).log_id: missing or not base64")
        }
        guard id == key.sha256 else { throw error("\(at).log_id: \(idText) is not the SHA-256 of the log's key") }
        var state: CertificateTransparencyLog.State?
        var since: Date?
        if let value = log["state"] {
            guard let states = value as? [String: Any], states.count == 1, let (stateName, body) = states.first else {
                throw error("\(at).state: not an object with exactly one state")
            }
            guard let known = CertificateTransparencyLog.State(rawValue: stateName) else {
                throw error("\(at).state: unknown state \"\(stateName)\" (known: \(CertificateTransparencyLog.State.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let fields = body as? [String: Any], let when = fields["timestamp"] else {
                throw error("\(at).state.\(stateName).timestamp: missing")
            }
            state = known
            since = try date(when, at: "\(at).state.\(stateName).timestamp")
        }
        var interval: Range<Date>?
        if let value = log["temporal_interval"] {
            guard let fields = value as? [String: Any], let start = fields["start_inclusive"], let end = fields["end_exclusive"] else {
                throw error("\(at).temporal_interval: needs start_inclusive and end_exclusive")
            }
            let from = try date(start, at: "\(at).temporal_interval.start_inclusive")
            let to = try date(end, at: "\(at).temporal_interval.end_exclusive")
            guard from < to else { throw error("\(at).temporal_interval: empty (start_inclusive is not before end_exclusive)") }
            interval = from..<to
        }
        var previous: [CertificateTransparencyLog.PreviousOperator] = []
        if let value = log["previous_operators"] {
            guard let entries = value as? [Any] else { throw error("\(at).previous_operators: not an array") }
            for (p, entry) in entries.enumerated() {
                let here = "\(at).previous_operators[\(p)]"
                guard let fields = entry as? [String: Any], let who = fields["name"] as? String, !who.isEmpty else {
                    throw error("\(here).name: missing or not a non-empty string")
                }
                guard let end = fields["end_time"] else { throw error("\(here).end_time: missing") }
                previous.append(.init(name: who, endTime: try date(end, at: "\(here).end_time")))
            }
        }
        return CertificateTransparencyLog(key: key, operatorName: name, name: description, kind: kind, state: state,
                                          stateSince: since, temporalInterval: interval, previousOperators: previous)
    }

    private static func optionalString(_ object: [String: Any], _ key: String, at: String) throws -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value as? String else { throw error("\(at.isEmpty ? "" : at + ".")\(key): not a string") }
        return text
    }

    /// An RFC 3339 date-time, with or without fractional seconds.
    static func date(_ value: Any, at: String) throws -> Date {
        guard let text = value as? String else { throw error("\(at): not a string") }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw error("\(at): \"\(text)\" is not an RFC 3339 date-time")
    }

    static func error(_ text: String) -> TLSTrustError {
        TLSTrustError(.invalidArgument, "CT log list: \(text)")
    }
}
