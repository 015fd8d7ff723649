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
        let rest = text.dropFirst("https://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.contains("@") else { throw bad("user information is not supported") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("unterminated IPv6 literal") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("junk after the IPv6 literal") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw bad("no host") }
        var port = 443
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw bad("bad port") }
            port = p
        }
        self.host = String(host)
        self.port = port
        self.path = path
    }

    /// The `Host` header value.
    public var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? h : "\(h):\(port)"
    }

    public var description: String { "https://\(hostHeader)\(path)" }
}
