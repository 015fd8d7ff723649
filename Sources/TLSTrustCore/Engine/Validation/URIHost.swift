/// The host of a URI as uniformResourceIdentifier name constraints compare it (RFC 5280
/// §4.2.1.10: the constraint applies to the host part), read by one strict RFC 3986 parser.
///
/// Accepted: `scheme "://" host [":" port] [path] ["?" query] ["#" fragment]` where every
/// character of the URI is one RFC 3986 allows (unreserved, reserved, or `%` with two hex
/// digits), the host is a DNS name (``DNSName``: letters, digits, hyphens; no trailing dot; not a
/// name resolvers read as an IPv4 address) and the port is digits.
///
/// Refused, each for a reason: a URI without an authority (`urn:…`, `mailto:…`); a character
/// RFC 3986 does not allow anywhere (a backslash — which WHATWG parsers read as `/`, so
/// `https://evil.example\@good.example/` names `evil.example` to a browser — a NUL, a space,
/// non-ASCII); userinfo (`https://good.example@evil.example/`: legal, but the classic way to make
/// a reader see the wrong host, and never needed in a certificate); a percent-encoded or
/// otherwise non-LDH host (`%65vil.example`); an IP-literal or IPv4 host (a DNS-style constraint
/// cannot judge it).
struct URIHost: Equatable, CustomStringConvertible {
    /// The host's lowercase labels.
    let labels: [Substring]

    var description: String { labels.joined(separator: ".") }

    /// The host of `uri`, or why it has none this parser accepts.
    static func parse(_ uri: String) -> Result<URIHost, Refusal> {
        let bytes = Array(uri.utf8)
        var i = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: ":") {
            let b = bytes[i]
            let ok = isAlpha(b) || (i > 0 && (isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")))
            guard ok else { return .failure(Refusal("an invalid scheme")) }
            i += 1
        }
        guard i > 0, i < bytes.count else { return .failure(Refusal("no scheme")) }
        if let bad = firstDisallowed(bytes) { return .failure(Refusal(bad)) }
        guard bytes.count >= i + 3, bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") else {
            return .failure(Refusal("no authority ('scheme://host'), so no host to compare"))
        }
        let start = i + 3
        var end = start
        while end < bytes.count, !"/?#".utf8.contains(bytes[end]) { end += 1 }
        var authority = bytes[start..<end]
        if authority.contains(UInt8(ascii: "@")) {
            return .failure(Refusal("userinfo in the authority (refused: it hides which host is meant)"))
        }
        if authority.first == UInt8(ascii: "[") { return .failure(Refusal("an IP-literal host (a DNS-style constraint cannot judge it)")) }
        if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            let port = authority[(colon + 1)...]
            guard port.count <= 5, port.allSatisfy(isDigit) else { return .failure(Refusal("a port that is not digits")) }
            authority = authority[..<colon]
        }
        if authority.contains(UInt8(ascii: "%")) { return .failure(Refusal("a percent-encoded host")) }
        let host = String(decoding: authority, as: UTF8.self)
        guard let labels = DNSName.labels(host) else {
            return .failure(Refusal("a host that is not a DNS name (letters, digits, hyphens; no trailing dot)"))
        }
        if DNSName.referenceProblem(host) != nil {
            return .failure(Refusal("a host that resolvers read as an IPv4 address (a DNS-style constraint cannot judge it)"))
        }
        return .success(URIHost(labels: labels))
    }

    /// Why a URI is refused.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The first character RFC 3986 allows nowhere (anything but unreserved, reserved and `%HH`).
    private static func firstDisallowed(_ bytes: [UInt8]) -> String? {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else {
                    return "a '%' not followed by two hex digits"
                }
                i += 3
                continue
            }
            let allowed = isAlpha(b) || isDigit(b) || "-._~:/?#[]@!$&'()*+,;=".utf8.contains(b)
            if !allowed {
                switch b {
                case UInt8(ascii: "\\"): return "a backslash (RFC 3986 allows none; WHATWG parsers read it as '/')"
                case 0: return "a NUL character"
                case 0x80...: return "a non-ASCII character"
                default: return "the character 0x\(String(format2: b)), which RFC 3986 does not allow"
                }
            }
            i += 1
        }
        return nil
    }

    private static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static func isHex(_ b: UInt8) -> Bool { isDigit(b) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66) }
}
