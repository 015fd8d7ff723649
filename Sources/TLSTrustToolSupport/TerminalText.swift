/// Making text that came from a certificate (or from any other untrusted input) safe to print.
///
/// A subject, a SAN or a library's message about a certificate is attacker-controlled text: an
/// `ESC [` sequence in a common name could move the cursor, rewrite earlier lines ("trusted"),
/// retitle the window or, on some terminals, do worse; a bidirectional override could make a name
/// read differently from what it is. Every line the tool prints that can hold such text goes
/// through ``escape(_:)``; JSON output goes through ``escapeJSON(_:)``.
package enum TerminalText {
    /// The text with every character that could act on a terminal written out as an escape.
    ///
    /// - C0 controls, DEL and C1 controls (U+0000–U+001F, U+007F–U+009F) become `\xHH`;
    /// - bidirectional formatting characters and the line and paragraph separators become
    ///   `\u{HHHH}`;
    /// - a backslash becomes `\\`, so that an escape in the output always means an escaped
    ///   character and never text the certificate spelled that way.
    ///
    /// Everything else, including non-ASCII letters, is printed as it is.
    package static func escape(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result += "\\\\"
            } else if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                result += "\\x" + hex(scalar.value, width: 2)
            } else if isFormatting(scalar) {
                result += "\\u{" + hex(scalar.value, width: 4) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// JSON text with DEL, C1 controls and bidirectional formatting characters written as `\uHHHH`.
    ///
    /// `JSONEncoder` already escapes C0 controls; these it leaves raw, although they act on a
    /// terminal just the same. They can only occur inside JSON strings, where `\uHHHH` means the
    /// same character, so the document decodes to exactly the same values.
    package static func escapeJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && needsEscaping($0) }) else { return json }
        var result = ""
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F && needsEscaping(scalar) {
                result += "\\u" + hex(scalar.value, width: 4)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isFormatting(scalar)
    }

    /// Bidirectional marks, embeddings, overrides and isolates (the "Trojan Source" characters),
    /// and the Unicode line and paragraph separators.
    private static func isFormatting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension StringProtocol {
    /// This text escaped for printing on a terminal (see ``TerminalText/escape(_:)``).
    package var terminalSafe: String { TerminalText.escape(self) }
}

extension String {
    /// A multi-line text (an HTTP body) escaped line by line: line breaks are kept, everything else
    /// that could act on a terminal is escaped, `\r` included.
    package var terminalSafeKeepingNewlines: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.escape($0) }.joined(separator: "\n")
    }
}
