import Foundation
import TLSTrust

/// The one JSON writer of `tlstrust` and `tlstrust-dev`: every `--json` document goes through it,
/// so that every command speaks one dialect (docs/cli.md, "JSON output").
///
/// The conventions, in one place:
/// - one object per run, with a top-level integer `schemaVersion` (``schemaVersion``);
/// - camelCase keys, and camelCase enum values (failure codes, revocation sources, kinds);
/// - hex (fingerprints, serial numbers, key identifiers) uppercase and colon-separated, as
///   `openssl x509` prints it (``hex(_:)``);
/// - instants as ISO 8601 strings; durations as integers or decimals of microseconds, in keys that
///   end in `Microseconds`;
/// - an error (exit 2, or a command's own failure status) as `{"schemaVersion", "error":
///   {"exitStatus", "message"}}` on standard output, besides the usual line on standard error.
package enum ToolJSON {
    /// The version of the tools' JSON shapes. A new key may appear without a change; a key changing
    /// meaning or going away raises it.
    package static let schemaVersion = 2

    /// Whether the arguments ask for JSON (`--json` anywhere after the tool's name): used where the
    /// command's own parsed value is not at hand, as in the error path.
    package static var isRequested: Bool { CommandLine.arguments.dropFirst().contains("--json") }

    /// Pretty-printed JSON with sorted keys, characters that act on a terminal escaped (see
    /// ``TerminalText/escapeJSON(_:)``), and no `\/`.
    package static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return TerminalText.escapeJSON(String(decoding: data, as: UTF8.self))
    }

    /// Writes `value` as one document on standard output.
    package static func print(_ value: some Encodable) {
        Swift.print(encode(value))
    }

    /// The error document: `{"schemaVersion", "error": {"exitStatus", "message"}}`.
    package static func error(_ message: String, exitStatus: Int32 = 2) -> String {
        encode(ErrorDocument(schemaVersion: schemaVersion, error: .init(exitStatus: Int(exitStatus), message: message)))
    }

    private struct ErrorDocument: Encodable {
        struct Body: Encodable { let exitStatus: Int; let message: String }
        let schemaVersion: Int
        let error: Body
    }

    /// Bytes as uppercase colon-separated hex (`0A:1B:…`), the form of every hex value in JSON.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// Hex written another way (`2e:38:…`, `85c7bb97…`) in the JSON form: uppercase, colon-separated.
    package static func hex(normalizing text: String) -> String {
        let digits = text.filter(\.isHexDigit).uppercased()
        var pairs: [String] = []
        var index = digits.startIndex
        if digits.count % 2 == 1 {
            pairs.append("0" + String(digits[index]))
            index = digits.index(after: index)
        }
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            pairs.append(String(digits[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }

    /// An instant as JSON writes it: ISO 8601, UTC, whole seconds.
    package static func instant(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// A revocation source as JSON names it: camelCase, like failure codes (`stapledOCSPResponse`).
    package static func name(_ source: CertificateRevocationStatus.Source) -> String {
        String(describing: source)
    }

    /// A duration in microseconds, rounded to whole microseconds.
    package static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}

/// Progress of a long command (`soak`, `bench`, `conformance`): always on standard error, a line at
/// once, so that standard output holds only the result (the table, or the one `--json` document).
package enum ToolProgress {
    package static func line(_ text: String) {
        FileHandle.standardError.write(Data((text.terminalSafe + "\n").utf8))
    }
}

/// An optional field written as `null` when it has no value, instead of being left out as the
/// synthesized `Encodable` conformance does for optionals: a document keeps one shape from run to
/// run, so a script can read `profile` or `certificateIndex` without first asking whether the key
/// exists. Fields documented as present only sometimes (`timeMicroseconds`, `native`) stay plain
/// optionals.
@propertyWrapper
package struct ExplicitNull<Value: Encodable>: Encodable {
    package var wrappedValue: Value?

    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}
