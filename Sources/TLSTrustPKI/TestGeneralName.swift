import Foundation

/// One `GeneralName` (RFC 5280 §4.2.1.6) to write, as it appears in a subjectAltName or as the base
/// of a name-constraint subtree, byte for byte. (The core's `GeneralName` is what a parser read;
/// this is what a test asks to be written, unchecked.)
///
/// The text cases write the string's UTF-8 as is, without checking that it is IA5 (ASCII): a
/// dNSName with U+212A KELVIN SIGN, a trailing dot, an empty label or a NUL is exactly the input
/// a host-name or name-constraint check must survive. The `…Bytes` cases take any bytes at all.
public enum TestGeneralName: Sendable, Hashable {
    /// `[0] otherName`: a type OID and the DER of its `[0] EXPLICIT` value (e.g. a UPN or an
    /// SmtpUTF8Mailbox); validators that do not understand it must neither match nor crash on it.
    case otherName(typeID: String, valueDER: [UInt8])
    /// `[1] rfc822Name`: an e-mail address, or in a constraint `example.com` / `.example.com` / a mailbox.
    case rfc822Name(String)
    /// `[2] dNSName`, the UTF-8 of the string written as is.
    case dnsName(String)
    /// `[2] dNSName` with arbitrary contents octets.
    case dnsNameBytes([UInt8])
    /// `[4] directoryName` (EXPLICIT, since Name is a CHOICE).
    case directoryName(TestName)
    /// `[6] uniformResourceIdentifier`; in a constraint, a host (`example.com`) or domain (`.example.com`).
    case uri(String)
    /// `[7] iPAddress` in text form. In a subjectAltName: an address (`192.0.2.1`, `2001:db8::1`,
    /// `::ffff:192.0.2.1` is 16 bytes). In a name constraint: a CIDR block (`10.0.0.0/8`,
    /// `2001:db8::/32`), written as address followed by mask (8 or 32 bytes).
    case ipAddress(String)
    /// `[7] iPAddress` with contents of any length (5 bytes, 0 bytes, 17 bytes…).
    case ipAddressBytes([UInt8])
    /// `[8] registeredID`.
    case registeredID(String)
    /// A complete GeneralName TLV, written as given.
    case encoded([UInt8])

    /// The GeneralName's DER (its context-specific tag included).
    public var der: [UInt8] {
        switch self {
        case .otherName(let typeID, let valueDER):
            DER.contextSpecific(0, constructed: true,
                                DER.objectIdentifier(typeID) + DER.contextSpecific(0, constructed: true, valueDER))
        case .rfc822Name(let text): DER.contextSpecific(1, constructed: false, Array(text.utf8))
        case .dnsName(let text): DER.contextSpecific(2, constructed: false, Array(text.utf8))
        case .dnsNameBytes(let bytes): DER.contextSpecific(2, constructed: false, bytes)
        case .directoryName(let name): DER.contextSpecific(4, constructed: true, name.der)
        case .uri(let text): DER.contextSpecific(6, constructed: false, Array(text.utf8))
        case .ipAddress(let text): DER.contextSpecific(7, constructed: false, Self.ipBytes(text))
        case .ipAddressBytes(let bytes): DER.contextSpecific(7, constructed: false, bytes)
        case .registeredID(let oid): DER.contextSpecific(8, constructed: false, Array(DER.objectIdentifier(oid).dropFirst(2)))
        case .encoded(let bytes): bytes
        }
    }

    /// An IPv4 or IPv6 address (4 or 16 bytes), or a CIDR block `address/prefix` as address
    /// followed by its mask (8 or 32 bytes), the name-constraint form of RFC 5280 §4.2.1.10.
    ///
    /// Parsed with `inet_pton`, not with the library under test.
    public static func ipBytes(_ text: String) -> [UInt8] {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        let address = parts[0]
        var bytes: [UInt8]
        if address.contains(":") {
            var raw = in6_addr()
            precondition(inet_pton(AF_INET6, address, &raw) == 1, "not an IPv6 address: \(address)")
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        } else {
            var raw = in_addr()
            precondition(inet_pton(AF_INET, address, &raw) == 1, "not an IPv4 address: \(address)")
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        }
        guard parts.count == 2 else { return bytes }
        let prefix = Int(parts[1])!
        precondition((0...bytes.count * 8).contains(prefix), "prefix /\(prefix) too long for \(address)")
        let mask = (0..<bytes.count).map { index -> UInt8 in
            let bits = min(max(prefix - index * 8, 0), 8)
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
        return bytes + mask
    }
}

/// The nameConstraints extension (RFC 5280 §4.2.1.10) to write: subtrees a CA's descendants must fall
/// within (permitted) or outside of (excluded), for any mix of GeneralName types.
///
/// RFC 5280 requires it to be critical; `isCritical: false` mints the non-conforming variant
/// that lets an old validator silently ignore the constraint.
public struct TestNameConstraints: Sendable, Hashable {
    public var permitted: [TestGeneralName]
    public var excluded: [TestGeneralName]
    public var isCritical: Bool

    public init(permitted: [TestGeneralName] = [], excluded: [TestGeneralName] = [], isCritical: Bool = true) {
        self.permitted = permitted
        self.excluded = excluded
        self.isCritical = isCritical
    }

    /// True when there is no subtree at all (the extension is then not written).
    public var isEmpty: Bool { permitted.isEmpty && excluded.isEmpty }

    /// The extension value: `NameConstraints ::= SEQUENCE { permittedSubtrees [0], excludedSubtrees [1] }`,
    /// each a sequence of `GeneralSubtree { base }` (minimum 0 and no maximum, the only form RFC 5280 allows).
    public var der: [UInt8] {
        func subtrees(_ number: UInt8, _ names: [TestGeneralName]) -> [UInt8] {
            names.isEmpty ? [] : DER.contextSpecific(number, constructed: true, names.flatMap { DER.sequence([$0.der]) })
        }
        return DER.sequence([subtrees(0, permitted), subtrees(1, excluded)])
    }

    /// As a raw extension, for `CertificateProfile.extensions`.
    public var rawExtension: RawExtension {
        RawExtension(oid: RawExtension.OID.nameConstraints, isCritical: isCritical, valueDER: der)
    }
}
