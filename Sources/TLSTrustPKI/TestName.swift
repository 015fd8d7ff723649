/// A distinguished name to write byte for byte: which attributes, in which order, with which
/// ASN.1 string type and which bytes.
///
/// Name comparison is where validators disagree most (RFC 5280 §7.1 compares after case folding
/// and whitespace compression; byte comparison does not), so tests need names that differ only
/// in string type, case or spacing — and names that are empty, or carry bytes no parser expects
/// (a terminal escape sequence in a CN). `TestName` writes exactly what it is told.
///
/// ```swift
/// let excluded = TestName([.organization("Evil Corp", as: .printableString)])
/// let bypass = TestName([.organization("evil  corp", as: .utf8String)])  // same name under §7.1
/// ```
public struct TestName: Sendable, Hashable {
    /// The ASN.1 string type of an attribute value (`DirectoryString` and its relatives).
    public enum StringType: Sendable, Hashable {
        case utf8String, printableString, ia5String, teletexString, bmpString, universalString
        /// Any other universal tag, for values no profile allows.
        case tag(UInt8)

        public var tag: UInt8 {
            switch self {
            case .utf8String: DER.Tag.utf8String
            case .printableString: DER.Tag.printableString
            case .ia5String: DER.Tag.ia5String
            case .teletexString: DER.Tag.teletexString
            case .bmpString: DER.Tag.bmpString
            case .universalString: DER.Tag.universalString
            case .tag(let tag): tag
            }
        }
    }

    /// One `AttributeTypeAndValue`.
    public struct Attribute: Sendable, Hashable {
        /// The attribute type's dotted OID (`2.5.4.3` is commonName).
        public var oid: String
        /// The value's contents octets, written as given (not checked against `stringType`).
        public var value: [UInt8]
        public var stringType: StringType

        public init(oid: String, value: [UInt8], stringType: StringType) {
            self.oid = oid
            self.value = value
            self.stringType = stringType
        }

        /// An attribute whose value is the UTF-8 of `text` (UTF-16BE for `.bmpString`, UTF-32BE
        /// for `.universalString`, as those types require).
        public init(oid: String, _ text: String, as stringType: StringType = .utf8String) {
            let value: [UInt8] = switch stringType {
            case .bmpString: text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            case .universalString: text.unicodeScalars.flatMap { scalar in
                (0..<4).reversed().map { UInt8((scalar.value >> (8 * UInt32($0))) & 0xFF) }
            }
            default: Array(text.utf8)
            }
            self.init(oid: oid, value: value, stringType: stringType)
        }

        public static func commonName(_ text: String, as type: StringType = .utf8String) -> Attribute {
            Attribute(oid: "2.5.4.3", text, as: type)
        }
        public static func organization(_ text: String, as type: StringType = .utf8String) -> Attribute {
            Attribute(oid: "2.5.4.10", text, as: type)
        }
        public static func organizationalUnit(_ text: String, as type: StringType = .utf8String) -> Attribute {
            Attribute(oid: "2.5.4.11", text, as: type)
        }
        /// countryName is always a two-letter PrintableString (X.520).
        public static func country(_ code: String) -> Attribute {
            Attribute(oid: "2.5.4.6", code, as: .printableString)
        }
        public static func email(_ address: String) -> Attribute {
            Attribute(oid: "1.2.840.113549.1.9.1", address, as: .ia5String)
        }
    }

    /// The relative distinguished names in order, each a set of attributes (usually one).
    public var relativeDistinguishedNames: [[Attribute]]

    /// A name with each attribute in its own RDN, in the given order.
    public init(_ attributes: [Attribute]) {
        relativeDistinguishedNames = attributes.map { [$0] }
    }

    /// A name with explicit (possibly multi-valued) RDNs.
    public init(relativeDistinguishedNames: [[Attribute]]) {
        self.relativeDistinguishedNames = relativeDistinguishedNames
    }

    /// The empty name (an empty SEQUENCE), which RFC 5280 forbids as an issuer name and allows as a
    /// subject name only with a critical subjectAltName.
    public static let empty = TestName([])

    /// `CN=commonName` alone, UTF8String: a subject with no other attribute.
    public static func commonNameOnly(_ commonName: String) -> TestName { TestName([.commonName(commonName)]) }

    /// The `Name` DER (RDNSequence).
    public var der: [UInt8] {
        DER.sequence(relativeDistinguishedNames.map { rdn in
            DER.set(rdn.map { attribute in
                DER.sequence([DER.objectIdentifier(attribute.oid), DER.tlv(attribute.stringType.tag, attribute.value)])
            })
        })
    }
}
