/// A plain `http://` URL split into what a revocation fetch needs: OCSP responders and CRL
/// distribution points are served over plain HTTP (RFC 5280 §4.2.1.13, RFC 6960 Appendix A.1),
/// because their answers are signed and fetching them over TLS would need revocation checking of
/// its own.
///
/// Any other scheme is refused by name — `https` (a loop back into revocation checking), `ldap`,
/// `file`, `ftp` — so that a certificate's URL cannot make the fetcher open local files or speak
/// other protocols.
struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// A DNS name or an IP literal without brackets.
    let host: String
    /// 80 unless given.
    let port: Int
    /// The path and query, starting with `/`.
    let path: String

    /// - Throws: `TLSTrustError` `.unsupported` naming the scheme for anything but `http://`;
    ///   `.invalidArgument` for a malformed URL.
    init(_ text: String) throws {
        func bad(_ why: String) -> TLSTrustError {
            TLSTrustError(.invalidArgument, "not a usable http URL (\(why)): \(String(text.prefix(200)))")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw bad("it contains spaces, control or non-ASCII characters") }
        guard let schemeEnd = text.range(of: "://") else { throw bad("no scheme") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" else {
            throw TLSTrustError(.unsupported, "revocation is fetched over http:// only, not the \"\(scheme.prefix(20))\" scheme: \(String(text.prefix(200)))")
        }
        let parts = try URLAuthority(text[schemeEnd.upperBound...], defaultPort: 80, bad: bad)
        host = parts.host
        port = parts.port
        path = parts.path
    }

    /// The target of a redirect: an absolute URL (which must be `http://`), or an absolute path on
    /// this URL's host. Relative paths and scheme-relative `//host` forms are refused: no OCSP
    /// responder or CRL server needs them.
    func resolving(location: String) throws -> HTTPURL {
        if location.hasPrefix("/") && !location.hasPrefix("//") {
            return try HTTPURL("http://\(hostHeader)\(location)")
        }
        guard location.contains("://") else {
            throw TLSTrustError(.invalidArgument, "a redirect to \"\(location.prefix(200))\" is neither an absolute URL nor an absolute path")
        }
        return try HTTPURL(location)
    }

    /// The `Host` header value.
    var hostHeader: String { URLAuthority.hostHeader(host: host, port: port, defaultPort: 80) }

    var description: String { "http://\(hostHeader)\(path)" }
}
