/// The one place that decides whether, and as what, a leaf's subject commonName stands for an
/// identity.
///
/// Host matching (with the legacy fallback) and name constraints both read the common name; if
/// they read it by different rules, a name can be matched under one reading and constrained under
/// another (an IP-shaped CN matched as an address but constrained as a dNSName, or not at all).
/// So both ask this type, and only this type:
///
/// - **Never when the leaf has any subjectAltName** (RFC 9525 §6.4.4: a client must not seek a
///   CN-ID when the certificate presents any other identifier). Then the CN is a description.
/// - An IP-shaped CN is an ``IPAddress``: matched against an IP host and constrained by
///   iPAddress subtrees. A CN that a resolver would read as an IPv4 address but that is not the
///   canonical dotted quad (`0xC0A80101`, `192.168.001.010`, `3232235786`) is read the way
///   `inet_aton` reads it, so that its address is still constrained (it is never matched: the
///   engine only matches canonical literals).
/// - A CN that is a syntactically valid DNS name (``DNSName``) is a dNSName: matched with the
///   RFC 9525 rules and constrained by dNSName subtrees.
/// - Anything else (`My Test Server`) names no host and is neither matched nor constrained.
///
/// Whether the CN is *matched* at all is the caller's choice (``TrustPolicy/ssl(server:hostname:allowingCommonName:)``);
/// whether it is *constrained* is not: a SAN-less leaf's host-shaped CN is what legacy matchers
/// (OpenSSL's `X509_check_host`, old clients) read as its identity, so name constraints always
/// apply to it, as OpenSSL and Chromium apply them.
enum CommonNameIdentity {
    /// The identities the leaf's commonNames stand for, as GeneralNames; empty when the leaf has
    /// any subjectAltName.
    static func names(of leaf: Certificate) -> [GeneralName] {
        guard leaf.subjectAltNames.isEmpty else { return [] }
        var out: [GeneralName] = []
        for cn in leaf.subject.commonNames {
            if let ip = IPAddress(cn) {
                out.append(.ipAddress(ip.bytes))
            } else if let read = IPAddress(resolverReading: cn) {
                out.append(.ipAddress(read.bytes))
                out.append(.dnsName(cn))  // and, as the invalid DNS name it is, refused by DNS subtrees
            } else if DNSName.labels(cn, allowWildcard: true) != nil {
                out.append(.dnsName(cn))
            }
        }
        return out
    }
}

extension IPAddress {
    /// The IPv4 address a BSD resolver (`inet_aton`, and so `getaddrinfo` on glibc) reads in
    /// `text`, or nil when it reads none: one to four parts separated by dots, each decimal,
    /// octal (leading `0`) or hexadecimal (`0x`), the last filling the remaining bytes
    /// (`127.1` is 127.0.0.1, `2130706433` is 127.0.0.1, `0x7f.0.0.1` too).
    ///
    /// Used to refuse, never to match: a name that a resolver reads as an address must not be
    /// treated as a DNS name (its iPAddress constraints would never apply), and the engine
    /// matches only canonical IP literals.
    public init?(resolverReading text: String) {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            let lower = part.lowercased()
            let value: UInt64?
            if lower.hasPrefix("0x") {
                let digits = lower.dropFirst(2)
                value = digits.isEmpty ? 0 : (digits.count <= 16 && digits.allSatisfy(\.isHexDigit) ? UInt64(digits, radix: 16) : nil)
            } else if lower.hasPrefix("0") && lower.count > 1 {
                value = lower.count <= 22 && lower.allSatisfy({ ("0"..."7").contains($0) }) ? UInt64(lower, radix: 8) : nil
            } else {
                value = !lower.isEmpty && lower.count <= 20 && lower.allSatisfy({ $0.isASCII && $0.isNumber }) ? UInt64(lower) : nil
            }
            guard let value else { return nil }
            values.append(value)
        }
        let leading = values.dropLast()
        guard leading.allSatisfy({ $0 <= 255 }), let last = values.last else { return nil }
        let lastBytes = 4 - leading.count
        guard last < (UInt64(1) << UInt64(8 * lastBytes)) else { return nil }
        var bytes = leading.map { UInt8($0) }
        for shift in (0..<lastBytes).reversed() { bytes.append(UInt8((last >> UInt64(8 * shift)) & 0xFF)) }
        self.init(bytes: bytes)
    }
}
