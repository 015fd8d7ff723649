import TLSTrustCore
import TLSTrustDecisions
/// ALPN (RFC 7301): the protocol names a connection offers or accepts, checked and encoded once.
///
/// Every backend gets the list from here, already checked, so that the same configuration is
/// accepted or refused alike whatever the library; a library that takes the wire format gets
/// ``wireFormat``, and a server whose library leaves the choice to the application chooses with
/// ``select(offered:)``.
public struct TLSApplicationProtocols: Sendable, Equatable {
    /// The names, in the configured order (a server's most preferred first).
    public let names: [String]
    /// The ProtocolNameList as sent on the wire: each name preceded by its one-byte length.
    public let wireFormat: [UInt8]

    /// Checks and encodes `names`.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` for a name that is empty, longer than 255
    ///   bytes or holds a NUL byte (which no C library's string API can carry), or a list longer
    ///   than the extension can hold.
    public init(_ names: [String]) throws {
        var wire: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count), !bytes.contains(0) else {
                throw TLSError(.invalidConfiguration, "the ALPN protocol \"\(name)\" must be 1 to 255 bytes long, without NUL")
            }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        guard wire.count <= 65_535 else {
            throw TLSError(.invalidConfiguration, "the ALPN list is \(wire.count) bytes long; the extension holds at most 65535")
        }
        self.names = names
        wireFormat = wire
    }

    /// Whether no protocol is offered or accepted.
    public var isEmpty: Bool { names.isEmpty }

    /// A server's choice: its own most preferred protocol that the client's ProtocolNameList
    /// `offered` holds, as a range of `offered`; nil when they share none (the server then answers
    /// without ALPN). A malformed list is read up to its first bad entry.
    public func select(offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var entries: [Range<Int>] = []
        var index = 0
        while index < offered.count {
            let start = index + 1, end = start + Int(offered[index])
            guard end <= offered.count, end > start else { break }
            entries.append(start..<end)
            index = end
        }
        for name in names {
            let wanted = Array(name.utf8)
            if let match = entries.first(where: { offered[$0].elementsEqual(wanted) }) { return match }
        }
        return nil
    }
}
