/// The message padding of the SHA family (FIPS 180-4 §5.1), written once for ``SHA1``,
/// ``SHA256`` and ``SHA512``: a 1 bit, zeros, then the message's length in bits, big-endian, in the
/// last eighth of the final block, so that the padded message is a whole number of blocks.
enum SHAPadding {
    /// `message` padded to whole blocks of `blockBytes` (64 for SHA-1 and SHA-256, 128 for
    /// SHA-512); the length field is `blockBytes / 8` bytes (64 or 128 bits).
    static func padded(_ message: [UInt8], blockBytes: Int) -> [UInt8] {
        let lengthBytes = blockBytes / 8
        var padded = message
        padded.append(0x80)
        while padded.count % blockBytes != blockBytes - lengthBytes { padded.append(0) }
        // Only the low 64 bits of a 128-bit length can be set: messages here are far below 2^61 bytes.
        padded += [UInt8](repeating: 0, count: lengthBytes - 8)
        let bitLength = UInt64(message.count) &* 8
        for i in (0..<8).reversed() { padded.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        return padded
    }

    /// 32-bit words as their big-endian bytes (the SHA-1 and SHA-256 digests).
    static func bigEndianBytes(_ words: [UInt32]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(words.count * 4)
        for word in words {
            out += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return out
    }
}
