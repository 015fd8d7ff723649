/// A minimal, strict reader of DER (ITU-T X.690 Distinguished Encoding Rules).
///
/// Why our own reader: the core must stay free of C and of heavy dependencies, and it only needs
/// to walk the handful of structures an X.509 certificate is made of. The reader works on index
/// ranges into one shared byte array, so parsing a certificate copies nothing but the fields it
/// keeps. It rejects indefinite lengths, non-minimal lengths and lengths that run past the end,
/// because a trust library must never read a certificate more leniently than the verifier does.
struct DERNode {
    /// The full identifier octet (class, constructed bit and tag number); multi-byte tags are refused.
    let identifier: UInt8
    /// The range of the contents octets in the underlying buffer.
    let contents: Range<Int>
    /// The range of the whole element, header included.
    let encoded: Range<Int>

    var isConstructed: Bool { identifier & 0x20 != 0 }
}

/// Identifiers used by X.509.
enum DERTag {
    static let boolean: UInt8 = 0x01
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let null: UInt8 = 0x05
    static let objectIdentifier: UInt8 = 0x06
    static let utf8String: UInt8 = 0x0C
    static let printableString: UInt8 = 0x13
    static let teletexString: UInt8 = 0x14
    static let ia5String: UInt8 = 0x16
    static let utcTime: UInt8 = 0x17
    static let generalizedTime: UInt8 = 0x18
    static let universalString: UInt8 = 0x1C
    static let bmpString: UInt8 = 0x1E
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static func contextSpecific(_ number: UInt8, constructed: Bool) -> UInt8 {
        0x80 | (constructed ? 0x20 : 0) | number
    }
}

/// Errors from the DER reader; callers turn them into `TLSTrustError.malformedCertificate`.
struct DERError: Error, CustomStringConvertible {
    let description: String
}

/// Reads consecutive DER elements out of `bytes[range]`.
struct DERReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        let r = range ?? bytes.indices
        self.position = r.lowerBound
        self.end = r.upperBound
    }

    init(_ bytes: [UInt8], contentsOf node: DERNode) {
        self.init(bytes, range: node.contents)
    }

    var isAtEnd: Bool { position >= end }

    /// The identifier of the next element without consuming it, or nil at the end.
    var peekIdentifier: UInt8? { position < end ? bytes[position] : nil }

    /// Reads the next element, whatever its tag.
    mutating func readAny() throws -> DERNode {
        guard position < end else { throw DERError(description: "unexpected end of data") }
        let start = position
        let identifier = bytes[position]
        if identifier & 0x1F == 0x1F {
            throw DERError(description: "multi-byte tags are not supported")
        }
        position += 1
        guard position < end else { throw DERError(description: "truncated length") }
        let first = bytes[position]
        position += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count > 0 else { throw DERError(description: "indefinite length is not DER") }
            guard count <= 4 else { throw DERError(description: "length field too large") }
            guard end - position >= count else { throw DERError(description: "truncated length") }
            for _ in 0..<count {
                length = (length << 8) | Int(bytes[position])
                position += 1
            }
            // DER demands the shortest form.
            if length < 0x80 || (count > 1 && bytes[position - count] == 0) {
                throw DERError(description: "non-minimal length encoding")
            }
        }
        guard length <= end - position else {
            throw DERError(description: "element length \(length) runs past the end of the data")
        }
        let contents = position..<(position + length)
        position += length
        return DERNode(identifier: identifier, contents: contents, encoded: start..<position)
    }

    /// Reads the next element and requires its identifier to be `identifier`.
    mutating func read(_ identifier: UInt8, _ what: @autoclosure () -> String) throws -> DERNode {
        let node = try readAny()
        guard node.identifier == identifier else {
            throw DERError(description: "expected \(what()), found tag 0x\(String(node.identifier, radix: 16))")
        }
        return node
    }

    /// Reads the next element only if it carries `identifier`.
    mutating func readOptional(_ identifier: UInt8) throws -> DERNode? {
        guard peekIdentifier == identifier else { return nil }
        return try readAny()
    }
}

extension DERNode {
    /// The dotted-decimal form of an OBJECT IDENTIFIER.
    func objectIdentifier(in bytes: [UInt8]) throws -> String {
        guard !contents.isEmpty else { throw DERError(description: "empty object identifier") }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var inArc = false
        for i in contents {
            let b = bytes[i]
            if !inArc && b == 0x80 { throw DERError(description: "non-minimal OID arc") }
            guard value <= (UInt64.max >> 7) else { throw DERError(description: "OID arc too large") }
            value = (value << 7) | UInt64(b & 0x7F)
            inArc = b & 0x80 != 0
            if !inArc {
                arcs.append(value)
                value = 0
            }
        }
        guard !inArc else { throw DERError(description: "truncated OID") }
        let first = arcs[0]
        var parts: [String]
        if first < 40 {
            parts = ["0", String(first)]
        } else if first < 80 {
            parts = ["1", String(first - 40)]
        } else {
            parts = ["2", String(first - 80)]
        }
        parts.append(contentsOf: arcs.dropFirst().map { String($0) })
        return parts.joined(separator: ".")
    }

    /// A BOOLEAN's value; DER allows only 0x00 and 0xFF.
    func boolean(in bytes: [UInt8]) throws -> Bool {
        guard contents.count == 1 else { throw DERError(description: "bad BOOLEAN length") }
        switch bytes[contents.lowerBound] {
        case 0x00: return false
        case 0xFF: return true
        default: throw DERError(description: "BOOLEAN not in DER form")
        }
    }

    /// A small non-negative INTEGER (path lengths, versions).
    func smallInteger(in bytes: [UInt8]) throws -> Int {
        guard !contents.isEmpty, contents.count <= 8 else { throw DERError(description: "INTEGER out of range") }
        guard bytes[contents.lowerBound] & 0x80 == 0 else { throw DERError(description: "negative INTEGER") }
        var v = 0
        for i in contents { v = (v << 8) | Int(bytes[i]) }
        return v
    }

    /// The bytes of a BIT STRING without its unused-bits octet (which must be zero for keys and signatures).
    func bitStringBytes(in bytes: [UInt8]) throws -> (unusedBits: Int, range: Range<Int>) {
        guard !contents.isEmpty else { throw DERError(description: "empty BIT STRING") }
        let unused = Int(bytes[contents.lowerBound])
        guard unused < 8 else { throw DERError(description: "bad BIT STRING padding") }
        return (unused, (contents.lowerBound + 1)..<contents.upperBound)
    }
}
