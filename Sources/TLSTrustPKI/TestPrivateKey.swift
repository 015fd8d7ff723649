internal import COpenSSL

/// A freshly generated private key, owned for the lifetime of this object.
///
/// `@unchecked Sendable`: the only stored state is an `EVP_PKEY` that is fully generated in `init`
/// and never mutated afterwards. OpenSSL 3 allows concurrent read-only use of one `EVP_PKEY`
/// (signing, encoding) from several threads — its internal caches take their own locks — and the
/// key is freed exactly once, in `deinit`, when no reference remains.
public final class TestPrivateKey: @unchecked Sendable {
    /// The catalogue algorithm the key was generated for, or the catalogue family of `keyType`
    /// (every RSA key reports `.rsa2048`: read `keyType` where the exact size matters).
    public let algorithm: TestKeyAlgorithm
    /// The exact key type and size.
    public let keyType: TestKeyType
    /// The owned OpenSSL key; freed in `deinit`.
    let pkey: OpaquePointer

    /// Generates a new random key of a catalogue algorithm.
    public convenience init(_ algorithm: TestKeyAlgorithm) throws {
        try self.init(algorithm.keyType)
    }

    /// Generates a new random key of exactly `keyType` (RSA of any size, any NIST curve, Ed25519).
    public init(_ keyType: TestKeyType) throws {
        ERR_clear_error()
        let name: String
        switch keyType {
        case .rsa: name = "RSA"
        case .ecdsa: name = "EC"
        case .ed25519: name = "ED25519"
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw TestPKIError.openSSL("EVP_PKEY_CTX_new_from_name(\(name))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init(\(name))")
        switch keyType {
        case .rsa(let bits):
            // OpenSSL generates a modulus of exactly `bits` bits, odd sizes included.
            try check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "set RSA key size \(bits)")
        case .ecdsa(let curve):
            try check(EVP_PKEY_CTX_set_group_name(context, curve.rawValue), "set EC group \(curve.rawValue)")
        case .ed25519: break
        }
        var generated: OpaquePointer?
        try check(EVP_PKEY_generate(context, &generated), "EVP_PKEY_generate(\(keyType))")
        guard let generated else { throw TestPKIError(operation: "EVP_PKEY_generate returned no key") }
        self.keyType = keyType
        self.algorithm = keyType.catalogueFamily
        self.pkey = generated
    }

    /// The number of bits of the key (the RSA modulus size, the curve's order size), as OpenSSL reports it.
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

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
