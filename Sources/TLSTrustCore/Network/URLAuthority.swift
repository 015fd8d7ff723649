/// The part of an `http://` or `https://` URL after the scheme, split the one way both
/// `HTTPSURL` and the revocation fetcher's `HTTPURL` read it: host (a DNS name, or an IPv6
/// literal in brackets), optional port, and the path with its query (the fragment dropped).
/// User information is refused: no fetch TLSTrust makes needs it, and it hides the real host.
package struct URLAuthority {
    package let host: String
    package let port: Int
    package let path: String

    /// - Parameters:
    ///   - rest: the text after `scheme://`.
    ///   - defaultPort: the scheme's port.
    ///   - bad: makes the error for a malformed URL.
    package init(_ rest: Substring, defaultPort: Int, bad: (String) -> TLSTrustError) throws {
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
        var port = defaultPort
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw bad("bad port") }
            port = p
        }
        self.host = String(host)
        self.port = port
        self.path = path
    }

    /// The `Host` header value for `host` and `port`, the port left out when it is `defaultPort`.
    package static func hostHeader(host: String, port: Int, defaultPort: Int) -> String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? h : "\(h):\(port)"
    }
}
