/// The keyUsage a leaf needs for the purpose it is validated for.
///
/// A TLS peer's key must be usable for the handshake: a server's key signs the handshake
/// (digitalSignature) or, with RSA key transport (TLS 1.2), decrypts the premaster secret
/// (keyEncipherment), or with static ECDH agrees a key (keyAgreement); a client's key signs
/// CertificateVerify. A leaf whose keyUsage extension is present but grants none of these (only
/// `cRLSign`, say) is not a TLS certificate, whatever its extendedKeyUsage says: OpenSSL's
/// `X509_check_purpose` and BoringSSL refuse it the same way. A leaf without the extension
/// allows every usage (RFC 5280 §4.2.1.3).
///
/// Under the web-PKI profile the rule holds for every leaf validated for TLS. Under `rfc5280` it
/// holds when the leaf also has an extendedKeyUsage extension: RFC 5280 §4.2.1.12 requires the
/// two to be consistent when both are present, and says nothing of a leaf without EKU (x509-limbo's
/// `rfc5280::ca-as-leaf`: a CA certificate, keyCertSign only, is a valid leaf).
enum KeyUsageForPurpose {
    /// Why `leaf`'s keyUsage does not fit `purpose`, or nil.
    static func problem(_ leaf: Certificate, purpose: KeyPurpose, profile: ValidationProfile) -> String? {
        guard let usage = leaf.keyUsage, purpose != .any else { return nil }
        guard profile == .webPKI || leaf.extendedKeyUsage != nil else { return nil }
        let needed: KeyUsage
        switch (purpose, leaf.publicKey.algorithm) {
        case (.serverAuth, .rsa): needed = [.digitalSignature, .keyEncipherment]
        case (.serverAuth, .ec), (.clientAuth, .ec): needed = [.digitalSignature, .keyAgreement]
        default: needed = [.digitalSignature]
        }
        guard usage.isDisjoint(with: needed) else { return nil }
        let has = usage.names.joined(separator: ", ")
        return "keyUsage (\(has)) does not allow \(purpose) TLS with a \(leaf.publicKey.algorithm) key: it needs \(needed.names.joined(separator: " or "))"
    }
}
