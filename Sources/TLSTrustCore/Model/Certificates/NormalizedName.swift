import Foundation

/// A distinguished name in the form RFC 5280 §7.1 compares names: attribute by attribute,
/// each relative distinguished name as a set, string values prepared by RFC 4518
/// (`DirectoryStringPreparation`: characters mapped to nothing or to space, case folding,
/// NFKC, insignificant spaces), and the string type ignored between the directory-string types
/// (PrintableString, UTF8String, TeletexString, BMPString, UniversalString), IA5String,
/// VisibleString and NumericString. Values are decoded exactly or the name is refused
/// (``DistinguishedName``), so two different values never fold together by a lossy decoding.
///
/// Why: an issuer written as `UTF8String "Example CA"` names the same CA as a subject written as
/// `PrintableString "EXAMPLE  CA"`. Path building matches issuers to subjects in this form, CRL
/// and OCSP issuers are matched in it, and directoryName name constraints compare in it, so that
/// an excluded name cannot be escaped by re-encoding it (other type, other case, doubled spaces,
/// a soft hyphen, fullwidth letters, `ß` for `ss`). This is the only place names are compared.
public struct NormalizedName: Sendable, Hashable {
    /// The comparable form as one byte string: for each RDN in order, its value count, then each
    /// value (sorted by these bytes when an RDN has several) as the attribute type's DER contents
    /// and its text, each with a 4-byte length. For a string value the text is a 0 byte and the
    /// prepared UTF-8 (``DirectoryStringPreparation``); for a string value RFC 4518 prohibits (an
    /// unassigned or private-use code point…), a 2 byte and its exact UTF-8, equal only to the
    /// same text; for any other type, a 1 byte, the tag and the contents, compared exactly. The encoding delimits itself,
    /// so one name's bytes being a prefix of another's is exactly its RDNs being a prefix.
    ///
    /// Why bytes: names are normalized on every parse and compared on every issuer lookup, and
    /// one buffer with its hash computed once costs a fraction of arrays of strings.
    let key: [UInt8]
    /// How many RDNs the name has.
    let rdnCount: Int
    /// Whether a string value has no RFC 4518 prepared form (a prohibited code point): such a
    /// value is equal only to the same text, and directoryName constraints refuse to judge it.
    let hasUnpreparedValue: Bool
    /// The hash of `key`, computed once: names are hashed on every issuer lookup.
    private let cachedHash: Int

    /// Reads and checks the `Name` SEQUENCE at `node` of `bytes`.
    init(bytes: [UInt8], node: DERNode) throws {
        var key: [UInt8] = []
        key.reserveCapacity(node.contents.count * 2)
        var count = 0
        var unprepared = false
        var rdns = DERReader(bytes, contentsOf: node)
        while !rdns.isAtEnd {
            let rdn = try rdns.read(DERTag.set, "RelativeDistinguishedName")
            var atvs = DERReader(bytes, contentsOf: rdn)
            guard !atvs.isAtEnd else { throw DERError(description: "empty RelativeDistinguishedName") }
            let countAt = key.count
            Self.appendLength(0, to: &key)
            var values = 0
            while !atvs.isAtEnd {
                if try !Self.appendValue(bytes, try atvs.read(DERTag.sequence, "AttributeTypeAndValue"), to: &key) {
                    unprepared = true
                }
                values += 1
            }
            Self.setLength(values, at: countAt, in: &key)
            // An RDN is a set: its values in one canonical order. Nearly every RDN has one.
            if values > 1 { Self.sortValues(of: &key, from: countAt + 4) }
            count += 1
        }
        self.init(key: key, rdnCount: count, hasUnpreparedValue: unprepared)
    }

    private init(key: [UInt8], rdnCount: Int, hasUnpreparedValue: Bool) {
        self.key = key
        self.rdnCount = rdnCount
        self.hasUnpreparedValue = hasUnpreparedValue
        var hasher = Hasher()
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
        cachedHash = hasher.finalize()
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.cachedHash == rhs.cachedHash && sameBytes(lhs.key[...], rhs.key[...]) }
    public func hash(into hasher: inout Hasher) { hasher.combine(cachedHash) }

    /// True when the name has no attributes.
    var isEmpty: Bool { rdnCount == 0 }

    /// Whether `self` lies within the subtree `base` (RFC 5280 §4.2.1.10 directoryName: `base`'s
    /// RDNs are a prefix of `self`'s).
    func isWithin(_ base: NormalizedName) -> Bool {
        base.rdnCount <= rdnCount && base.key.count <= key.count && sameBytes(key[..<base.key.count], base.key[...])
    }

    /// Appends one AttributeTypeAndValue: the type checked, the value checked and prepared.
    /// False when a string value has no prepared form (appended exactly).
    private static func appendValue(_ bytes: [UInt8], _ atv: DERNode, to key: inout [UInt8]) throws -> Bool {
        var fields = DERReader(bytes, contentsOf: atv)
        let type = try fields.read(DERTag.objectIdentifier, "attribute type")
        try type.checkObjectIdentifier(in: bytes)
        let value = try fields.readAny()
        guard fields.isAtEnd else { throw DERError(description: "extra data in AttributeTypeAndValue") }
        appendLength(type.contents.count, to: &key)
        key.append(contentsOf: bytes[type.contents])
        let lengthAt = key.count
        appendLength(0, to: &key)
        var prepared = true
        if Value.isStringType(value.identifier) {
            prepared = try Value.appendFolded(bytes, value, to: &key)
        } else {
            key.append(1)
            key.append(value.identifier)
            key.append(contentsOf: bytes[value.contents])
        }
        setLength(key.count - lengthAt - 4, at: lengthAt, in: &key)
        return prepared
    }

    /// Sorts the values written from `start` to the end of `key` by their bytes.
    private static func sortValues(of key: inout [UInt8], from start: Int) {
        func length(at i: Int) -> Int {
            Int(key[i]) << 24 | Int(key[i + 1]) << 16 | Int(key[i + 2]) << 8 | Int(key[i + 3])
        }
        var chunks: [ArraySlice<UInt8>] = []
        var i = start
        while i < key.count {
            let textAt = i + 4 + length(at: i)
            let end = textAt + 4 + length(at: textAt)
            chunks.append(key[i..<end])
            i = end
        }
        let sorted = Array(chunks.sorted { $0.lexicographicallyPrecedes($1) }.joined())
        key.replaceSubrange(start..<key.count, with: sorted)
    }

    private static func appendLength(_ length: Int, to key: inout [UInt8]) {
        key.append(UInt8(truncatingIfNeeded: length >> 24))
        key.append(UInt8(truncatingIfNeeded: length >> 16))
        key.append(UInt8(truncatingIfNeeded: length >> 8))
        key.append(UInt8(truncatingIfNeeded: length))
    }

    private static func setLength(_ length: Int, at index: Int, in key: inout [UInt8]) {
        key[index] = UInt8(truncatingIfNeeded: length >> 24)
        key[index + 1] = UInt8(truncatingIfNeeded: length >> 16)
        key[index + 2] = UInt8(truncatingIfNeeded: length >> 8)
        key[index + 3] = UInt8(truncatingIfNeeded: length)
    }

    /// The folding of attribute values.
    enum Value {
        /// The directory-string types, IA5String, VisibleString and NumericString: compared as
        /// folded text whatever the type.
        static func isStringType(_ tag: UInt8) -> Bool {
            switch tag {
            case DERTag.utf8String, DERTag.printableString, DERTag.teletexString, DERTag.bmpString,
                 DERTag.universalString, DERTag.ia5String, DERTag.visibleString, DERTag.numericString:
                return true
            default:
                return false
            }
        }

        /// Checks the string value at `node` exactly as ``DistinguishedName/decodeString(_:_:)``
        /// does and appends a 0 byte and its prepared UTF-8 (``DirectoryStringPreparation``); for
        /// a value with no prepared form, a 2 byte and its exact UTF-8, returning false. An
        /// all-ASCII value of a single-byte type is checked and prepared byte by byte (nearly
        /// every name).
        static func appendFolded(_ bytes: [UInt8], _ node: DERNode, to key: inout [UInt8]) throws -> Bool {
            let range = node.contents
            let singleByte = node.identifier != DERTag.bmpString && node.identifier != DERTag.universalString
            if singleByte && !bytes[range].contains(where: { $0 >= 0x80 }) {
                // decodeString's character checks, on bytes that need no decoding.
                try DistinguishedName.checkCharacters(bytes, node)
                key.append(0)
                DirectoryStringPreparation.appendPreparedASCII(bytes[range], to: &key)
                return true
            }
            let text = try DistinguishedName.decodeString(bytes, node)
            guard let prepared = DirectoryStringPreparation.prepare(text) else {
                key.append(2)
                key.append(contentsOf: text.utf8)
                return false
            }
            key.append(0)
            key.append(contentsOf: prepared.utf8)
            return true
        }

        /// The prepared form of `s` (RFC 4518), nil when it has none.
        static func fold(_ s: String) -> String? {
            foldASCII(s) ?? foldGeneral(s)
        }

        /// `fold` for any string.
        static func foldGeneral(_ s: String) -> String? {
            DirectoryStringPreparation.prepareGeneral(s)
        }

        /// `fold` for a string that is all ASCII, byte by byte; nil otherwise.
        static func foldASCII(_ s: String) -> String? {
            guard s.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            var out: [UInt8] = []
            DirectoryStringPreparation.appendPreparedASCII(s.utf8, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }
}
