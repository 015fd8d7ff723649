import TLSTrustCore
import TLSTrustDecisions
/// Reads a TLS handshake message's fields — big-endian numbers and length-prefixed vectors —
/// within its bounds: nothing overruns, a length that does not fit is nil.
///
/// For what the core and a backend read from a message the library does not hand over (the
/// versions a ClientHello offers, the CA names of a CertificateRequest).
public struct TLSMessageReader {
    private let bytes: [UInt8]
    private var offset: Int

    /// Reads `buffer` from `start` on.
    public init(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) {
        bytes = Array(buffer)
        offset = min(start, bytes.count)
    }

    /// Reads `bytes` from the start.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// A `count`-byte big-endian number; nil if the message is shorter.
    public mutating func number(bytes count: Int) -> Int? {
        guard bytes.count - offset >= count else { return nil }
        let value = bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
        offset += count
        return value
    }

    /// A vector with a `lengthBytes`-byte big-endian length; nil if it overruns the message.
    public mutating func vector(lengthBytes: Int) -> [UInt8]? {
        guard let length = number(bytes: lengthBytes) else { return nil }
        guard bytes.count - offset >= length else { return nil }
        offset += length
        return Array(bytes[(offset - length)..<offset])
    }

    /// The vectors of `lengthBytes`-byte lengths that fill `bytes`; nil if one overruns.
    public static func vectors(in bytes: [UInt8], lengthBytes: Int) -> [[UInt8]]? {
        var reader = TLSMessageReader(bytes)
        var result: [[UInt8]] = []
        while !reader.isAtEnd {
            guard let vector = reader.vector(lengthBytes: lengthBytes) else { return nil }
            result.append(vector)
        }
        return result
    }

    /// The list a message holds from `start` on, as one vector of `outer`-byte length that must
    /// end the message, split into vectors of `inner`-byte lengths.
    public static func vectors(in message: UnsafeBufferPointer<UInt8>, from start: Int, outer: Int, inner: Int) -> [[UInt8]]? {
        var reader = TLSMessageReader(message, from: start)
        guard let list = reader.vector(lengthBytes: outer), reader.isAtEnd else { return nil }
        return vectors(in: list, lengthBytes: inner)
    }
}
