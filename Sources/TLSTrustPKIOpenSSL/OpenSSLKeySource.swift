internal import COpenSSL
import TLSTrustPKI

/// The kit's keys in OpenSSL 3 (EVP): every ``TestKeyType``, RSA of any size (odd and undersized
/// ones included, for the tests that must see them refused), the NIST curves and Ed25519.
///
/// Linking this module makes it the kit's default key source (``TestKeySources``).
public struct OpenSSLKeySource: LinkedTestKeySource {
    public init() {}

    public var name: String { "openssl" }

    public func generateKey(_ keyType: TestKeyType) throws -> any TestSigningKey {
        try OpenSSLSigningKey(keyType)
    }
}

/// A private key owned by OpenSSL for the lifetime of this object.
///
/// `@unchecked Sendable`: the only stored state is an `EVP_PKEY` that is fully generated in `init`
/// and never mutated afterwards. OpenSSL 3 allows concurrent read-only use of one `EVP_PKEY`
/// (signing, encoding) from several threads — its internal caches take their own locks — and the
/// key is freed exactly once, in `deinit`, when no reference remains.
final class OpenSSLSigningKey: TestSigningKey, @unchecked Sendable {
    let keyType: TestKeyType
    /// The owned OpenSSL key; freed in `deinit`.
    let pkey: OpaquePointer

    init(_ keyType: TestKeyType) throws {
        ERR_clear_error()
        let name: String
        switch keyType {
        case .rsa: name = "RSA"
        case .ecdsa: name = "EC"
        case .ed25519: name = "ED25519"
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw openSSLError("EVP_PKEY_CTX_new_from_name(\(name))")
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
        self.pkey = generated
    }

    deinit { EVP_PKEY_free(pkey) }

    var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    // Encoding a well-formed in-memory key has no failure mode short of memory exhaustion, so a
    // failure here is a programming error.
    var pkcs8DER: [UInt8] { try! derEncoding("i2d_PKCS8PrivateKey") { i2d_PrivateKey_to_der(pkey, $0) } }

    var subjectPublicKeyInfoDER: [UInt8] { try! derEncoding("i2d_PUBKEY") { i2d_PUBKEY(pkey, $0) } }

    /// `EVP_DigestSign`: PKCS#1 v1.5, PSS with MGF1 over the same digest and the given salt, ECDSA
    /// as a DER `Ecdsa-Sig-Value`, Ed25519 with no digest.
    func sign(_ message: [UInt8], with algorithm: TestSignatureAlgorithm) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw openSSLError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let digest: OpaquePointer? = switch algorithm.digest {
        case .sha1?: EVP_sha1()
        case .sha256?: EVP_sha256()
        case .sha384?: EVP_sha384()
        case .sha512?: EVP_sha512()
        case nil: nil
        }
        var keyContext: OpaquePointer?
        try check(EVP_DigestSignInit(context, &keyContext, digest, nil, pkey), "EVP_DigestSignInit(\(algorithm))", positive: true)
        if case .rsaPSS(_, let saltLength) = algorithm {
            try check(EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING), "set PSS padding", positive: true)
            try check(EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(saltLength)), "set PSS salt length", positive: true)
            try check(EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, digest), "set MGF1 digest", positive: true)
        }
        var length = 0
        try check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign", positive: true)
        var signature = [UInt8](repeating: 0, count: length)
        try check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign", positive: true)
        return Array(signature.prefix(length))
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
