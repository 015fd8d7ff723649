/// The few DER encodings the core writes itself: an OCSP request (RFC 6960 §4.1) is the only
/// structure TLSTrust sends rather than reads. Definite, minimal lengths only. The minting kit
/// (`TLSTrustPKI`) writes its tags and lengths with it too, so that DER is written one way.
package enum DERWriter {
    package static func element(_ identifier: UInt8, _ contents: [UInt8]) -> [UInt8] {
        [identifier] + length(contents.count) + contents
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        element(DERTag.sequence, elements.flatMap { $0 })
    }

    /// The length octets for `n` contents bytes: the short form below 128, else the long form.
    package static func length(_ n: Int) -> [UInt8] {
        guard n >= 0x80 else { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var rest = n
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
