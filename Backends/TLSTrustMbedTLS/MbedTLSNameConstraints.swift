import TLSTrust

/// RFC 5280 name constraints, enforced in Swift because mbedTLS 2.28 does not implement them
/// (it does not even know the extension; the parser's extension callback hands this backend the
/// raw value, see ``MbedTLSExtensionRecord``).
///
/// The rules are OpenSSL 3's (`crypto/x509/v3_ncons.c`), so that both backends agree:
/// - every certificate below a constrained CA in the chain is checked, except self-issued
///   intermediates; constraints of every certificate apply, the anchor's included;
/// - for each name type, a name must match one permitted subtree of its type when there is any,
///   and must match no excluded subtree of its type;
/// - names checked: dNSName, iPAddress, rfc822Name and URI subjectAltNames, the subject DN as a
///   directoryName, subject emailAddress attributes as rfc822Name, and for the leaf the subject
///   CN as a dNSName when it looks like one and the leaf has no dNSName SAN;
/// - dNSName: the base, case-insensitively, equals the name or is a suffix of it that starts at a
///   label boundary (`example.com` allows `www.example.com`; `.example.com` excludes `example.com`);
/// - a GeneralSubtree with minimum/maximum is refused (X509_V_ERR_SUBTREE_MINMAX).
///
/// Known differences from OpenSSL: directoryName subtrees are compared as RDN-by-RDN DER
/// prefixes, not on OpenSSL's case- and space-folded canonical form; directoryName,
/// otherName and other SAN types are not checked (the core does not expose them).
struct MbedTLSNameConstraints {
    enum Base: Equatable {
        case dns(String), email(String), uri(String), ip(address: [UInt8], mask: [UInt8]), directory(rdns: [[UInt8]])
        case unsupported(tag: UInt8)
    }

    var permitted: [Base] = []
    var excluded: [Base] = []

    struct Malformed: Error { let reason: String }

    /// Parses the extnValue of a nameConstraints extension.
    init(der: [UInt8]) throws {
        var outer = TinyDER(der)
        var body = try outer.enter(0x30)
        guard outer.isAtEnd else { throw Malformed(reason: "trailing bytes") }
        while !body.isAtEnd {
            let (tag, contents) = try body.next()
            var subtrees = TinyDER(contents)
            var list: [Base] = []
            while !subtrees.isAtEnd {
                var subtree = try subtrees.enter(0x30)
                let (nameTag, name) = try subtree.next()
                list.append(try Self.base(tag: nameTag, contents: name))
                while !subtree.isAtEnd {
                    let (fieldTag, value) = try subtree.next()
                    // minimum [0] DEFAULT 0 (an explicit 0 is tolerated), maximum [1]: unsupported.
                    if fieldTag == 0x80 && value.allSatisfy({ $0 == 0 }) { continue }
                    throw Malformed(reason: "GeneralSubtree with minimum/maximum is not supported")
                }
            }
            switch tag {
            case 0xA0: permitted += list
            case 0xA1: excluded += list
            default: throw Malformed(reason: "unexpected field tag 0x\(String(tag, radix: 16))")
            }
        }
    }

    static func base(tag: UInt8, contents: [UInt8]) throws -> Base {
        switch tag {
        case 0x81: return .email(String(decoding: contents, as: UTF8.self))
        case 0x82: return .dns(String(decoding: contents, as: UTF8.self))
        case 0x86: return .uri(String(decoding: contents, as: UTF8.self))
        case 0x87:
            guard contents.count == 8 || contents.count == 32 else { throw Malformed(reason: "iPAddress subtree of \(contents.count) bytes") }
            let half = contents.count / 2
            return .ip(address: Array(contents[..<half]), mask: Array(contents[half...]))
        case 0xA4:
            var name = TinyDER(contents)
            return .directory(rdns: try rdnSequence(name.enter(0x30)))
        default: return .unsupported(tag: tag)
        }
    }

    /// The RDNs (each SET's full DER) of a Name's contents.
    static func rdnSequence(_ reader: TinyDER) throws -> [[UInt8]] {
        var reader = reader
        var rdns: [[UInt8]] = []
        while !reader.isAtEnd { rdns.append(try reader.nextEncoded()) }
        return rdns
    }

    /// One name of a certificate, by type.
    enum Name: CustomStringConvertible {
        case dns(String), email(String), uri(String), ip([UInt8]), directory([[UInt8]])

        var description: String {
            switch self {
            case .dns(let name): return "DNS name \(name)"
            case .email(let address): return "e-mail address \(address)"
            case .uri(let uri): return "URI \(uri)"
            case .ip(let bytes): return "IP address \(IPAddress(bytes: bytes)?.description ?? "?")"
            case .directory(let rdns): return "directory name of \(rdns.count) RDNs"
            }
        }
    }

    /// The names of `certificate` that constraints apply to (see the type's documentation).
    static func names(of certificate: Certificate, isLeaf: Bool) -> [Name] {
        var names: [Name] = certificate.dnsNames.map(Name.dns) + certificate.ipAddresses.map { .ip($0.bytes) }
            + certificate.emailAddresses.map(Name.email) + certificate.uris.map(Name.uri)
        var subject = TinyDER(certificate.subject.derEncoded)
        if let contents = try? subject.enter(0x30), let rdns = try? rdnSequence(contents), !rdns.isEmpty {
            names.append(.directory(rdns))
        }
        for attribute in certificate.subject.attributes where attribute.oid == "1.2.840.113549.1.9.1" {
            names.append(.email(attribute.value))
        }
        if isLeaf && certificate.dnsNames.isEmpty {
            for attribute in certificate.subject.attributes where attribute.oid == "2.5.4.3" && looksLikeDNSName(attribute.value) {
                names.append(.dns(attribute.value))
            }
        }
        return names
    }

    /// OpenSSL's `cn2dnsid` test: letters, digits, `_`, and interior `-` / `.`, with at least one dot.
    static func looksLikeDNSName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var hasDot = false
        for (i, c) in bytes.enumerated() {
            if (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F { continue }
            guard i > 0 && i < bytes.count - 1 else { return false }
            if c == 0x2D { continue }
            if c == 0x2E && bytes[i + 1] != 0x2E && bytes[i - 1] != 0x2D && bytes[i + 1] != 0x2D { hasDot = true; continue }
            return false
        }
        return hasDot
    }

    enum Verdict: Equatable { case ok, permittedViolation, excludedViolation, unsupported(String) }

    /// Checks one name against these constraints.
    func check(_ name: Name) -> Verdict {
        let sameType = { (base: Base) -> Bool in
            switch (name, base) {
            case (.dns, .dns), (.email, .email), (.uri, .uri), (.ip, .ip), (.directory, .directory): return true
            default: return false
            }
        }
        let permittedOfType = permitted.filter(sameType)
        if !permittedOfType.isEmpty {
            var matched = false
            for base in permittedOfType {
                switch Self.match(name, base) {
                case .some(true): matched = true
                case .some(false): continue
                case .none: return .unsupported("name syntax not supported for name constraints")
                }
                if matched { break }
            }
            if !matched { return .permittedViolation }
        }
        for base in excluded.filter(sameType) where Self.match(name, base) == true { return .excludedViolation }
        return .ok
    }

    /// Whether `name` lies in the subtree `base` (same type); nil for a name OpenSSL cannot parse.
    static func match(_ name: Name, _ base: Base) -> Bool? {
        switch (name, base) {
        case (.dns(let n), .dns(let b)): return dnsMatch(n, b)
        case (.ip(let n), .ip(let address, let mask)):
            guard n.count == address.count else { return false }
            return (0..<n.count).allSatisfy { n[$0] & mask[$0] == address[$0] & mask[$0] }
        case (.directory(let n), .directory(let b)):
            return b.count <= n.count && Array(n.prefix(b.count)) == b
        case (.email(let n), .email(let b)): return emailMatch(n, b)
        case (.uri(let n), .uri(let b)):
            guard let host = uriHost(n) else { return nil }
            if b.hasPrefix(".") { return host.count > b.count && host.lowercased().hasSuffix(b.lowercased()) }
            return host.lowercased() == b.lowercased()
        default: return false
        }
    }

    /// OpenSSL's `nc_dns`.
    static func dnsMatch(_ name: String, _ base: String) -> Bool {
        let n = Array(name.lowercased().utf8), b = Array(base.lowercased().utf8)
        if b.isEmpty { return true }
        if n.count < b.count { return false }
        if n.count > b.count {
            let boundary = n[n.count - b.count - 1]
            if b[0] != UInt8(ascii: ".") && boundary != UInt8(ascii: ".") { return false }
        }
        return Array(n.suffix(b.count)) == b
    }

    /// OpenSSL's `nc_email`.
    static func emailMatch(_ email: String, _ base: String) -> Bool? {
        guard let at = email.lastIndex(of: "@") else { return nil }
        if base.hasPrefix(".") {
            return email.count > base.count && email.lowercased().hasSuffix(base.lowercased())
        }
        var host = Substring(base)
        if let baseAt = base.firstIndex(of: "@") {
            if baseAt != base.startIndex && base[..<baseAt] != email[..<at] { return false }
            host = base[base.index(after: baseAt)...]
        }
        return email[email.index(after: at)...].lowercased() == host.lowercased()
    }

    /// The host of a URI as OpenSSL's `nc_uri` takes it: after `://`, up to `:` or `/`.
    static func uriHost(_ uri: String) -> String? {
        guard let scheme = uri.range(of: "://") else { return nil }
        let rest = uri[scheme.upperBound...]
        let host = rest.prefix { $0 != ":" && $0 != "/" }
        return host.isEmpty ? nil : String(host)
    }
}

/// A minimal DER TLV reader (definite lengths only), enough for nameConstraints and Names.
struct TinyDER {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    struct Malformed: Error {}

    private mutating func header() throws -> (tag: UInt8, start: Int, contentStart: Int, end: Int) {
        let start = offset
        guard offset + 2 <= bytes.count else { throw Malformed() }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { throw Malformed() }
        var length = Int(bytes[offset + 1])
        offset += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1 && count <= 4 && offset + count <= bytes.count else { throw Malformed() }
            length = 0
            for _ in 0..<count { length = length << 8 | Int(bytes[offset]); offset += 1 }
        }
        guard length <= bytes.count - offset else { throw Malformed() }
        let contentStart = offset
        offset += length
        return (tag, start, contentStart, offset)
    }

    /// The next element's tag and contents.
    mutating func next() throws -> (UInt8, [UInt8]) {
        let h = try header()
        return (h.tag, Array(bytes[h.contentStart..<h.end]))
    }

    /// The next element's full encoding.
    mutating func nextEncoded() throws -> [UInt8] {
        let h = try header()
        return Array(bytes[h.start..<h.end])
    }

    /// A reader over the contents of the next element, which must have `tag`.
    mutating func enter(_ tag: UInt8) throws -> TinyDER {
        let (found, contents) = try next()
        guard found == tag else { throw Malformed() }
        return TinyDER(contents)
    }
}
