import TLSTrustCore
/// An error in a pin, a pin set or a pinning configuration.
///
/// A struct over a private code, compared by code (as `TLSTrustError`). Configuration errors
/// carry the path of the offending key, e.g.
/// `domains["api.example.com"].pins[1]: not a sha256/ pin: "md5/abc"`.
public struct PinningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value to compare against.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable {
            case malformedPin, invalidPinSet, malformedConfiguration, unreadableConfiguration
        }
        let value: Value
        init(_ value: Value) { self.value = value }

        /// A pin that is not `sha256/`, `sha384/` or `sha512/` followed by base64 of the right length.
        public static let malformedPin = Code(.malformedPin)
        /// A pin set that breaks a rule (no pins, a single pin while enforcing, a bad domain).
        public static let invalidPinSet = Code(.invalidPinSet)
        /// A configuration document of the wrong shape: a missing key, a wrong type, a bad value.
        public static let malformedConfiguration = Code(.malformedConfiguration)
        /// A configuration that cannot be read at all: not JSON / plist / XML, too large, a missing file.
        public static let unreadableConfiguration = Code(.unreadableConfiguration)

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// Where in a configuration document the problem is (`domains["a.example"].pins[1]`), or empty.
    public let keyPath: String
    /// The problem, one line.
    public let problem: String

    public init(_ code: Code, _ problem: String, keyPath: String = "") {
        self.code = code
        self.problem = problem
        self.keyPath = keyPath
    }

    /// `keyPath: problem`, or the problem alone.
    public var message: String { keyPath.isEmpty ? problem : "\(keyPath): \(problem)" }
    public var description: String { message }

    func at(_ path: String) -> PinningError { PinningError(code, problem, keyPath: keyPath.isEmpty ? path : path + keyPath) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `text` quoted for a one-line message: control characters escaped, long input cut.
    static func quote(_ text: String, limit: Int = 80) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { out += "…"; break }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out + "\""
    }
}
