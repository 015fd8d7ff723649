import TLSTrustCore
import TLSTrustDecisions
/// The TLS versions a ClientHello offers, read by the core before a server's library sees it, so
/// that every backend's server refuses a client it shares no version with alike: with a
/// protocol_version alert (RFC 8446 §4.2.1), whatever its library would have made of a version it
/// does not know (mbedTLS 2.28, which has no TLS 1.3, reads a TLS 1.3-only ClientHello as TLS 1.2
/// with no cipher suite it knows, and answers handshake_failure).
enum OfferedVersions {
    /// The wire versions (`0x0303` for TLS 1.2) offered by the ClientHello that fills `record`
    /// (header included): the supported_versions extension's list, or without one the version
    /// TLS 1.2 negotiation would reach (`legacy_version`, at most TLS 1.2). Nil when the record
    /// is not one whole ClientHello; the library then reads it as it is.
    static func inRecord(_ record: [UInt8]) -> Set<Int>? {
        var outer = TLSMessageReader(record)
        guard outer.number(bytes: 1) == 22, outer.number(bytes: 2) != nil,
              let fragment = outer.vector(lengthBytes: 2), outer.isAtEnd else { return nil }
        var message = TLSMessageReader(fragment)
        guard message.number(bytes: 1) == 1, let body = message.vector(lengthBytes: 3), message.isAtEnd else { return nil }
        var hello = TLSMessageReader(body)
        guard let legacyVersion = hello.number(bytes: 2), hello.number(bytes: 32) != nil,  // random
              hello.vector(lengthBytes: 1) != nil,                                         // legacy_session_id
              hello.vector(lengthBytes: 2) != nil,                                         // cipher_suites
              hello.vector(lengthBytes: 1) != nil else { return nil }                      // legacy_compression_methods
        let withoutExtension: Set<Int> = [min(legacyVersion, 0x0303)]
        guard !hello.isAtEnd else { return withoutExtension }
        guard let extensions = hello.vector(lengthBytes: 2), hello.isAtEnd else { return nil }
        var entries = TLSMessageReader(extensions)
        while !entries.isAtEnd {
            guard let type = entries.number(bytes: 2), let data = entries.vector(lengthBytes: 2) else { return nil }
            guard type == 43 else { continue }  // supported_versions
            var list = TLSMessageReader(data)
            guard let versions = list.vector(lengthBytes: 1), list.isAtEnd, versions.count % 2 == 0 else { return nil }
            return Set(stride(from: 0, to: versions.count, by: 2).map { Int(versions[$0]) << 8 | Int(versions[$0 + 1]) })
        }
        return withoutExtension
    }
}

extension TLSVersion {
    /// The version's number on the wire.
    var wireValue: Int { self == .tls13 ? 0x0304 : 0x0303 }
}
