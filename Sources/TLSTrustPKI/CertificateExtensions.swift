import TLSTrustCore

extension KeyUsage {
    /// The keyUsage extension's value: a BIT STRING with bit 0 (digitalSignature) first and the
    /// trailing zero bits left out, as DER requires for a named bit list (X.690 §11.2.2).
    /// (The profile uses the core's `KeyUsage`, so that tests compare what they asked for with what
    /// the parser read.)
    var bitStringDER: [UInt8] {
        let bits: [KeyUsage] = [
            .digitalSignature, .nonRepudiation, .keyEncipherment, .dataEncipherment,
            .keyAgreement, .keyCertSign, .cRLSign, .encipherOnly, .decipherOnly,
        ]
        let set = bits.map { contains($0) }
        guard let last = set.lastIndex(of: true) else { return DER.tlv(DER.Tag.bitString, [0]) }
        var bytes = [UInt8](repeating: 0, count: last / 8 + 1)
        for (index, isSet) in set.enumerated() where isSet { bytes[index / 8] |= 0x80 >> UInt8(index % 8) }
        let unused = UInt8(7 - last % 8)
        return DER.tlv(DER.Tag.bitString, [unused] + bytes)
    }
}

/// Purposes for the `extendedKeyUsage` extension (RFC 5280 §4.2.1.12).
public enum ExtendedKeyUsage: String, Sendable, Hashable, CaseIterable {
    // Raw values are OpenSSL's short names, as written in its extension configuration syntax.
    case serverAuth
    case clientAuth
    case codeSigning
    case emailProtection
    case timeStamping
    case ocspSigning = "OCSPSigning"
    case any = "anyExtendedKeyUsage"

    /// The KeyPurposeId's dotted OID.
    public var oid: String {
        switch self {
        case .serverAuth: "1.3.6.1.5.5.7.3.1"
        case .clientAuth: "1.3.6.1.5.5.7.3.2"
        case .codeSigning: "1.3.6.1.5.5.7.3.3"
        case .emailProtection: "1.3.6.1.5.5.7.3.4"
        case .timeStamping: "1.3.6.1.5.5.7.3.8"
        case .ocspSigning: "1.3.6.1.5.5.7.3.9"
        case .any: "2.5.29.37.0"
        }
    }
}

/// The digest a certificate's issuer signs with.
///
/// SHA-1 exists only to mint certificates that a validator must reject as weakly signed.
public enum SignatureDigest: String, Sendable, Hashable, CaseIterable {
    case sha1
    case sha256
    case sha384
    case sha512
}
