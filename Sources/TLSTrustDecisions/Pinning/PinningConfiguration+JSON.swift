import Foundation
import TLSTrustCore

/// The declarative JSON format of a ``PinningConfiguration``.
///
/// ```json
/// {
///   "domains": {
///     "api.example.com": {
///       "pins": ["sha256/…", {"pin": "sha256/…", "position": "intermediate"}],
///       "includeSubdomains": true,
///       "expiration": "2027-06-01",
///       "enforce": true,
///       "reportURIs": ["https://reports.example.com/pins"]
///     }
///   }
/// }
/// ```
///
/// Keys of a domain: `pins` (required: strings, or objects with `pin` and `position` = `any`,
/// `leaf`, `intermediate` or `root`), `includeSubdomains` (false), `expiration` (`YYYY-MM-DD`
/// = midnight UTC starting that day, or an ISO 8601 date-time; none), `enforce` (true; false is
/// report-only), `allowSinglePin` (false), `reportURIs` (none), `exclude` (true: no pinning for
/// this name inside a parent's `includeSubdomains`; only `includeSubdomains` beside it, to
/// unpin the names under it too). At the top level,
/// `domains` is required; `reportURIs` is added to every domain's; `version`, when present, is 1.
/// Unknown keys are errors, so a misspelt `includeSubdomain` is not silently ignored. A domain
/// key may be an OkHttp pattern: `*.example.com` (one label under it) or `**.example.com` (it
/// and any depth under it) — see ``PinSet``.
extension PinningConfiguration {
    /// Documents larger than this are refused before parsing.
    public static let maximumDocumentBytes = 1 << 20

    /// Parses the JSON format.
    ///
    /// - Throws: ``PinningError``: `.unreadableConfiguration` for bytes that are not JSON;
    ///   `.malformedConfiguration`, `.malformedPin` or `.invalidPinSet` with the key path of the
    ///   problem, e.g. `domains["api.example.com"].pins[1]: not a sha256/ pin: "md5/…"`.
    public init(json data: some Collection<UInt8>) throws {
        guard data.count <= Self.maximumDocumentBytes else {
            throw PinningError(.unreadableConfiguration, "\(data.count) bytes; a configuration is at most \(Self.maximumDocumentBytes)")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            throw PinningError(.unreadableConfiguration, "not valid JSON: \(JSONValue.describe(error))")
        }
        if let duplicate = JSONDuplicateKeys.find(in: Array(data), keyedPaths: ["domains"], quote: { PinningError.quote($0) }) {
            throw PinningError(.malformedConfiguration, "the key \(PinningError.quote(duplicate.key)) appears twice in one object",
                               keyPath: duplicate.path)
        }
        try self.init(document: value)
    }

    /// Reads and parses a JSON configuration file.
    ///
    /// - Throws: ``PinningError`` `.unreadableConfiguration` for a missing or unreadable file, and
    ///   what ``init(json:)`` throws, the message prefixed with the path.
    public init(contentsOfJSONFile path: String) throws {
        let bytes = try PinningConfiguration.readFile(path)
        do {
            try self.init(json: bytes)
        } catch let error as PinningError {
            throw PinningError(error.code, error.problem, keyPath: error.keyPath.isEmpty ? path : "\(path): \(error.keyPath)")
        }
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PinningError(.unreadableConfiguration, "no such file", keyPath: path)
        }
        guard !isDirectory.boolValue else { throw PinningError(.unreadableConfiguration, "is a directory", keyPath: path) }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maximumDocumentBytes {
            throw PinningError(.unreadableConfiguration, "\(size) bytes; a configuration is at most \(maximumDocumentBytes)", keyPath: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PinningError(.unreadableConfiguration, "cannot be read", keyPath: path)
        }
        return [UInt8](data)
    }

    init(document: JSONValue) throws {
        let top = try document.object(at: "")
        try JSONValue.allowOnly(["version", "domains", "reportURIs"], in: top, at: "")
        if let version = top["version"] {
            guard case .number(let n) = version, n == 1 else {
                throw PinningError(.malformedConfiguration, "unsupported version \(version.brief); only 1 is known", keyPath: "version")
            }
        }
        let sharedReports = try top["reportURIs"].map { try Self.reportURIs($0, at: "reportURIs") } ?? []
        guard let domainsValue = top["domains"] else {
            throw PinningError(.malformedConfiguration, "missing key \"domains\"")
        }
        let domains = try domainsValue.object(at: "domains")
        guard domains.count <= Self.maximumDomains else {
            throw PinningError(.malformedConfiguration, "\(domains.count) domains; at most \(Self.maximumDomains)", keyPath: "domains")
        }
        var sets: [PinSet] = []
        var seen: [String: String] = [:]
        for name in domains.keys.sorted() {
            let path = "domains[\(PinningError.quote(name))]"
            let set = try Self.pinSet(domain: name, domains[name]!, sharedReports: sharedReports, at: path)
            if let earlier = seen[set.pattern] {
                throw PinningError(.malformedConfiguration, "the same domain as domains[\(PinningError.quote(earlier))]", keyPath: path)
            }
            seen[set.pattern] = name
            sets.append(set)
        }
        try self.init(sets)
    }

    static func pinSet(domain: String, _ value: JSONValue, sharedReports: [URL], at path: String) throws -> PinSet {
        let entry = try value.object(at: path)
        if let exclude = entry["exclude"], try exclude.bool(at: path + ".exclude") {
            try JSONValue.allowOnly(["exclude", "includeSubdomains"], in: entry, at: path)
            let include = try entry["includeSubdomains"].map { try $0.bool(at: path + ".includeSubdomains") } ?? false
            do { return try PinSet.excluded(domain: domain, includesSubdomains: include) } catch let error as PinningError { throw error.at(path) }
        }
        try JSONValue.allowOnly(
            ["pins", "includeSubdomains", "expiration", "enforce", "allowSinglePin", "reportURIs", "exclude", "requireEveryPosition"],
            in: entry, at: path)
        guard let pinsValue = entry["pins"] else {
            throw PinningError(.malformedConfiguration, "missing key \"pins\"", keyPath: path)
        }
        let pinValues = try pinsValue.array(at: path + ".pins")
        guard pinValues.count <= PinSet.maximumPins else {
            throw PinningError(.malformedConfiguration, "\(pinValues.count) pins; at most \(PinSet.maximumPins)", keyPath: path + ".pins")
        }
        var pins: [SPKIPin] = []
        for (i, pinValue) in pinValues.enumerated() {
            pins.append(try Self.pin(pinValue, at: "\(path).pins[\(i)]"))
        }
        let includeSubdomains = try entry["includeSubdomains"].map { try $0.bool(at: path + ".includeSubdomains") } ?? false
        let enforce = try entry["enforce"].map { try $0.bool(at: path + ".enforce") } ?? true
        let allowSinglePin = try entry["allowSinglePin"].map { try $0.bool(at: path + ".allowSinglePin") } ?? false
        let everyPosition = try entry["requireEveryPosition"].map { try $0.bool(at: path + ".requireEveryPosition") } ?? false
        let expiration = try entry["expiration"].map { try Self.date($0, at: path + ".expiration") }
        let reports = try entry["reportURIs"].map { try Self.reportURIs($0, at: path + ".reportURIs") } ?? []
        do {
            return try PinSet(
                domain: domain, pins: pins, includesSubdomains: includeSubdomains, expiration: expiration,
                enforces: enforce, reportURIs: reports + sharedReports.filter { !reports.contains($0) },
                allowsSinglePin: allowSinglePin, requiresMatchAtEveryPosition: everyPosition)
        } catch let error as PinningError {
            throw error.at(path)
        }
    }

    static func pin(_ value: JSONValue, at path: String) throws -> SPKIPin {
        switch value {
        case .string(let text):
            do { return try SPKIPin(text) } catch let error as PinningError { throw error.at(path) }
        case .object(let object):
            try JSONValue.allowOnly(["pin", "position"], in: object, at: path)
            guard let text = object["pin"] else { throw PinningError(.malformedConfiguration, "missing key \"pin\"", keyPath: path) }
            let string = try text.string(at: path + ".pin")
            var position = SPKIPin.Position.any
            if let p = object["position"] {
                let name = try p.string(at: path + ".position")
                guard let parsed = SPKIPin.Position(rawValue: name) else {
                    throw PinningError(.malformedConfiguration,
                        "not a position (any, leaf, intermediate, root, ca): \(PinningError.quote(name))", keyPath: path + ".position")
                }
                position = parsed
            }
            do { return try SPKIPin(string, position: position) } catch let error as PinningError { throw error.at(path + ".pin") }
        default:
            throw PinningError(.malformedConfiguration, "expected a pin string or an object with \"pin\", found \(value.kind)", keyPath: path)
        }
    }

    /// `text` as a report URL: http or https with a host; nil otherwise. The one rule for every
    /// configuration format (TrustKit's importer accepted `https:6/reports…`, which has no host and
    /// which the JSON reader refused, so a configuration did not survive its own JSON: found by
    /// the PinningConfiguration fuzz target's round trip).
    static func reportURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host?.isEmpty == false else { return nil }
        return url
    }

    static func reportURIs(_ value: JSONValue, at path: String) throws -> [URL] {
        let items = try value.array(at: path)
        guard items.count <= 16 else {
            throw PinningError(.malformedConfiguration, "\(items.count) report URIs; at most 16", keyPath: path)
        }
        return try items.enumerated().map { i, item in
            let text = try item.string(at: "\(path)[\(i)]")
            guard let url = reportURL(text) else {
                throw PinningError(.malformedConfiguration, "not an http(s) URL: \(PinningError.quote(text))", keyPath: "\(path)[\(i)]")
            }
            return url
        }
    }

    static func date(_ value: JSONValue, at path: String) throws -> Date {
        let text = try value.string(at: path)
        guard let date = parseDate(text) else {
            throw PinningError(.malformedConfiguration,
                "not a date (YYYY-MM-DD or an ISO 8601 date-time): \(PinningError.quote(text))", keyPath: path)
        }
        return date
    }

    /// `YYYY-MM-DD` (midnight UTC starting that day) or an ISO 8601 date-time with a zone.
    static func parseDate(_ text: String) -> Date? {
        let utf8 = Array(text.utf8)
        if utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") {
            func number(_ r: Range<Int>) -> Int? {
                guard utf8[r].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                return Int(String(decoding: utf8[r], as: UTF8.self))
            }
            guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1 else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let components = DateComponents(year: y, month: m, day: d)
            guard let date = calendar.date(from: components),
                  calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: y, month: m, day: d) else { return nil }
            return date
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    // MARK: Writing

    /// The configuration in the JSON format, keys in a stable order.
    public func jsonString() -> String {
        let entries = sortedPinSets.map { "    " + Self.jsonEntry($0, indent: "    ") }
        return "{\n  \"domains\": {\n" + entries.joined(separator: ",\n") + "\n  }\n}\n"
    }

    /// One `"domain": { … }` member, ready to paste into the `domains` object.
    public static func jsonEntry(_ set: PinSet, indent: String = "") -> String {
        if set.excludesParentPolicy {
            return "\(jsonString(set.pattern)): { \"exclude\": true\(set.includesSubdomains ? ", \"includeSubdomains\": true" : "") }"
        }
        var lines: [String] = []
        let pins = set.pins.map { pin in
            pin.position == .any ? jsonString(pin.text) : "{ \"pin\": \(jsonString(pin.text)), \"position\": \"\(pin.position)\" }"
        }
        lines.append("\"pins\": [\n\(indent)      " + pins.joined(separator: ",\n\(indent)      ") + "\n\(indent)    ]")
        lines.append("\"includeSubdomains\": \(set.includesSubdomains)")
        if let expiration = set.expiration {
            let formatter = ISO8601DateFormatter()
            lines.append("\"expiration\": \(jsonString(formatter.string(from: expiration)))")
        }
        lines.append("\"enforce\": \(set.enforces)")
        if set.allowsSinglePin { lines.append("\"allowSinglePin\": true") }
        if set.requiresMatchAtEveryPosition { lines.append("\"requireEveryPosition\": true") }
        if !set.reportURIs.isEmpty {
            lines.append("\"reportURIs\": [" + set.reportURIs.map { jsonString($0.absoluteString) }.joined(separator: ", ") + "]")
        }
        return "\(jsonString(set.pattern)): {\n" + lines.map { "\(indent)    \($0)" }.joined(separator: ",\n") + "\n\(indent)}"
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}

/// A JSON document as a tree, decoded strictly: a boolean is never a number and vice versa, so a
/// wrong type is reported as such.
enum JSONValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let b = try? container.decode(Bool.self) { self = .bool(b); return }
        if let n = try? container.decode(Double.self) { self = .number(n); return }
        if let s = try? container.decode(String.self) { self = .string(s); return }
        if let a = try? container.decode([JSONValue].self) { self = .array(a); return }
        self = .object(try container.decode([String: JSONValue].self))
    }

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    var brief: String {
        switch self {
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): PinningError.quote(s)
        default: kind
        }
    }

    func object(at path: String) throws -> [String: JSONValue] {
        guard case .object(let o) = self else { throw mismatch("an object", path) }
        return o
    }

    func array(at path: String) throws -> [JSONValue] {
        guard case .array(let a) = self else { throw mismatch("an array", path) }
        return a
    }

    func string(at path: String) throws -> String {
        guard case .string(let s) = self else { throw mismatch("a string", path) }
        return s
    }

    func bool(at path: String) throws -> Bool {
        guard case .bool(let b) = self else { throw mismatch("a boolean (true or false)", path) }
        return b
    }

    private func mismatch(_ expected: String, _ path: String) -> PinningError {
        PinningError(.malformedConfiguration, "expected \(expected), found \(kind)", keyPath: path)
    }

    static func allowOnly(_ keys: Set<String>, in object: [String: JSONValue], at path: String) throws {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw PinningError(.malformedConfiguration,
                "unknown key \(PinningError.quote(unknown)) (known: \(keys.sorted().joined(separator: ", ")))", keyPath: path)
        }
    }

    /// A decoding error in one line, without Swift's coding-path noise.
    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            var text = context.debugDescription
            if let underlying = context.underlyingError {
                text += " (" + String(describing: underlying).prefix(160) + ")"
            }
            return text.replacingOccurrences(of: "\n", with: " ")
        }
        return String(String(describing: error).prefix(200)).replacingOccurrences(of: "\n", with: " ")
    }
}
