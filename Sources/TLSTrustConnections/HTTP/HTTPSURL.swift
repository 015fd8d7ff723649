import TLSTrustCore
import TLSTrustDecisions
/// An `https://` URL split into what a TLS connection needs. Only `https` is accepted: TLSTrust
/// never fetches over plain HTTP.
public struct HTTPSURL: Sendable, Hashable, CustomStringConvertible {
    /// The host: a DNS name, or an IP literal without brackets.
    public let host: String
    /// The port (443 unless given).
    public let port: Int
    /// The path and query, starting with `/`.
    public let path: String

    /// - Throws: `TLSTrustError` `.invalidArgument` for anything but a well-formed `https://` URL.
    public init(_ text: String) throws {
        func bad(_ why: String) -> TLSTrustError { TLSTrustError(.invalidArgument, "not a usable https URL (\(why)): \(text)") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw bad("it contains spaces, control or non-ASCII characters") }
        guard text.lowercased().hasPrefix("https://") else { throw bad("only https:// is supported") }
        let parts = try URLAuthority(text.dropFirst("https://".count), defaultPort: 443, bad: bad)
        host = parts.host
        port = parts.port
        path = parts.path
    }

    /// The `Host` header value.
    public var hostHeader: String { URLAuthority.hostHeader(host: host, port: port, defaultPort: 443) }

    public var description: String { "https://\(hostHeader)\(path)" }
}
