import TLSTrust

extension KeyUsage {
    /// The bit names in OpenSSL's extension configuration syntax, in bit order. (The profile uses
    /// the core's `KeyUsage`, so that tests compare what they asked for with what the parser read.)
    var openSSLNames: [String] {
        let names: [(KeyUsage, String)] = [
            (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
            (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
            (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
            (.encipherOnly, "encipherOnly"), (.decipherOnly, "decipherOnly"),
        ]
        return names.filter { contains($0.0) }.map(\.1)
    }
}

/// Purposes for the `extendedKeyUsage` extension (RFC 5280 §4.2.1.12).
public enum ExtendedKeyUsage: String, Sendable, Hashable, CaseIterable {
    // Raw values are OpenSSL's short names, as written in the extension configuration syntax.
    case serverAuth
    case clientAuth
    case codeSigning
    case emailProtection
    case timeStamping
    case ocspSigning = "OCSPSigning"
    case any = "anyExtendedKeyUsage"
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
