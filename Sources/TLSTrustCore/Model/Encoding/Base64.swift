/// Strict base64 (RFC 4648) for PEM bodies and pins.
///
/// Decoding ignores only whitespace (PEM wraps lines); any other stray character, bad padding or a
/// length that is not a multiple of four is an error, so a corrupted PEM is reported rather than
/// silently decoded into different bytes.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let result = text.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return result }
        return Array(text).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// One pass over the text with the reverse table in hand, writing into preallocated storage
    /// (a PEM bundle of ~150 certificates is about 280 KB of base64, read on every cold start).
    private static func decode(buffer text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var significant = 0
        for c in text where !isWhitespace(c) { significant += 1 }
        guard significant % 4 == 0 else { return nil }
        var valid = true
        let out = reverse.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: significant / 4 * 3) { out, count in
                var written = 0
                var n: UInt32 = 0
                var inQuad = 0
                var seen = 0
                var padding = 0
                for c in text where !isWhitespace(c) {
                    seen += 1
                    if c == UInt8(ascii: "=") {
                        // Padding only in the last quad, only in its last two places, and only at the end.
                        guard seen > significant - 4, inQuad >= 2 else { valid = false; break }
                        padding += 1
                        n <<= 6
                    } else {
                        let v = table[Int(c)]
                        guard padding == 0, v != 0xFF else { valid = false; break }
                        n = n << 6 | UInt32(v)
                    }
                    inQuad += 1
                    if inQuad == 4 {
                        out[written] = UInt8(truncatingIfNeeded: n >> 16)
                        written += 1
                        if padding < 2 {
                            out[written] = UInt8(truncatingIfNeeded: n >> 8)
                            written += 1
                        }
                        if padding < 1 {
                            out[written] = UInt8(truncatingIfNeeded: n)
                            written += 1
                        }
                        n = 0
                        inQuad = 0
                    }
                }
                count = valid ? written : 0
            }
        }
        return valid ? out : nil
    }

    @inline(__always)
    private static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
