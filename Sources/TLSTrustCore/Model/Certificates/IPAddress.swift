/// An IPv4 or IPv6 address, as found in an iPAddress subject-alternative name or given as the
/// host to verify.
///
/// Parsing is strict on purpose: `"1.2.3"` or `"01.2.3.4"` are not addresses (some resolvers
/// accept them, and a verifier that disagrees with the resolver about which host is meant is an
/// attack surface). Anything that does not parse is treated as a DNS name by `HostIdentity`.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, network order.
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }
    public var isIPv6: Bool { bytes.count == 16 }

    /// Wraps raw bytes; returns nil unless there are exactly 4 or 16.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a dotted-quad IPv4 or an RFC 4291 IPv6 literal (with `::`, an embedded IPv4 tail, and
    /// optionally in brackets). Zone identifiers (`%eth0`) are refused: they name no certificate SAN.
    public init?(_ text: String) {
        // Every IP literal is made of hex digits, dots, colons and brackets only. A DNS name
        // nearly always has another letter, and this one pass over the bytes spares it the two
        // parsers (they split and search the string): a host policy is built per connection.
        guard text.utf8.allSatisfy(Self.mayAppearInLiteral) else { return nil }
        var s = Substring(text)
        if s.hasPrefix("[") && s.hasSuffix("]") { s = s.dropFirst().dropLast() }
        if let v4 = Self.parseIPv4(s) {
            bytes = v4
        } else if let v6 = Self.parseIPv6(s) {
            bytes = v6
        } else {
            return nil
        }
    }

    /// `0-9`, `a-f`, `A-F`, `.`, `:`, `[`, `]`.
    private static func mayAppearInLiteral(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"),
             UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }

    static func parseIPv4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            if p.count > 1 && p.first == "0" { return nil }  // no octal ambiguity
            guard let v = Int(p), v <= 255 else { return nil }
            out.append(UInt8(v))
        }
        return out
    }

    static func parseIPv6(_ s: Substring) -> [UInt8]? {
        guard s.contains(":"), !s.contains("%") else { return nil }
        let halves = s.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        /// Groups of 1–4 hex digits; an embedded IPv4 address only as the very last piece of the
        /// whole address (`::ffff:1.2.3.4`, never `1.2.3.4::`).
        func groups(_ part: Substring, endsAddress: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                if endsAddress, i == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    out += v4
                    continue
                }
                // Only hex digits: `UInt16(_:radix:)` alone would also take a sign (`::+1`).
                guard !piece.isEmpty, piece.count <= 4, piece.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                      let v = UInt16(piece, radix: 16) else { return nil }
                out += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            return out
        }
        if halves.count == 1 {
            guard let all = groups(s, endsAddress: true), all.count == 16 else { return nil }
            return all
        }
        guard let head = groups(Substring(halves[0]), endsAddress: false),
              let tail = groups(Substring(halves[1]), endsAddress: true) else { return nil }
        guard head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Dotted quad, or RFC 5952 canonical IPv6 text.
    public var description: String {
        if isIPv4 { return bytes.map { "\($0)" }.joined(separator: ".") }
        var words: [UInt16] = []
        for i in stride(from: 0, to: 16, by: 2) { words.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])) }
        // Longest run of zero words (length ≥ 2) becomes "::".
        var bestStart = -1, bestLen = 0, i = 0
        while i < 8 {
            if words[i] == 0 {
                var j = i
                while j < 8 && words[j] == 0 { j += 1 }
                if j - i > bestLen && j - i >= 2 { bestStart = i; bestLen = j - i }
                i = j
            } else { i += 1 }
        }
        func hex(_ r: ArraySlice<UInt16>) -> String { r.map { String($0, radix: 16) }.joined(separator: ":") }
        if bestStart < 0 { return hex(words[...]) }
        return hex(words[0..<bestStart]) + "::" + hex(words[(bestStart + bestLen)...])
    }
}

extension Substring {
    fileprivate func components(separatedBy separator: String) -> [Substring] {
        var out: [Substring] = []
        var rest = self[...]
        while let r = rest.firstRange(of: separator) {
            out.append(rest[..<r.lowerBound])
            rest = rest[r.upperBound...]
        }
        out.append(rest)
        return out
    }
}
