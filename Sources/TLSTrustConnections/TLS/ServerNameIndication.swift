import TLSTrustCore
import TLSTrustDecisions
/// The server name a TLS client sends (SNI, RFC 6066 §3), decided once for every backend.
///
/// Decided by each backend its own way (`inet_pton`, `HostIdentity`), the libraries would disagree
/// on a trailing dot and on whether the configured server name wins over the host connected to.
/// The rule: the configured server name if any, else the host; an IP literal
/// (in brackets or not) is never sent ("Literal IPv4 and IPv6 addresses are not permitted"); a
/// DNS name is sent without its trailing dot; an empty name is not sent.
public enum ServerNameIndication {
    /// The host name to send in SNI for a connection to `host` with `configuredName`, or nil for
    /// none.
    public static func hostName(configured configuredName: String?, host: String) -> String? {
        switch HostIdentity(configuredName ?? host) {
        case .ipAddress:
            return nil
        case .dnsName(let name):
            return name.isEmpty ? nil : name
        }
    }
}
