/// A distinguished name in the form RFC 5280 §7.1 compares names: attribute by attribute,
/// each relative distinguished name as a set, string values case-folded with surrounding
/// whitespace removed and inner runs of whitespace collapsed, and the string type ignored
/// between the directory-string types (PrintableString, UTF8String, TeletexString, BMPString,
/// UniversalString), IA5String, VisibleString and NumericString. Values are decoded exactly or
/// the name is refused (``DistinguishedName``), so two different values never fold together
/// by a lossy decoding.
///
/// Why: an issuer written as `UTF8String "Example CA"` names the same CA as a subject written as
/// `PrintableString "EXAMPLE  CA"`. Path building matches issuers to subjects in this form, and
/// directoryName name constraints compare in it, so that an excluded name cannot be escaped by
/// re-encoding it (other type, other case, doubled spaces).
public struct NormalizedName: Sendable, Hashable {
    /// One attribute: its type and its value in comparable form.
    struct Value: Sendable, Hashable, Comparable {
        let oid: String
        /// The folded text of a string value, or `#<tag><hex>` for any other type (compared exactly).
        let text: String

        init(oid: String, bytes: [UInt8], node: DERNode, decoded: String) {
            self.oid = oid
            switch node.identifier {
            case DERTag.utf8String, DERTag.printableString, DERTag.teletexString, DERTag.bmpString,
                 DERTag.universalString, DERTag.ia5String, DERTag.visibleString, DERTag.numericString:
                text = Self.fold(decoded)
            default:
                text = "#" + String(format2: node.identifier) + bytes[node.contents].hexString()
            }
        }

        /// RFC 4518-style preparation, reduced to what certificates need: case fold, trim,
        /// collapse whitespace.
        static func fold(_ s: String) -> String {
            foldASCII(s) ?? foldGeneral(s)
        }

        /// `fold` for any string: Unicode lowercasing, `Character.isWhitespace`.
        static func foldGeneral(_ s: String) -> String {
            var out = ""
            var pendingSpace = false
            for ch in s.lowercased() {
                if ch.isWhitespace {
                    pendingSpace = !out.isEmpty
                    continue
                }
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(ch)
            }
            return out
        }

        /// `fold` for a string that is all ASCII (nearly every name), byte by byte: the same result
        /// as the general path (ASCII letters lowered; tab, LF, VT, FF, CR and space are the ASCII
        /// characters `Character.isWhitespace` accepts), without grapheme breaking. Nil otherwise.
        static func foldASCII(_ s: String) -> String? {
            var s = s
            return s.withUTF8 { bytes -> String? in
                var needsWork = false
                for b in bytes {
                    if b >= 0x80 { return nil }
                    if (b >= 0x41 && b <= 0x5A) || (b >= 0x09 && b <= 0x0D) || b == 0x20 { needsWork = true }
                }
                if !needsWork { return nil }
                return String(unsafeUninitializedCapacity: bytes.count) { out in
                    var count = 0
                    var pendingSpace = false
                    for b in bytes {
                        if (b >= 0x09 && b <= 0x0D) || b == 0x20 {
                            pendingSpace = count > 0
                            continue
                        }
                        if pendingSpace {
                            out[count] = 0x20
                            count += 1
                        }
                        pendingSpace = false
                        out[count] = (b >= 0x41 && b <= 0x5A) ? b + 0x20 : b
                        count += 1
                    }
                    return count
                }
            } ?? (s.utf8.allSatisfy { $0 < 0x80 } ? s : nil)
        }

        static func < (a: Value, b: Value) -> Bool { (a.oid, a.text) < (b.oid, b.text) }
    }

    let rdns: [[Value]]
    /// The hash of `rdns`, computed once: names are hashed on every issuer lookup.
    private let cachedHash: Int

    init(rdns: [[Value]]) {
        self.rdns = rdns
        var hasher = Hasher()
        hasher.combine(rdns)
        cachedHash = hasher.finalize()
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.cachedHash == rhs.cachedHash && lhs.rdns == rhs.rdns }
    public func hash(into hasher: inout Hasher) { hasher.combine(cachedHash) }

    /// True when the name has no attributes.
    var isEmpty: Bool { rdns.isEmpty }

    /// Whether `self` lies within the subtree `base` (RFC 5280 §4.2.1.10 directoryName: `base`'s
    /// RDNs are a prefix of `self`'s).
    func isWithin(_ base: NormalizedName) -> Bool {
        base.rdns.count <= rdns.count && zip(base.rdns, rdns).allSatisfy { $0 == $1 }
    }
}
