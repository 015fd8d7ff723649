/// SHA-1 (FIPS 180-4) in pure Swift, for one job only: the CertID of OCSP (RFC 6960 §4.1.1),
/// whose issuer name and key hashes most responders still compute with SHA-1 (RFC 5019 §2.1.1
/// requires it). It is never used to accept a signature: no SHA-1 signature scheme is in the
/// engine's list of accepted algorithms. A CertID is only a lookup key; matching it proves nothing
/// on its own, the response's signature does. (The minting kit, `TLSTrustPKI`, hashes with it too,
/// for the same CertIDs and for subjectKeyIdentifiers: identifiers, never signatures.)
package enum SHA1 {
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)
        let padded = SHAPadding.padded(message, blockBytes: 64)

        var w = [UInt32](repeating: 0, count: 80)
        var block = 0
        while block < padded.count {
            for t in 0..<16 {
                let b = block + t * 4
                w[t] = UInt32(padded[b]) << 24 | UInt32(padded[b + 1]) << 16 | UInt32(padded[b + 2]) << 8 | UInt32(padded[b + 3])
            }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32, k: UInt32
                switch t {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A827999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC
                default: f = b ^ c ^ d; k = 0xCA62C1D6
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                e = d; d = c; c = rotl(b, 30); b = a; a = temp
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
            block += 64
        }
        return SHAPadding.bigEndianBytes([h.0, h.1, h.2, h.3, h.4])
    }

    @inline(__always) private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
