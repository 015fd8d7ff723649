/// An e-mail address as the engine reads and compares them: one strict parser of RFC 5321
/// §4.1.2's Mailbox, ASCII only, used wherever an address is read — rfc822Name name constraints
/// (the names and the subtrees), `TrustPolicy.email(address:)`, the leaf's rfc822Names.
///
/// Only the plain form is accepted: a Dot-string local part (atext characters, single dots, not at
/// either end; at most 64 octets) and a DNS domain (``DNSName``; no trailing dot). Quoted local
/// parts (`"ceo"@corp.example`), comments (`ceo(x)@corp.example`, which RFC 5321 does not have
/// at all), address literals (`user@[192.0.2.1]`), non-ASCII (SMTPUTF8) and a second `@` are
/// not: a quoted local part can spell the same mailbox as a dot-atom (`"ceo"` is `ceo`), so
/// comparing it as text would let it escape an excluded mailbox, and reading it as the mailbox
/// would be one more way for two verifiers to disagree. A presented rfc822Name in such a form
/// names nobody, and is refused wherever a CA constrains rfc822Names (``NameConstraintChecker``).
struct EmailAddress: Hashable, CustomStringConvertible {
    /// Compared exactly (RFC 5321 §2.4: the local part may be case-sensitive).
    let localPart: String
    /// Lowercased: domains compare case-insensitively.
    let domain: String

    init?(_ text: String) {
        guard Self.refusal(of: text) == nil, let at = text.utf8.firstIndex(of: UInt8(ascii: "@")) else { return nil }
        localPart = String(text[..<at])
        domain = String(text[text.utf8.index(after: at)...]).lowercased()
    }

    /// Why `text` is not a mailbox this parser accepts, or nil when it is one.
    static func refusal(of text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "not printable ASCII (non-ASCII, space or control characters)"
        }
        guard let at = utf8.lastIndex(of: UInt8(ascii: "@")) else { return "no '@'" }
        let local = utf8[..<at]
        let domainBytes = utf8[(at + 1)...]
        if local.first == UInt8(ascii: "\"") || local.contains(UInt8(ascii: "\"")) {
            return "a quoted local part (RFC 5321 Quoted-string; only a Dot-string is accepted)"
        }
        if local.contains(UInt8(ascii: "(")) || local.contains(UInt8(ascii: ")")) {
            return "a comment in the local part (not RFC 5321 syntax)"
        }
        if local.contains(UInt8(ascii: "@")) { return "more than one '@'" }
        if domainBytes.first == UInt8(ascii: "[") { return "an address literal as domain (only a DNS domain is accepted)" }
        guard !local.isEmpty, local.count <= 64 else { return "a local part of \(local.count) octets (1 to 64)" }
        guard local.first != UInt8(ascii: "."), local.last != UInt8(ascii: "."),
              !zip(local, local.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }) else {
            return "a local part with a leading, trailing or doubled dot"
        }
        guard local.allSatisfy({ isAtext($0) || $0 == UInt8(ascii: ".") }) else {
            return "a character outside atext in the local part"
        }
        guard DNSName.labels(String(decoding: domainBytes, as: UTF8.self)) != nil else {
            return "a domain that is not a DNS name (letters, digits, hyphens; no trailing dot)"
        }
        return nil
    }

    /// RFC 5322 §3.2.3 atext: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    private static func isAtext(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(b)
        }
    }

    var description: String { "\(localPart)@\(domain)" }
}
