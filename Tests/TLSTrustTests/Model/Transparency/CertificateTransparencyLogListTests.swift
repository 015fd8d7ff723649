import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// Chrome's v3 `log_list.json` and Apple's `current_log_list.json`, read strictly: a list read
/// wrongly would trust or refuse for the wrong reason, so each malformed list is refused with the
/// field it gets wrong, never read as "no logs".
@Suite("Model: Certificate Transparency log lists")
struct CertificateTransparencyLogListTests {
    static let day: TimeInterval = 86400

    func logs() throws -> [CertificateTransparencyLog] {
        let now = Date()
        let a = try TestCTLog(operator: "Operator A", name: "A 2026", state: .usable, stateSince: now - 100 * Self.day,
                              temporalInterval: (now - 200 * Self.day)..<(now + 300 * Self.day))
        let b = try TestCTLog(operator: "Operator B", name: "B tiled", kind: .staticCTAPI, state: .qualified, stateSince: now - Self.day)
        let c = try TestCTLog(operator: "Operator A", name: "A old", keyType: .rsa(bits: 2048), state: .retired, stateSince: now - 10 * Self.day)
        return [a.log, b.log, c.log]
    }

    /// The list's JSON object, changed by `change`, as bytes.
    func changed(_ json: [UInt8], _ change: (inout [String: Any]) -> Void) -> [UInt8] {
        var object = try! JSONSerialization.jsonObject(with: Data(json)) as! [String: Any]
        change(&object)
        return Array(try! JSONSerialization.data(withJSONObject: object))
    }

    /// Changes the first log of the first operator.
    func changedFirstLog(_ json: [UInt8], _ change: @escaping (inout [String: Any]) -> Void) -> [UInt8] {
        changed(json) { top in
            var operators = top["operators"] as! [[String: Any]]
            var logs = operators[0]["logs"] as! [[String: Any]]
            change(&logs[0])
            operators[0]["logs"] = logs
            top["operators"] = operators
        }
    }

    func refusal(_ bytes: [UInt8]) -> String {
        do {
            _ = try CertificateTransparencyLogList(json: bytes)
            return "read"
        } catch {
            return "\(error)"
        }
    }

    @Test("Both formats are read: logs and tiled logs, operators, states with their time, temporal intervals, the list's time",
          arguments: [CertificateTransparencyLogList.Format.chrome, .apple])
    func reads(format: CertificateTransparencyLogList.Format) throws {
        let expected = try logs()
        let stamp = Date(timeIntervalSince1970: 1_790_000_000)
        let list = try CertificateTransparencyLogList(json: CTLogListWriter.json(expected, format: format, timestamp: stamp))
        #expect(list.format == format)
        #expect(list.timestamp == stamp)
        #expect(list.logs.count == 3)
        for log in expected {
            let read = try #require(list.log(id: log.logID))
            #expect(read.operatorName == log.operatorName)
            #expect(read.name == log.name)
            #expect(read.kind == log.kind)
            #expect(read.state == log.state)
            #expect(read.key == log.key)
            #expect(read.stateSince.map { Int($0.timeIntervalSince1970) } == log.stateSince.map { Int($0.timeIntervalSince1970) })
            #expect(read.temporalInterval.map { Int($0.upperBound.timeIntervalSince1970) }
                    == log.temporalInterval.map { Int($0.upperBound.timeIntervalSince1970) })
        }
        #expect(list.age(at: stamp + 71 * Self.day)! > CertificateTransparencyLogList.chromeMaximumAge)
    }

    @Test("A list with the same log twice is refused, naming the log ID")
    func duplicateIDs() throws {
        let all = try logs()
        let text = refusal(CTLogListWriter.json(all + [all[0]]))
        #expect(text.contains("appears twice") && text.contains(all[0].logIDBase64), "\(text)")
        #expect(throws: TLSTrustError.self) { try CertificateTransparencyLogList(logs: [all[0], all[0]], timestamp: nil) }
    }

    @Test("Truncated, not JSON, a key twice in one object, no logs: each refused with what is wrong")
    func malformed() throws {
        let json = CTLogListWriter.json(try logs())
        #expect(refusal(Array(json.prefix(json.count / 2))).contains("not valid JSON"))
        #expect(refusal(Array("[1, 2]".utf8)).contains("not a JSON object"))
        let twice = Array(#"{"operators": [], "version": "1", "version": "2"}"#.utf8)
        #expect(refusal(twice).contains("\"version\" appears twice"))
        #expect(refusal(Array(#"{"operators": []}"#.utf8)).contains("holds no log"))
        #expect(refusal(Array(#"{"operators": [{"name": "X", "logs": []}]}"#.utf8)).contains("holds no log"))
        #expect(refusal(Array(#"{"version": "1"}"#.utf8)).contains("operators"))
        #expect(refusal(changed(json) { $0["log_list_timestamp"] = "yesterday" }).contains("log_list_timestamp"))
    }

    @Test("A log whose ID is not its key's hash, without a key, with an unknown state or an empty interval is refused, naming the field")
    func malformedLogs() throws {
        let json = CTLogListWriter.json(try logs())
        let other = try TestCTLog(operator: "X")
        let wrongID = refusal(changedFirstLog(json) { $0["log_id"] = other.log.logIDBase64 })
        #expect(wrongID.contains("operators[0].logs[0].log_id") && wrongID.contains("not the SHA-256"), "\(wrongID)")
        #expect(refusal(changedFirstLog(json) { $0["key"] = nil }).contains("operators[0].logs[0].key"))
        #expect(refusal(changedFirstLog(json) { $0["key"] = "AAAA" }).contains("not a SubjectPublicKeyInfo"))
        #expect(refusal(changedFirstLog(json) { $0["state"] = ["trusted": ["timestamp": "2026-01-01T00:00:00Z"]] }).contains("unknown state \"trusted\""))
        #expect(refusal(changedFirstLog(json) { $0["state"] = ["usable": [String: Any](), "retired": [String: Any]()] as [String: Any] }).contains("exactly one state"))
        #expect(refusal(changedFirstLog(json) { $0["state"] = ["usable": [String: Any]()] as [String: Any] }).contains("timestamp: missing"))
        let empty = ["start_inclusive": "2026-01-01T00:00:00Z", "end_exclusive": "2026-01-01T00:00:00Z"]
        #expect(refusal(changedFirstLog(json) { $0["temporal_interval"] = empty }).contains("empty"))
        #expect(refusal(changedFirstLog(json) { $0["temporal_interval"] = ["start_inclusive": "2026-01-01T00:00:00Z"] })
            .contains("temporal_interval"))
        #expect(refusal(changed(json) { top in
            var operators = top["operators"] as! [[String: Any]]
            operators[0]["name"] = ""
            top["operators"] = operators
        }).contains("operators[0].name"))
    }

    @Test("Fractional seconds in timestamps are read")
    func fractionalSeconds() throws {
        let json = changed(CTLogListWriter.json(try logs())) { $0["log_list_timestamp"] = "2026-11-01T12:00:00.250Z" }
        let list = try CertificateTransparencyLogList(json: json)
        #expect(list.timestamp.map { $0.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) } == 0.25)
    }

    @Test("A log's previous operators are read with their end times, and pick the operator for an SCT's time; a malformed one is refused")
    func previousOperators() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let base = try TestCTLog(operator: "Operator B")
        let moved = TestCTLog(base, state: .usable, stateSince: now, temporalInterval: nil, previousOperators: [
            .init(name: "Operator Z", endTime: now - 10 * Self.day), .init(name: "Operator A", endTime: now - Self.day),
        ])
        let json = CTLogListWriter.json([moved.log])
        let log = try #require(try CertificateTransparencyLogList(json: json).logs.first)
        #expect(log.previousOperators.map(\.name) == ["Operator Z", "Operator A"])
        #expect(log.operatorName(at: now - 20 * Self.day) == "Operator Z")
        #expect(log.operatorName(at: now - 10 * Self.day) == "Operator A", "an operator's end time is exclusive")
        #expect(log.operatorName(at: now - Self.day) == "Operator B")
        #expect(refusal(changedFirstLog(json) { $0["previous_operators"] = "Operator A" }).contains("previous_operators: not an array"))
        #expect(refusal(changedFirstLog(json) { $0["previous_operators"] = [["end_time": "2026-01-01T00:00:00Z"]] })
            .contains("previous_operators[0].name"))
        #expect(refusal(changedFirstLog(json) { $0["previous_operators"] = [["name": "Operator A"]] })
            .contains("previous_operators[0].end_time: missing"))
        #expect(refusal(changedFirstLog(json) { $0["previous_operators"] = [["name": "Operator A", "end_time": "yesterday"]] })
            .contains("not an RFC 3339 date-time"))
    }
}
