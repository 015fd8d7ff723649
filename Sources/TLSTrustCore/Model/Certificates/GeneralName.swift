/// One GeneralName (RFC 5280 §4.2.1.6), as found in subjectAltName and in name constraints.
///
/// Text forms are decoded from the IA5String bytes as UTF-8; a name that is not ASCII is kept
/// (so the engine can refuse it) rather than rejected at parse time.
public enum GeneralName: Sendable, Hashable, CustomStringConvertible {
    case dnsName(String)
    case ipAddress([UInt8])
    case rfc822Name(String)
    case uniformResourceIdentifier(String)
    case directoryName(DistinguishedName)
    /// otherName, x400Address, ediPartyName or registeredID: kept by tag only. The engine cannot
    /// compare them, so a constraint on such a type refuses any certificate that carries one.
    case other(tag: UInt8)

    /// The context tag number (0–8) of this form.
    public var tagNumber: UInt8 {
        switch self {
        case .dnsName: return 2
        case .ipAddress: return 7
        case .rfc822Name: return 1
        case .uniformResourceIdentifier: return 6
        case .directoryName: return 4
        case .other(let tag): return tag
        }
    }

    public var description: String {
        switch self {
        case .dnsName(let s): return "DNS:\(s)"
        case .ipAddress(let b): return "IP:\(IPAddress(bytes: b)?.description ?? b.hexString())"
        case .rfc822Name(let s): return "email:\(s)"
        case .uniformResourceIdentifier(let s): return "URI:\(s)"
        case .directoryName(let n): return "DirName:\(n)"
        case .other(let tag): return "othername(tag \(tag))"
        }
    }

    /// Reads one GeneralName element.
    static func parse(_ der: [UInt8], _ node: DERNode) throws -> GeneralName {
        func text() -> String { String(decoding: der[node.contents], as: UTF8.self) }
        switch node.identifier {
        case 0x81: return .rfc822Name(text())
        case 0x82: return .dnsName(text())
        case 0x86: return .uniformResourceIdentifier(text())
        case 0x87: return .ipAddress(Array(der[node.contents]))
        case 0xA4:
            var r = DERReader(der, contentsOf: node)
            let name = try DistinguishedName(bytes: der, node: try r.read(DERTag.sequence, "directoryName Name"))
            guard r.isAtEnd else { throw DERError(description: "trailing data in directoryName") }
            return .directoryName(name)
        case 0xA0, 0xA3, 0xA5, 0x88, 0xA1, 0xA2:
            return .other(tag: node.identifier & 0x1F)
        default:
            throw DERError(description: "unknown GeneralName tag 0x\(String(node.identifier, radix: 16))")
        }
    }

    /// Reads a `GeneralNames` SEQUENCE.
    static func parseSequence(_ der: [UInt8], _ node: DERNode) throws -> [GeneralName] {
        var r = DERReader(der, contentsOf: node)
        var names: [GeneralName] = []
        while !r.isAtEnd { names.append(try parse(der, try r.readAny())) }
        return names
    }
}

/// The nameConstraints extension (RFC 5280 §4.2.1.10).
public struct NameConstraints: Sendable, Hashable {
    public var permitted: [GeneralName] = []
    public var excluded: [GeneralName] = []
    /// A subtree with `minimum` other than 0 or any `maximum` (RFC 5280: MUST NOT be used).
    public var hasMinimumOrMaximum = false

    /// Reads `NameConstraints ::= SEQUENCE { permittedSubtrees [0], excludedSubtrees [1] }`.
    static func parse(_ der: [UInt8], _ node: DERNode) throws -> NameConstraints {
        var nc = NameConstraints()
        var r = DERReader(der, contentsOf: node)
        func subtrees(_ node: DERNode) throws -> [GeneralName] {
            var s = DERReader(der, contentsOf: node)
            var names: [GeneralName] = []
            while !s.isAtEnd {
                let subtree = try s.read(DERTag.sequence, "GeneralSubtree")
                var f = DERReader(der, contentsOf: subtree)
                names.append(try GeneralName.parse(der, try f.readAny()))
                if let min = try f.readOptional(DERTag.contextSpecific(0, constructed: false)) {
                    // DER omits the default 0, so any encoded minimum is a non-default value.
                    _ = min
                    nc.hasMinimumOrMaximum = true
                }
                if try f.readOptional(DERTag.contextSpecific(1, constructed: false)) != nil { nc.hasMinimumOrMaximum = true }
                guard f.isAtEnd else { throw DERError(description: "trailing data in GeneralSubtree") }
            }
            guard !names.isEmpty else { throw DERError(description: "empty GeneralSubtrees") }
            return names
        }
        if let p = try r.readOptional(DERTag.contextSpecific(0, constructed: true)) { nc.permitted = try subtrees(p) }
        if let e = try r.readOptional(DERTag.contextSpecific(1, constructed: true)) { nc.excluded = try subtrees(e) }
        guard r.isAtEnd else { throw DERError(description: "trailing data in NameConstraints") }
        guard !nc.permitted.isEmpty || !nc.excluded.isEmpty else {
            throw DERError(description: "NameConstraints with neither permitted nor excluded subtrees")
        }
        return nc
    }
}

/// The authorityKeyIdentifier extension (RFC 5280 §4.2.1.1).
public struct AuthorityKeyIdentifier: Sendable, Hashable {
    public var keyIdentifier: [UInt8]?
    /// Whether authorityCertIssuer / authorityCertSerialNumber are present (CA/B Forum: MUST NOT).
    public var hasIssuerAndSerial: Bool

    static func parse(_ der: [UInt8], _ node: DERNode) throws -> AuthorityKeyIdentifier {
        var r = DERReader(der, contentsOf: node)
        var aki = AuthorityKeyIdentifier(keyIdentifier: nil, hasIssuerAndSerial: false)
        if let k = try r.readOptional(DERTag.contextSpecific(0, constructed: false)) { aki.keyIdentifier = Array(der[k.contents]) }
        if try r.readOptional(DERTag.contextSpecific(1, constructed: true)) != nil { aki.hasIssuerAndSerial = true }
        if try r.readOptional(DERTag.contextSpecific(2, constructed: false)) != nil { aki.hasIssuerAndSerial = true }
        guard r.isAtEnd else { throw DERError(description: "trailing data in AuthorityKeyIdentifier") }
        return aki
    }
}
