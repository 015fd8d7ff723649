/// A distinguished name in the form RFC 5280 §7.1 compares names: attribute by attribute,
/// each relative distinguished name as a set, string values case-folded with surrounding
/// whitespace removed and inner runs of whitespace collapsed, and the string type ignored
/// between the directory-string types (PrintableString, UTF8String, TeletexString, BMPString,
/// UniversalString) and IA5String.
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
                 DERTag.universalString, DERTag.ia5String:
                text = Self.fold(decoded)
            default:
                text = "#" + String(format2: node.identifier) + bytes[node.contents].hexString()
            }
        }

        /// RFC 4518-style preparation, reduced to what certificates need: case fold, trim,
        /// collapse whitespace.
        static func fold(_ s: String) -> String {
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

        static func < (a: Value, b: Value) -> Bool { (a.oid, a.text) < (b.oid, b.text) }
    }

    let rdns: [[Value]]

    /// True when the name has no attributes.
    var isEmpty: Bool { rdns.isEmpty }

    /// Whether `self` lies within the subtree `base` (RFC 5280 §4.2.1.10 directoryName: `base`'s
    /// RDNs are a prefix of `self`'s).
    func isWithin(_ base: NormalizedName) -> Bool {
        base.rdns.count <= rdns.count && zip(base.rdns, rdns).allSatisfy { $0 == $1 }
    }
}
