/// Server identity (RFC 9525, RFC 6125 as Chrome, Go and rustls apply it): does the leaf name
/// the host the app connects to?
///
/// - A DNS host matches dNSName subjectAltNames only (``DNSName/matches(pattern:host:)``); a host
///   that resolvers would read as an IPv4 address (`127.1`) is not a DNS name and matches nothing
///   (``DNSName/referenceProblem(_:)``).
/// - An IP host matches iPAddress subjectAltNames only, byte for byte and family for family
///   (an IPv4 address never matches an IPv4-mapped IPv6 SAN, nor an IP written as a dNSName).
/// - No common-name fallback unless the caller opts in; then a leaf with **no subjectAltName at
///   all** may match by a subject commonName, read as ``CommonNameIdentity`` reads it — the same
///   reading the name constraints apply to (``NameConstraintChecker``).
enum HostNameMatcher {
    /// Why `certificate` does not name `host`, or nil when it does.
    static func mismatch(_ certificate: Certificate, _ host: HostIdentity, allowingCommonName: Bool) -> String? {
        let commonNames = allowingCommonName ? CommonNameIdentity.names(of: certificate) : []
        switch host {
        case .ipAddress(let ip):
            if certificate.ipAddresses.contains(ip) { return nil }
            // A CN read as an address matches only when written canonically: `0xC0A80101` is
            // constrained as 192.168.1.1 (CommonNameIdentity) but never vouches for it.
            if commonNames.contains(.ipAddress(ip.bytes)),
               certificate.subject.commonNames.contains(ip.description) {
                return nil
            }
            return "no iPAddress subjectAltName is \(ip)"
        case .dnsName(let name):
            if let problem = DNSName.referenceProblem(name) { return problem }
            if certificate.dnsNames.contains(where: { DNSName.matches(pattern: $0, host: name) }) { return nil }
            if commonNames.contains(where: { if case .dnsName(let cn) = $0 { DNSName.matches(pattern: cn, host: name) } else { false } }) {
                return nil
            }
            if certificate.subjectAltNames.isEmpty && !allowingCommonName && certificate.subject.commonName != nil {
                return "no dNSName subjectAltName matches (the subject common name is not consulted)"
            }
            if !certificate.subjectAltNames.isEmpty && allowingCommonName && certificate.dnsNames.isEmpty {
                return "no dNSName subjectAltName matches (the common name is not consulted when the certificate has a subjectAltName)"
            }
            return "no dNSName subjectAltName matches"
        }
    }
}
