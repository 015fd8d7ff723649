internal import COpenSSL
import TLSTrust

extension TestPrivateKey {
    /// Signs `message` with this key under `scheme`, as a certificate issuer would (OpenSSL's
    /// `EVP_DigestSign`): PKCS#1 v1.5, RSA-PSS with MGF1 over the same digest and a salt as long as
    /// the digest (the only PSS parameters the engine accepts), ECDSA as a DER `Ecdsa-Sig-Value`,
    /// Ed25519 over the message itself.
    ///
    /// For signature vectors minted at test time (the backend conformance kit), where a certificate
    /// cannot carry the scheme (RSA-PSS) or a bare message is wanted.
    /// - Parameter saltLength: the PSS salt length, when a test needs a wrong one (default: the digest's length).
    /// - Throws: `TestPKIError` when OpenSSL refuses (a scheme that does not fit the key, say).
    public func signature(over message: [UInt8], scheme: SignatureScheme, saltLength: Int? = nil) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw TestPKIError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let digest: OpaquePointer? = switch scheme.digest {
        case .sha256?: EVP_sha256()
        case .sha384?: EVP_sha384()
        case .sha512?: EVP_sha512()
        case nil: nil
        }
        var keyContext: OpaquePointer?
        try check(EVP_DigestSignInit(context, &keyContext, digest, nil, pkey), "EVP_DigestSignInit(\(scheme))", positive: true)
        if case .rsaPSS(let d) = scheme {
            try check(EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING), "set PSS padding", positive: true)
            try check(EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(saltLength ?? d.length)), "set PSS salt length", positive: true)
            try check(EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, digest), "set MGF1 digest", positive: true)
        }
        var length = 0
        try check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign", positive: true)
        var signature = [UInt8](repeating: 0, count: length)
        try check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign", positive: true)
        return Array(signature.prefix(length))
    }
}
