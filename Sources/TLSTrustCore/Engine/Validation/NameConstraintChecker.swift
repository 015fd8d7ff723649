/// Name constraints (RFC 5280 §4.2.1.10) of one CA, applied to the names of one certificate below it.
///
/// Names checked: every subjectAltName; the subject DN (directoryName) when not empty; subject
/// emailAddress attributes (rfc822Name); and, for a leaf without subjectAltName, what its
/// commonName stands for as ``CommonNameIdentity`` reads it (the reading host matching uses), so
/// that neither the fallback nor a legacy matcher can escape a constraint through the CN.
///
/// Rules beyond the letter of RFC 5280, each closing a bypass:
/// - iPAddress constraints apply per family: once a CA permits any address range, an address of
///   a family with no permitted range is refused (an IPv4-only CA cannot vouch for IPv6 or
///   IPv4-mapped IPv6 addresses).
/// - Every name is read by one strict parser of its type before it is compared: dNSNames by
///   ``DNSName``, rfc822Names by the RFC 5321 mailbox parser ``EmailAddress``, URIs by the RFC
///   3986 parser ``URIHost``, directoryNames prepared by RFC 4518 (``NormalizedName``). A name
///   the parser refuses (a non-ASCII or trailing-dot dNSName, a quoted or commented local part, a
///   backslash, NUL or userinfo in a URI's authority, a percent-encoded host, a directoryName
///   value RFC 4518 prohibits) cannot be shown to lie inside or outside a subtree, so it is
///   refused, with the parser's reason, wherever a constraint of its type exists.
/// - A wildcard dNSName is refused by an excluded subtree it could match (`*.example.com` under
///   `excluded: bar.example.com`), and permitted only if everything it can match is permitted.
/// - Constraints of types the engine cannot compare (otherName, x400Address, ediPartyName,
///   registeredID) refuse any certificate carrying a name of that type.
/// Every comparison is paid from the evaluation's ``BudgetMeter``.
struct NameConstraintChecker {
    let constraints: NameConstraints

    /// Validates the constraints themselves; nil when usable.
    ///
    /// Every type fails closed: a subtree the engine cannot read exactly (a malformed e-mail
    /// constraint such as `@example.com` or `a@b@example.com`, a DNS or URI host that is not a
    /// DNS name, an empty URI or rfc822Name base, a bad address mask) makes the CA unusable
    /// rather than constraining nothing. OpenSSL reads `@example.com` as the domain; Go refuses the
    /// CA — refusing is the only reading that cannot widen what the CA may issue.
    static func problem(with nc: NameConstraints) -> String? {
        if nc.hasMinimumOrMaximum { return "name constraints use minimum/maximum (RFC 5280: MUST NOT)" }
        for subtree in nc.permitted + nc.excluded {
            switch subtree {
            case .dnsName(let d):
                if !d.isEmpty && dnsBase(d) == nil { return "invalid dNSName constraint '\(d)'" }
            case .ipAddress(let bytes):
                guard bytes.count == 8 || bytes.count == 32 else { return "iPAddress constraint of \(bytes.count) bytes" }
                let mask = bytes[(bytes.count / 2)...]
                guard isContiguous(mask) else { return "iPAddress constraint with a non-contiguous mask" }
            case .rfc822Name(let e):
                if !isValidEmailConstraint(e) { return "invalid rfc822Name constraint '\(e)' (a mailbox, a host, or .domain)" }
            case .uniformResourceIdentifier(let u):
                if dnsBase(u) == nil { return "invalid URI constraint '\(u)' (a host or .domain)" }
            case .directoryName(let d):
                if d.normalized.hasUnpreparedValue {
                    return "directoryName constraint '\(d)' holds a code point RFC 4518 prohibits: it cannot be compared"
                }
            case .other:
                continue
            }
        }
        return nil
    }

    /// A DNS-style subtree base (dNSName or URI constraint): `host` (that name and, for dNSName,
    /// every name under it) or `.host` (only names strictly under it, as OpenSSL and many CAs
    /// write subdomain constraints). Nil when not a valid DNS name either way.
    static func dnsBase(_ base: String) -> (labels: [Substring], subdomainsOnly: Bool)? {
        let subdomainsOnly = base.hasPrefix(".")
        guard let labels = DNSName.labels(subdomainsOnly ? String(base.dropFirst()) : base) else { return nil }
        return (labels, subdomainsOnly)
    }

    /// An rfc822Name constraint (RFC 5280 §4.2.1.10): one mailbox `local@host` (as ``EmailAddress``
    /// reads it), every mailbox at `host`, or every mailbox under `.domain`. Every character of a
    /// local part is literal (`*` too); the host must be a DNS name; nothing else is a constraint.
    static func isValidEmailConstraint(_ e: String) -> Bool {
        guard e.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        if e.contains("@") { return EmailAddress(e) != nil }
        return dnsBase(e) != nil
    }

    private static func isContiguous(_ mask: ArraySlice<UInt8>) -> Bool {
        var seenZero = false
        for byte in mask {
            for bit in (0..<8).reversed() {
                let one = byte & (1 << UInt8(bit)) != 0
                if one && seenZero { return false }
                if !one { seenZero = true }
            }
        }
        return true
    }

    /// The names of `certificate` subject to constraints: its subjectAltNames, its subject (as a
    /// directoryName) and subject emailAddress attributes; for the leaf, also what its common
    /// name stands for (``CommonNameIdentity``: only when it has no subjectAltName, an IP-shaped
    /// CN as an iPAddress and a DNS-shaped one as a dNSName).
    static func names(of certificate: Certificate, isLeaf: Bool) -> [GeneralName] {
        var names = certificate.subjectAltNames
        if !certificate.subject.isEmpty { names.append(.directoryName(certificate.subject)) }
        for value in certificate.subject.values(of: AttributeOID.emailAddress) {
            names.append(.rfc822Name(value))
        }
        if isLeaf { names += CommonNameIdentity.names(of: certificate) }
        return names
    }

    /// Why one of `names` violates the constraints, or nil.
    func violation(in names: [GeneralName], meter: inout BudgetMeter) throws -> String? {
        try meter.spendComparisons(names.count * max(1, constraints.permitted.count + constraints.excluded.count))
        for name in names {
            let tag = name.tagNumber
            let permitted = constraints.permitted.filter { $0.tagNumber == tag }
            let excluded = constraints.excluded.filter { $0.tagNumber == tag }
            if case .other = name, !(permitted.isEmpty && excluded.isEmpty) {
                return "\(name) cannot be checked against the CA's constraints on that name type"
            }
            if !(permitted.isEmpty && excluded.isEmpty), let refusal = Self.refusal(of: name) {
                return "\(name) is refused: \(refusal), and the CA constrains \(Self.typeName(tag))s"
            }
            for subtree in excluded where try Self.excludes(subtree, name) {
                return "\(name) is inside the excluded subtree \(subtree)"
            }
            if case .ipAddress(let bytes) = name {
                let ipPermitted = constraints.permitted.compactMap { c -> [UInt8]? in
                    if case .ipAddress(let b) = c { return b }
                    return nil
                }
                if !ipPermitted.isEmpty && !ipPermitted.contains(where: { Self.ip(bytes, within: $0) }) {
                    return "\(name) is outside every permitted iPAddress subtree (of its family)"
                }
                continue
            }
            if !permitted.isEmpty, try !permitted.contains(where: { try Self.permits($0, name) }) {
                return "\(name) is outside every permitted \(Self.typeName(tag)) subtree"
            }
        }
        return nil
    }

    static func typeName(_ tag: UInt8) -> String {
        switch tag {
        case 1: return "rfc822Name"
        case 2: return "dNSName"
        case 4: return "directoryName"
        case 6: return "URI"
        case 7: return "iPAddress"
        default: return "name"
        }
    }

    /// Why the parser of `name`'s type does not accept it, or nil: a name it refuses is refused
    /// wherever a constraint of its type exists (fail closed).
    static func refusal(of name: GeneralName) -> String? {
        switch name {
        case .dnsName(let n):
            return DNSName.labels(n, allowWildcard: true) == nil
                ? "not a DNS name (letters, digits, hyphens, a wildcard only as the whole first label; no trailing dot)" : nil
        case .rfc822Name(let n):
            return EmailAddress.refusal(of: n).map { "not an RFC 5321 mailbox: \($0)" }
        case .uniformResourceIdentifier(let n):
            if case .failure(let refusal) = URIHost.parse(n) { return "not a URI with a host the RFC 3986 parser accepts: \(refusal)" }
            return nil
        case .directoryName(let n):
            return n.normalized.hasUnpreparedValue ? "a value holds a code point RFC 4518 prohibits (unassigned, private use…)" : nil
        default:
            return nil
        }
    }

    // MARK: Per-type comparisons

    /// Whether the permitted subtree `c` contains every name `name` can stand for.
    static func permits(_ c: GeneralName, _ name: GeneralName) throws -> Bool {
        switch (c, name) {
        case (.dnsName(let base), .dnsName(let n)):
            guard let labels = DNSName.labels(n, allowWildcard: true) else { return false }
            return dns(labels, within: base)
        case (.rfc822Name(let base), .rfc822Name(let n)):
            guard let address = EmailAddress(n) else { return false }
            return email(address, within: base)
        case (.uniformResourceIdentifier(let base), .uniformResourceIdentifier(let n)):
            guard case .success(let host) = URIHost.parse(n) else { return false }
            return uriHost(host, within: base)
        case (.directoryName(let base), .directoryName(let n)):
            return n.normalized.isWithin(base.normalized)
        default:
            return false
        }
    }

    /// Whether the excluded subtree `c` contains any name `name` can stand for. A name whose
    /// syntax is invalid is treated as excluded (fail closed).
    static func excludes(_ c: GeneralName, _ name: GeneralName) throws -> Bool {
        switch (c, name) {
        case (.dnsName(let base), .dnsName(let n)):
            guard let labels = DNSName.labels(n, allowWildcard: true) else { return true }
            if dns(labels, within: base) { return true }
            // `*.example.com` can stand for `bar.example.com`, which `bar.example.com` excludes
            // (and `.bar.example.com` excludes what `*.x.bar.example.com` stands for, already
            // inside it by suffix).
            if labels.first == "*", let (b, subdomainsOnly) = dnsBase(base), !subdomainsOnly, b.count == labels.count,
               b.dropFirst().elementsEqual(labels.dropFirst()) {
                return true
            }
            return false
        case (.ipAddress(let base), .ipAddress(let bytes)):
            return ip(bytes, within: base)
        case (.rfc822Name(let base), .rfc822Name(let n)):
            guard let address = EmailAddress(n) else { return true }
            return email(address, within: base)
        case (.uniformResourceIdentifier(let base), .uniformResourceIdentifier(let n)):
            guard case .success(let host) = URIHost.parse(n) else { return true }
            return uriHost(host, within: base)
        case (.directoryName(let base), .directoryName(let n)):
            return n.normalized.isWithin(base.normalized)
        default:
            return false
        }
    }

    /// dNSName subtree: `example.com` holds `example.com` and every name under it, `.example.com`
    /// only the names under it (a wildcard label counts as one more label). An empty constraint
    /// holds every name.
    static func dns(_ labels: [Substring], within base: String) -> Bool {
        if base.isEmpty { return true }
        guard let (b, subdomainsOnly) = dnsBase(base), b.count <= labels.count else { return false }
        if subdomainsOnly && b.count == labels.count { return false }
        return labels.suffix(b.count).elementsEqual(b)
    }

    static func ip(_ address: [UInt8], within constraint: [UInt8]) -> Bool {
        guard constraint.count == address.count * 2 else { return false }
        let n = address.count
        for i in 0..<n where address[i] & constraint[n + i] != constraint[i] & constraint[n + i] {
            return false
        }
        return true
    }

    /// rfc822Name subtree (RFC 5280): `user@host` one mailbox; `host` every mailbox at that host;
    /// `.host` every mailbox at any host under it. Domains compare case-insensitively, local parts exactly.
    static func email(_ address: EmailAddress, within base: String) -> Bool {
        if base.contains("@") {
            guard let b = EmailAddress(base) else { return false }
            return b == address
        }
        guard let (b, subdomainsOnly) = dnsBase(base), let d = DNSName.labels(address.domain) else { return false }
        if subdomainsOnly { return d.count > b.count && d.suffix(b.count).elementsEqual(b) }
        return d == b
    }

    /// URI subtree: `host` that exact host; `.host` any host under it.
    static func uriHost(_ host: URIHost, within base: String) -> Bool {
        guard let (b, subdomainsOnly) = dnsBase(base) else { return false }
        let h = host.labels
        if subdomainsOnly { return h.count > b.count && h.suffix(b.count).elementsEqual(b) }
        return h == b
    }
}
