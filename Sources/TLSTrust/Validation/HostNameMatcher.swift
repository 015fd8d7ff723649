/// Server identity (RFC 9525, RFC 6125 as Chrome, Go and rustls apply it): does the leaf name
/// the host the app connects to?
///
/// - A DNS host matches dNSName subjectAltNames only (``DNSName/matches(pattern:host:)``).
/// - An IP host matches iPAddress subjectAltNames only, byte for byte and family for family
///   (an IPv4 address never matches an IPv4-mapped IPv6 SAN, nor an IP written as a dNSName).
/// - No common-name fallback unless the caller opts in; then a leaf with no subjectAltName of the
///   host's type may match by a subject commonName (name constraints apply to it too — see
///   ``NameConstraintChecker``).
enum HostNameMatcher {
    /// Why `certificate` does not name `host`, or nil when it does.
    static func mismatch(_ certificate: Certificate, _ host: HostIdentity, allowingCommonName: Bool) -> String? {
        switch host {
        case .ipAddress(let ip):
            if certificate.ipAddresses.contains(ip) { return nil }
            if allowingCommonName && certificate.ipAddresses.isEmpty,
               certificate.subject.attributes.contains(where: { $0.oid == commonNameOID && IPAddress($0.value) == ip }) {
                return nil
            }
            return "no iPAddress subjectAltName is \(ip)"
        case .dnsName(let name):
            guard DNSName.labels(name) != nil else {
                return "the requested host is not a valid DNS name (ASCII letters, digits and hyphens; A-labels for IDNs)"
            }
            if certificate.dnsNames.contains(where: { DNSName.matches(pattern: $0, host: name) }) { return nil }
            if allowingCommonName && certificate.dnsNames.isEmpty,
               commonNameDNSNames(of: certificate).contains(where: { DNSName.matches(pattern: $0, host: name) }) {
                return nil
            }
            return certificate.dnsNames.isEmpty && !allowingCommonName && certificate.subject.commonName != nil
                ? "no dNSName subjectAltName matches (the subject common name is not consulted)"
                : "no dNSName subjectAltName matches"
        }
    }

    static let commonNameOID = "2.5.4.3"

    /// The subject commonNames that could stand for a DNS name under the legacy fallback.
    static func commonNameDNSNames(of certificate: Certificate) -> [String] {
        certificate.subject.attributes.filter { $0.oid == commonNameOID }.map(\.value)
    }
}
