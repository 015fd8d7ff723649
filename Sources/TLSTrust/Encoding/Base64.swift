/// Strict base64 (RFC 4648) for PEM bodies and pins.
///
/// Decoding ignores only whitespace (PEM wraps lines); any other stray character, bad padding or a
/// length that is not a multiple of four is an error, so a corrupted PEM is reported rather than
/// silently decoded into different bytes.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
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

    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var clean: [UInt8] = []
        clean.reserveCapacity(text.count)
        for c in text where !(c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09) { clean.append(c) }
        guard clean.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(clean.count / 4 * 3)
        var i = 0
        while i < clean.count {
            let isLast = i + 4 == clean.count
            var n: UInt32 = 0
            var padding = 0
            for j in 0..<4 {
                let c = clean[i + j]
                if c == UInt8(ascii: "=") {
                    // Padding only in the last quad, only in its last two places, and only at the end.
                    guard isLast, j >= 2 else { return nil }
                    padding += 1
                    n <<= 6
                } else {
                    guard padding == 0 else { return nil }
                    let v = reverse[Int(c)]
                    guard v != 0xFF else { return nil }
                    n = n << 6 | UInt32(v)
                }
            }
            out.append(UInt8(n >> 16))
            if padding < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(n & 0xFF)) }
            i += 4
        }
        return out
    }
}
