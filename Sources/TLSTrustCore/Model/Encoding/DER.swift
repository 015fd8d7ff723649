#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether two byte slices are equal, by `memcmp`: DER (names, OIDs, whole certificates) is
/// compared on every evaluation, and the generic element-by-element comparison costs several
/// instructions a byte.
func sameBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}

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
    static let numericString: UInt8 = 0x12
    static let visibleString: UInt8 = 0x1A
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
    ///
    /// The OIDs certificates use again and again (attribute types, extensions, algorithms, key
    /// purposes) come from a table of their encodings, as shared string constants: no arithmetic
    /// and no allocation. Any other OID is decoded (and checked) arc by arc.
    func objectIdentifier(in bytes: [UInt8]) throws -> String {
        guard !contents.isEmpty else { throw DERError(description: "empty object identifier") }
        if let known = KnownOID.lookup(bytes, contents) { return known }
        var arcs: [UInt64] = []
        try forEachArc(in: bytes) { arcs.append($0) }
        let first = arcs[0]
        var text = first < 40 ? "0." + String(first) : first < 80 ? "1." + String(first - 40) : "2." + String(first - 80)
        for arc in arcs.dropFirst() {
            text += "."
            text += String(arc)
        }
        return text
    }

    /// Checks an OBJECT IDENTIFIER as ``objectIdentifier(in:)`` does (not empty, minimal arcs,
    /// none over 64 bits, not truncated) without building its text: for readers that compare
    /// OIDs by their encoding.
    func checkObjectIdentifier(in bytes: [UInt8]) throws {
        guard !contents.isEmpty else { throw DERError(description: "empty object identifier") }
        try forEachArc(in: bytes) { _ in }
    }

    /// The one reading of an OID's arcs (base-128, high bit continuing), with its checks: each
    /// arc minimal and within 64 bits, the last one complete. The first arc is still the combined
    /// one (40 × first + second).
    private func forEachArc(in bytes: [UInt8], _ body: (UInt64) -> Void) throws {
        var value: UInt64 = 0
        var inArc = false
        for i in contents {
            let b = bytes[i]
            if !inArc && b == 0x80 { throw DERError(description: "non-minimal OID arc") }
            guard value <= (UInt64.max >> 7) else { throw DERError(description: "OID arc too large") }
            value = (value << 7) | UInt64(b & 0x7F)
            inArc = b & 0x80 != 0
            if !inArc {
                body(value)
                value = 0
            }
        }
        guard !inArc else { throw DERError(description: "truncated OID") }
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

/// The OIDs seen in nearly every certificate, by their DER contents, so that reading one costs a
/// table lookup (see `DERNode.objectIdentifier(in:)`).
enum KnownOID {
    /// Contents octets packed into two words plus the length: a key that needs no allocation.
    struct Key: Hashable {
        let low: UInt64
        let high: UInt64
        let count: Int
    }

    static func key(_ bytes: [UInt8], _ range: Range<Int>) -> Key? {
        guard range.count <= 16 else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (offset, i) in range.enumerated() {
            if offset < 8 { low |= UInt64(bytes[i]) << (8 * offset) } else { high |= UInt64(bytes[i]) << (8 * (offset - 8)) }
        }
        return Key(low: low, high: high, count: range.count)
    }

    static func lookup(_ bytes: [UInt8], _ range: Range<Int>) -> String? {
        // id-ce (2.5.29.n, `55 1D n`): most OIDs a certificate holds, by one array index.
        if range.count == 3, bytes[range.lowerBound] == 0x55, bytes[range.lowerBound + 1] == 0x1D, bytes[range.lowerBound + 2] < 0x80 {
            return idCE[Int(bytes[range.lowerBound + 2])]
        }
        guard let key = key(bytes, range) else { return nil }
        // A binary search over the sorted keys: a few integer comparisons, where a dictionary
        // would hash the key with SipHash on every OID of every certificate.
        var low = 0, high = sortedKeys.count
        while low < high {
            let mid = (low + high) / 2
            let k = sortedKeys[mid]
            if k == key { return sortedOIDs[mid] }
            if (k.count, k.high, k.low) < (key.count, key.high, key.low) { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The dotted OIDs in the table.
    static let dotted: [String] = [
        // Attribute types (X.520, PKCS #9, RFC 4519).
        "2.5.4.3", "2.5.4.4", "2.5.4.5", "2.5.4.6", "2.5.4.7", "2.5.4.8", "2.5.4.9", "2.5.4.10", "2.5.4.11",
        "2.5.4.12", "2.5.4.17", "2.5.4.42", "2.5.4.43", "2.5.4.97", "1.2.840.113549.1.9.1",
        "0.9.2342.19200300.100.1.25", "0.9.2342.19200300.100.1.1", "1.3.6.1.4.1.311.60.2.1.3", "2.5.4.15",
        // Extensions.
        "2.5.29.14", "2.5.29.15", "2.5.29.17", "2.5.29.18", "2.5.29.19", "2.5.29.30", "2.5.29.31", "2.5.29.32",
        "2.5.29.35", "2.5.29.36", "2.5.29.37", "2.5.29.54", "1.3.6.1.5.5.7.1.1", "1.3.6.1.4.1.11129.2.4.2",
        "1.3.6.1.5.5.7.1.24",
        // Access methods, key purposes, policies.
        "1.3.6.1.5.5.7.48.1", "1.3.6.1.5.5.7.48.2", "1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2",
        "1.3.6.1.5.5.7.3.3", "1.3.6.1.5.5.7.3.4", "2.5.29.37.0", "2.5.29.32.0", "2.23.140.1.2.1",
        "2.23.140.1.2.2", "2.23.140.1.1",
        // Key and signature algorithms, curves.
        "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.10", "1.2.840.113549.1.1.11", "1.2.840.113549.1.1.12",
        "1.2.840.113549.1.1.13", "1.2.840.113549.1.1.5", "1.2.840.113549.1.1.8", "1.2.840.10045.2.1",
        "1.2.840.10045.4.3.2", "1.2.840.10045.4.3.3", "1.2.840.10045.4.3.4", "1.2.840.10045.3.1.7",
        "1.3.132.0.34", "1.3.132.0.35", "1.3.101.112", "1.3.101.113", "2.16.840.1.101.3.4.2.1",
        "2.16.840.1.101.3.4.2.2", "2.16.840.1.101.3.4.2.3",
    ]

    /// The table's id-ce OIDs by their last arc (nil where the table has none).
    static let idCE: [String?] = {
        var byArc = [String?](repeating: nil, count: 128)
        for oid in dotted where oid.hasPrefix("2.5.29.") {
            if let arc = Int(oid.dropFirst(7)), arc < 128 { byArc[arc] = oid }
        }
        return byArc
    }()

    /// The table's keys in (count, high, low) order, and the dotted OID of each.
    static let (sortedKeys, sortedOIDs): ([Key], [String]) = {
        let entries = dotted.compactMap { oid -> (Key, String)? in
            let encoded = encode(oid)
            return key(encoded, encoded.indices).map { ($0, oid) }
        }.sorted { ($0.0.count, $0.0.high, $0.0.low) < ($1.0.count, $1.0.high, $1.0.low) }
        return (entries.map(\.0), entries.map(\.1))
    }()

    /// The DER contents of a dotted OID (only for the table's own, well-formed entries).
    static func encode(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { UInt64($0)! }
        var out: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var groups: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            out += groups.reversed()
        }
        return out
    }
}
