/// `DistributionPointName` (RFC 5280 §4.2.1.13): a distribution point named in full, or by one
/// relative distinguished name to be appended to the CRL issuer's name.
///
/// A relative name has no meaning on its own: RFC 5280 §5.2.5 and §6.3.3 (b)(2)(i) compare the
/// full name it makes with its issuer (``names(relativeTo:)``). Reading it as "no name" would let
/// a CRL for one partition answer for a certificate of another.
public enum DistributionPointName: Sendable, Hashable, CustomStringConvertible {
    /// `fullName [0] GeneralNames`.
    case fullName([GeneralName])
    /// `nameRelativeToCRLIssuer [1] RelativeDistinguishedName`: the DER of the RDN's SET.
    case relativeToCRLIssuer(rdnDER: [UInt8])

    /// The names this point stands for when `issuer` issues its CRL: the full names as they are,
    /// or `issuer` with the relative name appended, as a directoryName. Nil when the combined name
    /// cannot be read (then nothing matches it).
    public func names(relativeTo issuer: DistinguishedName) -> [GeneralName] {
        switch self {
        case .fullName(let names):
            return names
        case .relativeToCRLIssuer(let rdn):
            guard let full = Self.append(rdn, to: issuer) else { return [] }
            return [.directoryName(full)]
        }
    }

    /// `issuer` + `rdn`, as one Name.
    static func append(_ rdn: [UInt8], to issuer: DistinguishedName) -> DistinguishedName? {
        let outer = issuer.derEncoded
        var reader = DERReader(outer)
        guard let node = try? reader.readAny() else { return nil }
        return try? DistinguishedName(derEncoded: DERWriter.element(DERTag.sequence, Array(outer[node.contents]) + rdn))
    }

    public var description: String {
        switch self {
        case .fullName(let names): names.map(\.description).joined(separator: ", ")
        case .relativeToCRLIssuer(let rdn): "relative to the CRL issuer: \(rdn.hexString())"
        }
    }

    /// Reads the `[0] EXPLICIT DistributionPointName` wrapper's content.
    static func read(_ der: [UInt8], _ explicit: DERNode) throws -> DistributionPointName {
        var n = DERReader(der, contentsOf: explicit)
        let choice = try n.readAny()
        guard n.isAtEnd else { throw DERError(description: "extra bytes in DistributionPointName") }
        switch choice.identifier {
        case DERTag.contextSpecific(0, constructed: true):
            let names = try GeneralName.parseSequence(der, choice)
            guard !names.isEmpty else { throw DERError(description: "empty fullName") }
            return .fullName(names)
        case DERTag.contextSpecific(1, constructed: true):
            // [1] IMPLICIT RelativeDistinguishedName: the SET's contents, re-tagged as a SET and
            // checked by reading it as part of a Name.
            let rdn = DERWriter.element(DERTag.set, Array(der[choice.contents]))
            guard !choice.contents.isEmpty,
                  (try? DistinguishedName(derEncoded: DERWriter.element(DERTag.sequence, rdn))) != nil else {
                throw DERError(description: "malformed nameRelativeToCRLIssuer")
            }
            return .relativeToCRLIssuer(rdnDER: rdn)
        default:
            throw DERError(description: "unknown DistributionPointName")
        }
    }
}

/// `ReasonFlags` (RFC 5280 §4.2.1.13): the revocation reasons a distribution point or a CRL
/// partitioned by reason covers. Bit n of the BIT STRING is `1 << n`.
public struct ReasonFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let unused = ReasonFlags(rawValue: 1 << 0)
    public static let keyCompromise = ReasonFlags(rawValue: 1 << 1)
    public static let cACompromise = ReasonFlags(rawValue: 1 << 2)
    public static let affiliationChanged = ReasonFlags(rawValue: 1 << 3)
    public static let superseded = ReasonFlags(rawValue: 1 << 4)
    public static let cessationOfOperation = ReasonFlags(rawValue: 1 << 5)
    public static let certificateHold = ReasonFlags(rawValue: 1 << 6)
    public static let privilegeWithdrawn = ReasonFlags(rawValue: 1 << 7)
    public static let aACompromise = ReasonFlags(rawValue: 1 << 8)

    /// RFC 5280 §6.3.3's `all-reasons`: every reason flag but `unused`, as OpenSSL counts them.
    public static let allReasons = ReasonFlags(rawValue: 0b1_1111_1110)

    public var description: String {
        let names = ["unused", "keyCompromise", "cACompromise", "affiliationChanged", "superseded", "cessationOfOperation",
                     "certificateHold", "privilegeWithdrawn", "aACompromise"]
        let set = names.indices.filter { rawValue & (1 << $0) != 0 }.map { names[$0] }
        return set.isEmpty ? "no reasons" : set.joined(separator: ", ")
    }

    /// Reads the BIT STRING's contents (`[n] IMPLICIT ReasonFlags`): a bit beyond aACompromise,
    /// or a malformed unused-bits count, is malformed.
    static func read(_ der: [UInt8], _ node: DERNode) throws -> ReasonFlags {
        let bytes = Array(der[node.contents])
        guard let unusedBits = bytes.first, unusedBits < 8, bytes.count >= 1 else { throw DERError(description: "malformed ReasonFlags") }
        guard bytes.count > 1 || unusedBits == 0 else { throw DERError(description: "malformed ReasonFlags") }
        var flags: UInt16 = 0
        for (byteIndex, byte) in bytes.dropFirst().enumerated() {
            for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                let n = byteIndex * 8 + bit
                guard n <= 8 else { throw DERError(description: "ReasonFlags asserts an unknown reason bit \(n)") }
                flags |= 1 << n
            }
        }
        return ReasonFlags(rawValue: flags)
    }
}

/// The value of a DER INTEGER's content octets, written minimally: leading `00` (before a byte
/// below 0x80) and `FF` (before a byte from 0x80) carry no value. Serial numbers are compared as
/// INTEGER values (RFC 5280 §5.1.2.6), so `00 10 02` names the certificate whose serial is
/// `10 02`: a non-minimal encoding can never hide an entry.
enum IntegerValue {
    static func minimal(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        while start + 1 < bytes.count {
            let (b, next) = (bytes[start], bytes[start + 1])
            guard (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) else { break }
            start += 1
        }
        return start == 0 ? bytes : Array(bytes[start...])
    }

    /// Compares two non-negative INTEGERs given as content octets.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let (x, y) = (minimal(a), minimal(b))
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return 0
    }
}

extension GeneralName {
    /// Whether two names are the same for revocation (RFC 5280 §6.3.3 (b)): directoryNames
    /// compared as §7.1 says, every other form exactly.
    func isSameName(as other: GeneralName) -> Bool {
        if case .directoryName(let a) = self, case .directoryName(let b) = other { return a.normalized == b.normalized }
        return self == other
    }
}

extension Array where Element == GeneralName {
    /// Whether any name here is the same as any name in `other`.
    func sharesName(with other: [GeneralName]) -> Bool {
        contains { a in other.contains { a.isSameName(as: $0) } }
    }
}
