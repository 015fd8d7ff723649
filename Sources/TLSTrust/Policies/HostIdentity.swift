/// The identity a server certificate must be valid for: a DNS name or an IP address.
///
/// Built from the text an app connects to. An IPv4 or IPv6 literal (optionally in brackets) is an
/// IP identity and is matched against iPAddress SANs only; anything else is a DNS name and is
/// matched against dNSName SANs under RFC 6125.
public enum HostIdentity: Sendable, Hashable, CustomStringConvertible {
    case dnsName(String)
    case ipAddress(IPAddress)

    /// Classifies `text` as an IP literal or a DNS name.
    ///
    /// One trailing dot is dropped from a DNS name: an absolute name (`www.example.com.`) is the
    /// same host, and certificates never carry the dot. Done here, once, so that every backend
    /// receives the same name (OpenSSL and GnuTLS alone would refuse the absolute form).
    public init(_ text: String) {
        if let ip = IPAddress(text) {
            self = .ipAddress(ip)
        } else if text.hasSuffix(".") && text.count > 1 {
            self = .dnsName(String(text.dropLast()))
        } else {
            self = .dnsName(text)
        }
    }

    /// True for an IP address identity.
    public var isIPAddress: Bool {
        if case .ipAddress = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .dnsName(let name): return name
        case .ipAddress(let ip): return ip.description
        }
    }
}

extension Certificate {
    /// Whether this certificate names `host`, by the rules every backend must follow.
    ///
    /// - DNS names: compared case-insensitively (ASCII) against dNSName SANs; a wildcard is honoured
    ///   only as the entire left-most label (`*.example.com`), matches exactly one label, and needs
    ///   at least two labels after it (`*.com` matches nothing). One trailing dot on either side is
    ///   ignored (`www.example.com.` is the same host). The subject common name is
    ///   consulted only when the certificate has no subjectAltName extension at all (RFC 6125
    ///   §6.4.4; a certificate that names only IP addresses in its SANs is not valid for a DNS
    ///   name in its CN).
    /// - IP addresses: compared byte for byte against iPAddress SANs only, never against names.
    ///
    /// Backends whose library cannot do a part of this (mbedTLS has no IP matching) call it.
    public func matches(_ host: HostIdentity) -> Bool {
        switch host {
        case .ipAddress(let ip):
            return ipAddresses.contains(ip)
        case .dnsName(let name):
            if !hasSubjectAltName {
                return subject.attributes.contains { $0.oid == "2.5.4.3" && Self.dnsPattern($0.value, matches: name) }
            }
            return dnsNames.contains { Self.dnsPattern($0, matches: name) }
        }
    }

    /// RFC 6125 §6.4 matching of one presented identifier against one reference identifier.
    static func dnsPattern(_ pattern: String, matches host: String) -> Bool {
        func normalize(_ s: String) -> [Substring] {
            var t = Substring(s.lowercased())
            if t.hasSuffix(".") { t = t.dropLast() }
            return t.split(separator: ".", omittingEmptySubsequences: false)
        }
        let p = normalize(pattern), h = normalize(host)
        guard !h.isEmpty, !h.contains(where: \.isEmpty), !p.contains(where: \.isEmpty), p.count == h.count else {
            return false
        }
        if p[0] == "*" {
            // Wildcard: whole left-most label only, matching exactly one label, with at least two
            // labels after it. (As in OpenSSL, the label it matches may be an A-label: RFC 6125
            // forbids wildcards *inside* IDN labels of the pattern, which `*` alone never is.)
            guard p.count >= 3 else { return false }
            return p.dropFirst() == h.dropFirst()
        }
        guard !p.contains(where: { $0.contains("*") }) else { return false }
        return p == h
    }
}
