import TLSTrustCore
/// A minimal DER writer: the kit encodes every certificate, CRL and OCSP response with it, and
/// leaves only the signature to the key's library.
///
/// Library encoders validate what they are given (OpenSSL's extension configuration syntax wants
/// an IA5String in ASCII, an IP address of 4 or 16 bytes, a real date), which is right for ordinary
/// certificates and wrong for attack certificates: those must say exactly the bytes the test
/// asks for. Every encoder here writes its input as is and checks nothing beyond what the
/// length encoding needs, so tests can mint what a validator must refuse.
public enum DER {
    /// Universal tags used by the factory.
    public enum Tag {
        public static let boolean: UInt8 = 0x01
        public static let integer: UInt8 = 0x02
        public static let bitString: UInt8 = 0x03
        public static let octetString: UInt8 = 0x04
        public static let null: UInt8 = 0x05
        public static let objectIdentifier: UInt8 = 0x06
        public static let utf8String: UInt8 = 0x0C
        public static let printableString: UInt8 = 0x13
        public static let teletexString: UInt8 = 0x14
        public static let ia5String: UInt8 = 0x16
        public static let utcTime: UInt8 = 0x17
        public static let generalizedTime: UInt8 = 0x18
        public static let universalString: UInt8 = 0x1C
        public static let bmpString: UInt8 = 0x1E
        public static let sequence: UInt8 = 0x30
        public static let set: UInt8 = 0x31
    }

    /// Tag, definite length, contents.
    public static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        DERWriter.element(tag, contents)
    }

    /// The DER length octets for `count` (short form below 128, long form above).
    public static func length(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "a DER length cannot be negative")
        return DERWriter.length(count)
    }

    public static func sequence(_ elements: [[UInt8]]) -> [UInt8] { tlv(Tag.sequence, elements.flatMap { $0 }) }
    /// A SET OF written in the order given (DER sorts SET OF; callers that care pass sorted input).
    public static func set(_ elements: [[UInt8]]) -> [UInt8] { tlv(Tag.set, elements.flatMap { $0 }) }
    public static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(Tag.octetString, bytes) }
    public static func boolean(_ value: Bool) -> [UInt8] { tlv(Tag.boolean, [value ? 0xFF : 0x00]) }
    public static let null: [UInt8] = [Tag.null, 0x00]
    /// A BIT STRING holding whole bytes (no unused bits).
    public static func bitString(_ bytes: [UInt8]) -> [UInt8] { tlv(Tag.bitString, [0] + bytes) }
    public static func utf8String(_ text: String) -> [UInt8] { tlv(Tag.utf8String, Array(text.utf8)) }
    public static func ia5String(_ text: String) -> [UInt8] { tlv(Tag.ia5String, Array(text.utf8)) }

    /// A non-negative INTEGER in minimal two's-complement form.
    public static func integer(_ value: Int) -> [UInt8] {
        precondition(value >= 0, "only non-negative integers are needed")
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(Tag.integer, bytes)
    }

    /// An OBJECT IDENTIFIER from its dotted form (`2.5.29.17`).
    public static func objectIdentifier(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { UInt64($0)! }
        precondition(arcs.count >= 2 && arcs[0] <= 2, "not an OID: \(dotted)")
        var contents: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            contents += chunk
        }
        return tlv(Tag.objectIdentifier, contents)
    }

    /// A context-specific tag `[number]` (numbers below 31), implicit or wrapping (`constructed`).
    public static func contextSpecific(_ number: UInt8, constructed: Bool, _ contents: [UInt8]) -> [UInt8] {
        precondition(number < 31, "high tag numbers are not needed")
        return tlv(0x80 | (constructed ? 0x20 : 0) | number, contents)
    }
}
