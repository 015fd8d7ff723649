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

    /// Why this identity can match no certificate, or nil: a DNS name that is not a valid host
    /// name (`bad host!`, `a..b`), or that resolvers read as an IPv4 address (`127.1`,
    /// `2130706433`; see ``IPAddress/init(resolverReading:)``). Callers that take a host from a
    /// person (the tool's `--hostname`) refuse such input as bad usage rather than evaluate a
    /// certificate against a name that nothing can match.
    public var validationProblem: String? {
        switch self {
        case .ipAddress: return nil
        case .dnsName(let name): return DNSName.referenceProblem(name)
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
    /// Whether this certificate names `host` by the engine's rules (its host-name matcher):
    /// subjectAltName only, RFC 9525 wildcards, no common-name fallback.
    public func matches(_ host: HostIdentity) -> Bool {
        HostNameMatcher.mismatch(self, host, allowingCommonName: false) == nil
    }
}
