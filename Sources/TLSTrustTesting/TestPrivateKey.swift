internal import COpenSSL

/// A freshly generated private key, owned for the lifetime of this object.
///
/// `@unchecked Sendable`: the only stored state is an `EVP_PKEY` that is fully generated in `init`
/// and never mutated afterwards. OpenSSL 3 allows concurrent read-only use of one `EVP_PKEY`
/// (signing, encoding) from several threads — its internal caches take their own locks — and the
/// key is freed exactly once, in `deinit`, when no reference remains.
public final class TestPrivateKey: @unchecked Sendable {
    /// The algorithm the key was generated for.
    public let algorithm: TestKeyAlgorithm
    /// The owned OpenSSL key; freed in `deinit`.
    let pkey: OpaquePointer

    /// Generates a new random key.
    public init(_ algorithm: TestKeyAlgorithm) throws {
        ERR_clear_error()
        let name: String
        switch algorithm {
        case .rsa2048: name = "RSA"
        case .ecdsaP256, .ecdsaP384: name = "EC"
        case .ed25519: name = "ED25519"
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw TestPKIError.openSSL("EVP_PKEY_CTX_new_from_name(\(name))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init(\(name))")
        switch algorithm {
        case .rsa2048: try check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048), "set RSA key size")
        case .ecdsaP256: try check(EVP_PKEY_CTX_set_group_name(context, "P-256"), "set EC group P-256")
        case .ecdsaP384: try check(EVP_PKEY_CTX_set_group_name(context, "P-384"), "set EC group P-384")
        case .ed25519: break
        }
        var generated: OpaquePointer?
        try check(EVP_PKEY_generate(context, &generated), "EVP_PKEY_generate(\(algorithm))")
        guard let generated else { throw TestPKIError(operation: "EVP_PKEY_generate returned no key") }
        self.algorithm = algorithm
        self.pkey = generated
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form every
    /// TLS library and the `openssl` tool load without a passphrase.
    public var pkcs8PEM: String {
        // Encoding a well-formed in-memory key into a memory BIO has no failure mode short of
        // memory exhaustion, so a failure here is a programming error.
        try! withMemoryBIO { bio in
            try check(PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil), "PEM_write_bio_PrivateKey")
        }
    }

    /// The private key as PKCS#8 `PrivateKeyInfo` DER.
    public var pkcs8DER: [UInt8] {
        try! derEncoding("i2d_PKCS8PrivateKey") { i2d_PrivateKey_to_der(pkey, $0) }
    }

    /// The public half as DER `SubjectPublicKeyInfo`, as it appears inside the certificate; handy
    /// for comparing with a backend's public-key extraction or for building pins.
    public var subjectPublicKeyInfoDER: [UInt8] {
        try! derEncoding("i2d_PUBKEY") { i2d_PUBKEY(pkey, $0) }
    }
}

/// PKCS#8 DER of a private key (`i2d_PrivateKey` writes the legacy per-algorithm form; going
/// through `PKCS8_PRIV_KEY_INFO` gives the algorithm-independent one).
private func i2d_PrivateKey_to_der(
    _ pkey: OpaquePointer, _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
) -> Int32 {
    guard let info = EVP_PKEY2PKCS8(pkey) else { return -1 }
    defer { PKCS8_PRIV_KEY_INFO_free(info) }
    return i2d_PKCS8_PRIV_KEY_INFO(info, out)
}
