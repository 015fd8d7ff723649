/// An X.501 distinguished name (a certificate's subject or issuer).
///
/// Keeps the exact DER of the name, so that comparisons (is this certificate self-issued? does
/// this issuer name match that subject?) are byte comparisons, as RFC 5280 path building does
/// in practice, and offers a readable one-line summary for people.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// One attribute of a relative distinguished name, such as `CN=www.example.com`.
    public struct Attribute: Sendable, Hashable {
        /// The attribute type as a dotted OID, e.g. `2.5.4.3` for commonName.
        public let oid: String
        /// The attribute value decoded as text.
        public let value: String

        /// The conventional short name (`CN`, `O`, `OU`, `C`, …) or the dotted OID.
        public var shortName: String { Self.shortNames[oid] ?? oid }

        static let shortNames: [String: String] = [
            "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
            "2.5.4.11": "OU", "2.5.4.5": "serialNumber", "2.5.4.4": "SN", "2.5.4.42": "GN",
            "2.5.4.9": "street", "2.5.4.17": "postalCode", "2.5.4.12": "title",
            "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
            "1.2.840.113549.1.9.1": "emailAddress",
        ]
    }

    /// The bytes the name was read from (the whole certificate, shared, not copied per name) and
    /// where in them the `Name` lies.
    private let source: [UInt8]
    private let range: Range<Int>

    /// The DER of the whole `Name`.
    var encoded: ArraySlice<UInt8> { source[range] }
    /// The name as RFC 5280 §7.1 compares it (see ``NormalizedName``).
    public let normalized: NormalizedName

    /// The DER encoding of the whole `Name`.
    public var derEncoded: [UInt8] { Array(encoded) }

    /// The attributes in encoded order (most significant first, as certificates store them).
    ///
    /// Decoded on each use from the DER, which the initializer has already read in full and
    /// refused if any value was malformed: evaluations compare names in their normalized form and
    /// never need these strings, so a parse does not build them.
    public var attributes: [Attribute] {
        (try? readAttributes(where: { _ in true })) ?? []
    }

    /// True for a name with no attributes (an empty SEQUENCE).
    public var isEmpty: Bool { normalized.isEmpty }

    /// The first commonName attribute, if any.
    public var commonName: String? { commonNames.first }

    /// Every commonName attribute's value, in encoded order.
    var commonNames: [String] { values(of: AttributeOID.commonName) }

    /// The values of the attributes of type `oid` (dotted), in encoded order, decoding no other.
    func values(of oid: String) -> [String] {
        ((try? readAttributes(where: { $0 == oid })) ?? []).map(\.value)
    }

    /// `CN=…, O=…` in encoded order.
    public var description: String {
        attributes.map { "\($0.shortName)=\($0.value)" }.joined(separator: ", ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { sameBytes(lhs.encoded, rhs.encoded) }
    public func hash(into hasher: inout Hasher) {
        encoded.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Parses a DER-encoded X.501 `Name`, such as the CA names a TLS server sends with its
    /// certificate request.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` when the bytes are not exactly one `Name`.
    public init(derEncoded: [UInt8]) throws {
        do {
            var reader = DERReader(derEncoded)
            let node = try reader.readAny()
            guard reader.isAtEnd else { throw DERError(description: "trailing bytes after the Name") }
            try self.init(bytes: derEncoded, node: node)
        } catch let error as TLSTrustError {
            throw error
        } catch {
            throw TLSTrustError(.malformedCertificate, "malformed distinguished name: \(error)")
        }
    }

    /// Reads the `Name` at `node`: every attribute type and value is checked (a malformed one
    /// makes the whole name malformed) and folded into ``normalized``; no strings are kept.
    init(bytes: [UInt8], node: DERNode) throws {
        guard node.identifier == DERTag.sequence else { throw DERError(description: "Name is not a SEQUENCE") }
        source = bytes
        range = node.encoded
        normalized = try NormalizedName(bytes: bytes, node: node)
    }

    /// The attributes whose dotted type satisfies `include`, decoded.
    private func readAttributes(where include: (String) -> Bool) throws -> [Attribute] {
        let bytes = source
        var outer = DERReader(bytes, range: range)
        let name = try outer.read(DERTag.sequence, "Name")
        var out: [Attribute] = []
        var rdns = DERReader(bytes, contentsOf: name)
        while !rdns.isAtEnd {
            var atvs = DERReader(bytes, contentsOf: try rdns.read(DERTag.set, "RelativeDistinguishedName"))
            while !atvs.isAtEnd {
                var fields = DERReader(bytes, contentsOf: try atvs.read(DERTag.sequence, "AttributeTypeAndValue"))
                let oid = try fields.read(DERTag.objectIdentifier, "attribute type").objectIdentifier(in: bytes)
                let valueNode = try fields.readAny()
                if include(oid) { out.append(Attribute(oid: oid, value: try Self.decodeString(bytes, valueNode))) }
            }
        }
        return out
    }

    /// Decodes an attribute value exactly, or refuses it.
    ///
    /// Names are compared after decoding (``NormalizedName``), so a lossy decoding would let two
    /// different DER names compare equal — in issuer matching and, worse, in directoryName
    /// constraints. So nothing is approximated: a UTF8String that is not valid UTF-8, a BMPString
    /// of odd length or with an unpaired surrogate, a UniversalString that is not whole valid
    /// scalars, a PrintableString, NumericString, VisibleString or IA5String with a character its
    /// type does not allow — each makes the name malformed, as in Go's parser. PrintableString
    /// admits `*` and `&` as Go does (CAs put them there). TeletexString is read as ISO 8859-1,
    /// byte for character, which is exact and one-to-one. Any other type is kept as `#hex` and
    /// compared byte for byte.
    static func decodeString(_ bytes: [UInt8], _ node: DERNode) throws -> String {
        let slice = bytes[node.contents]
        switch node.identifier {
        case DERTag.utf8String:
            guard let text = String(validating: slice, as: UTF8.self) else { throw DERError(description: "UTF8String that is not valid UTF-8") }
            return text
        case DERTag.printableString, DERTag.numericString, DERTag.visibleString, DERTag.ia5String:
            try checkCharacters(bytes, node)
            return String(decoding: slice, as: UTF8.self)
        case DERTag.teletexString:
            return String(slice.map { Character(Unicode.Scalar($0)) })
        case DERTag.bmpString:
            guard slice.count % 2 == 0 else { throw DERError(description: "BMPString of odd length") }
            var units: [UInt16] = []
            units.reserveCapacity(slice.count / 2)
            var it = slice.makeIterator()
            while let hi = it.next(), let lo = it.next() { units.append(UInt16(hi) << 8 | UInt16(lo)) }
            guard let text = String(validating: units, as: UTF16.self) else { throw DERError(description: "BMPString with an unpaired surrogate") }
            return text
        case DERTag.universalString:
            guard slice.count % 4 == 0 else { throw DERError(description: "UniversalString that is not whole 4-byte characters") }
            var scalars = String.UnicodeScalarView()
            var i = slice.startIndex
            while i < slice.endIndex {
                let v = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                guard let scalar = Unicode.Scalar(v) else { throw DERError(description: "UniversalString with an invalid character") }
                scalars.append(scalar)
                i += 4
            }
            return String(scalars)
        default:
            return "#" + slice.map { String(format2: $0) }.joined()
        }
    }

    /// Refuses a PrintableString, NumericString, VisibleString or IA5String with a character its
    /// type does not allow; other types pass (their decoding checks them).
    static func checkCharacters(_ bytes: [UInt8], _ node: DERNode) throws {
        let slice = bytes[node.contents]
        func check(_ allowed: (UInt8) -> Bool, _ type: String) throws {
            guard slice.allSatisfy(allowed) else { throw DERError(description: "\(type) with a character its type does not allow") }
        }
        switch node.identifier {
        case DERTag.printableString: try check(isPrintableStringCharacter, "PrintableString")
        case DERTag.numericString: try check({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x20 }, "NumericString")
        case DERTag.visibleString: try check({ $0 >= 0x20 && $0 <= 0x7E }, "VisibleString")
        case DERTag.ia5String: try check({ $0 < 0x80 }, "IA5String")
        default: return
        }
    }

    /// X.680 PrintableString: letters, digits, space and `'()+,-./:=?`, plus `*` and `&`, which
    /// CAs use there and Go's parser accepts.
    private static func isPrintableStringCharacter(_ b: UInt8) -> Bool {
        switch b {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x20, 0x27...0x29, 0x2B...0x2F, 0x3A, 0x3D, 0x3F, 0x2A, 0x26: return true
        default: return false
        }
    }
}

extension String {
    /// Two lowercase hex digits, without Foundation.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self.init([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hex, optionally separated (`ab:cd:…`).
    package func hexString(separator: String = "") -> String {
        map { String(format2: $0) }.joined(separator: separator)
    }
}
