/// The most password-based key derivation a PKCS#12 file or an encrypted PKCS#8 key may ask for,
/// checked before any library runs its KDF.
///
/// A PKCS#12 file names its own iteration counts: one for the MAC, one per encrypted bag or key
/// (PBES2 with PBKDF2 or scrypt, or the PKCS#12 PBE schemes). The libraries honour whatever the
/// file says, so a small file asking for 2³¹ iterations makes an import run billions of HMACs. Every
/// backend calls this check first, so the rule lives here once and the work is bounded by it.
///
/// The walk reads BER as well as DER (Windows writes indefinite lengths) and looks inside OCTET
/// STRINGs that hold nested structures (the authenticated safe, the safe contents). Any
/// `SEQUENCE { …, OCTET STRING salt, INTEGER count, … }` is a derivation's parameters: PBKDF2's
/// `iterationCount`, PKCS#12 PBE's `iterations`, the MAC's `iterations`, scrypt's `costParameter`.
/// A file the walk cannot read at all is refused: what the check cannot see, it does not let a
/// library run unbounded.
public enum KeyDerivationBudget {
    /// The largest iteration count (or scrypt cost) accepted: 1,000,000, above OWASP's 600,000 for
    /// PBKDF2-HMAC-SHA256 and 500 times OpenSSL's default (2,048).
    public static let maximumIterations = 1_000_000

    /// The most elements the walk visits and the deepest it nests: itself bounded.
    static let maximumElements = 100_000
    static let maximumDepth = 48

    /// Refuses a PKCS#12 file that asks for more than ``maximumIterations`` in any derivation.
    ///
    /// - Throws: `TLSTrustError` `.limitExceeded` naming the count, or `.malformedPKCS12` when the
    ///   file cannot be read as BER at all.
    public static func checkPKCS12(_ data: [UInt8]) throws {
        do {
            var walk = Walk(bytes: data)
            try walk.walk(0..<data.count, depth: 0)
        } catch let error as WalkError {
            switch error {
            case .limit(let why): throw TLSTrustError(.limitExceeded, "the PKCS#12 file \(why)")
            case .malformed(let why): throw TLSTrustError(.malformedPKCS12, "not a PKCS#12 file: \(why)")
            }
        }
    }

    /// Refuses an encrypted PKCS#8 private key (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, in PEM
    /// text that may hold other blocks too) that asks for more than ``maximumIterations``.
    ///
    /// - Throws: `TLSTrustError` `.limitExceeded`, or `.malformedKey` for an encrypted-key block
    ///   that is not BER.
    public static func checkEncryptedPrivateKeyPEM(_ pem: [UInt8]) throws {
        let blocks: [PEMBlock]
        do {
            blocks = try PEMBlock.parseAll(pem)
        } catch {
            // What the check cannot read, no library may derive from unbounded.
            if pem[...].find(Array("ENCRYPTED PRIVATE KEY".utf8)) != nil {
                throw TLSTrustError(.malformedKey, "the encrypted private key's PEM cannot be read: \(error)")
            }
            return
        }
        for block in blocks where block.label == "ENCRYPTED PRIVATE KEY" {
            do {
                var walk = Walk(bytes: block.der)
                try walk.walk(0..<block.der.count, depth: 0)
            } catch let error as WalkError {
                switch error {
                case .limit(let why): throw TLSTrustError(.limitExceeded, "the encrypted private key \(why)")
                case .malformed(let why): throw TLSTrustError(.malformedKey, "the encrypted private key is not BER: \(why)")
                }
            }
        }
    }

    enum WalkError: Error {
        case limit(String)
        case malformed(String)
    }

    /// A bounded BER walk that looks for (salt, count) pairs.
    struct Walk {
        let bytes: [UInt8]
        var visited = 0

        struct Element {
            var tag: UInt8
            var constructed: Bool
            /// The contents; for an indefinite length, up to (not including) the end-of-contents octets.
            var contents: Range<Int>
            var end: Int
        }

        mutating func walk(_ range: Range<Int>, depth: Int) throws {
            guard depth <= KeyDerivationBudget.maximumDepth else { throw WalkError.limit("nests deeper than \(KeyDerivationBudget.maximumDepth) levels") }
            var position = range.lowerBound
            var previousTag: UInt8?
            while position < range.upperBound {
                let element = try read(at: position, limit: range.upperBound, depth: depth)
                visited += 1
                guard visited <= KeyDerivationBudget.maximumElements else {
                    throw WalkError.limit("has more than \(KeyDerivationBudget.maximumElements) elements")
                }
                if element.tag == 0x02, !element.constructed, previousTag == 0x04 {
                    try checkCount(element.contents)
                }
                if element.constructed {
                    if element.tag == 0x04 {
                        // A BER constructed OCTET STRING: its chunks, joined, may hold a structure.
                        var joined: [UInt8] = []
                        try collectChunks(element.contents, into: &joined, depth: depth + 1)
                        try walkNested(joined, depth: depth + 1)
                    } else {
                        try walk(element.contents, depth: depth + 1)
                    }
                } else if element.tag == 0x04 {
                    try walkNested(Array(bytes[element.contents]), depth: depth + 1)
                }
                previousTag = element.tag
                position = element.end
            }
        }

        /// Walks an OCTET STRING's contents if they are a SEQUENCE that reads to the end; other
        /// contents are opaque data (a salt, ciphertext, a digest).
        mutating func walkNested(_ contents: [UInt8], depth: Int) throws {
            guard contents.first == 0x30 else { return }
            var nested = Walk(bytes: contents)
            nested.visited = visited
            guard let whole = try? nested.read(at: 0, limit: contents.count, depth: depth), whole.end == contents.count else { return }
            do {
                try nested.walk(0..<contents.count, depth: depth)
            } catch WalkError.malformed {
                return  // not a structure after all: opaque bytes that happened to start like one
            }
            visited = nested.visited
        }

        mutating func collectChunks(_ range: Range<Int>, into joined: inout [UInt8], depth: Int) throws {
            guard depth <= KeyDerivationBudget.maximumDepth else { throw WalkError.limit("nests deeper than \(KeyDerivationBudget.maximumDepth) levels") }
            var position = range.lowerBound
            while position < range.upperBound {
                let chunk = try read(at: position, limit: range.upperBound, depth: depth)
                visited += 1
                guard visited <= KeyDerivationBudget.maximumElements else {
                    throw WalkError.limit("has more than \(KeyDerivationBudget.maximumElements) elements")
                }
                if chunk.constructed {
                    try collectChunks(chunk.contents, into: &joined, depth: depth + 1)
                } else {
                    joined += bytes[chunk.contents]
                }
                position = chunk.end
            }
        }

        func checkCount(_ contents: Range<Int>) throws {
            guard !contents.isEmpty else { throw WalkError.malformed("an empty INTEGER") }
            if bytes[contents.lowerBound] & 0x80 != 0 { return }  // negative: the library refuses it
            let significant = contents.drop { bytes[$0] == 0 }
            if significant.count > 4 { throw WalkError.limit("asks for an iteration count above 2³² (limit \(KeyDerivationBudget.maximumIterations))") }
            var value = 0
            for index in significant { value = value << 8 | Int(bytes[index]) }
            guard value <= KeyDerivationBudget.maximumIterations else {
                throw WalkError.limit("asks for \(value) iterations of its key derivation; TLSTrust allows at most \(KeyDerivationBudget.maximumIterations)")
            }
        }

        /// Reads one BER element starting at `position`, not past `limit`.
        func read(at start: Int, limit: Int, depth: Int) throws -> Element {
            var position = start
            guard position < limit else { throw WalkError.malformed("unexpected end of data") }
            let identifier = bytes[position]
            position += 1
            if identifier & 0x1F == 0x1F {  // a multi-byte tag number: skip its continuation octets
                var count = 0
                repeat {
                    guard position < limit else { throw WalkError.malformed("truncated tag") }
                    count += 1
                    guard count <= 4 else { throw WalkError.malformed("tag number too large") }
                    position += 1
                } while bytes[position - 1] & 0x80 != 0
            }
            let tag = identifier & 0x1F == 0x1F ? 0xFF : identifier & 0xDF  // class + number, constructed bit cleared
            let constructed = identifier & 0x20 != 0
            guard position < limit else { throw WalkError.malformed("truncated length") }
            let first = bytes[position]
            position += 1
            if first == 0x80 {
                // Indefinite length (BER): constructed only; contents end at the matching 00 00.
                guard constructed else { throw WalkError.malformed("indefinite length on a primitive element") }
                let contentStart = position
                var cursor = position
                while true {
                    guard cursor + 1 < limit else { throw WalkError.malformed("indefinite length without end-of-contents") }
                    if bytes[cursor] == 0, bytes[cursor + 1] == 0 {
                        return Element(tag: tag, constructed: true, contents: contentStart..<cursor, end: cursor + 2)
                    }
                    guard depth < KeyDerivationBudget.maximumDepth else {
                        throw WalkError.limit("nests deeper than \(KeyDerivationBudget.maximumDepth) levels")
                    }
                    cursor = try read(at: cursor, limit: limit, depth: depth + 1).end
                }
            }
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else {
                let count = Int(first & 0x7F)
                guard count <= 4 else { throw WalkError.malformed("length field of \(count) octets") }
                guard limit - position >= count else { throw WalkError.malformed("truncated length") }
                for _ in 0..<count {
                    length = length << 8 | Int(bytes[position])
                    position += 1
                }
            }
            guard length <= limit - position else { throw WalkError.malformed("an element of \(length) bytes runs past the end") }
            return Element(tag: tag, constructed: constructed, contents: position..<(position + length), end: position + length)
        }
    }
}
