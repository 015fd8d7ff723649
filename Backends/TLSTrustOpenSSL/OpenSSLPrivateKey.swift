internal import COpenSSL
import TLSTrust

/// Owns one OpenSSL `EVP_PKEY*` holding a private key, for a client identity.
///
/// Made with `takingOwnership:` from a key OpenSSL handed us (`PKCS12_parse`,
/// `PEM_read_bio_PrivateKey`), whose only reference we then hold; `deinit` drops it.
final class OpenSSLPrivateKey: PrivateKeyHandle, @unchecked Sendable {  // EVP_PKEY is only read after init
    let ref: OpaquePointer
    let publicKey: PublicKey

    /// - Throws: `TLSTrustError` `.malformedKey` when OpenSSL cannot encode the public half; the
    ///   key is freed in that case too.
    init(takingOwnership pkey: OpaquePointer) throws {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else {
            EVP_PKEY_free(pkey)
            throw TLSTrustError(.malformedKey, "OpenSSL cannot encode the private key's public half: \(OpenSSLLibrary.drainErrors())")
        }
        defer { CRYPTO_free(out, #fileID, #line) }
        do {
            publicKey = try PublicKey(subjectPublicKeyInfoDER: Array(UnsafeBufferPointer(start: out, count: Int(length))))
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        ref = pkey
    }

    deinit { EVP_PKEY_free(ref) }
}
