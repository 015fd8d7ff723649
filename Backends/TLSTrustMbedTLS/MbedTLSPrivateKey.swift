internal import CMbedTLS
import TLSTrust

/// Owns one `mbedtls_pk_context` holding a private key, for a client identity.
///
/// Filled by `mbedtls_pk_parse_key` (PEM or DER; PKCS#1, SEC1, PKCS#8, and encrypted PKCS#8 with
/// PKCS#12 PBE or PBES2 when given a password); `deinit` frees it.
final class MbedTLSPrivateKey: PrivateKeyHandle, @unchecked Sendable {  // only read after init
    let pk: UnsafeMutablePointer<mbedtls_pk_context>
    let publicKey: PublicKey

    /// Parses `key` (PEM text must end with a NUL byte, which this adds) with `password`.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword` (mbedTLS's PASSWORD_MISMATCH / REQUIRED),
    ///   `.malformedKey` otherwise.
    init(parsing key: [UInt8], password: String?) throws {
        if let reason = mbedTLSLibrary.unusableReason { throw TLSTrustError(.backendFailure, reason) }
        var input = key
        if String(decoding: input.prefix(4096), as: UTF8.self).contains("-----BEGIN"), input.last != 0 { input.append(0) }  // PEM: mbedTLS wants the NUL counted
        defer { IdentityPassword.wipe(&input) }
        let pk = UnsafeMutablePointer<mbedtls_pk_context>.allocate(capacity: 1)
        mbedtls_pk_init(pk)
        let parsed: Int32 = input.withUnsafeBufferPointer { buffer in
            if let password {
                return IdentityPassword.withWipedCString(password) { pass, length in
                    pass.withMemoryRebound(to: UInt8.self, capacity: length + 1) {
                        mbedtls_pk_parse_key(pk, buffer.baseAddress, buffer.count, $0, length)
                    }
                }
            }
            return mbedtls_pk_parse_key(pk, buffer.baseAddress, buffer.count, nil, 0)
        }
        guard parsed == 0 else {
            mbedtls_pk_free(pk)
            pk.deallocate()
            if parsed == MBEDTLS_ERR_PK_PASSWORD_MISMATCH || parsed == MBEDTLS_ERR_PK_PASSWORD_REQUIRED {
                throw TLSTrustError(.wrongPassword, "mbedTLS cannot decrypt the private key with \(password == nil ? "no password" : "this password"): \(MbedTLSLibrary.errorText(parsed))")
            }
            throw TLSTrustError(.malformedKey, "mbedTLS cannot read the private key: \(MbedTLSLibrary.errorText(parsed))")
        }
        // One identity signs in many handshakes at once: compute an EC key's comb table now, while
        // the key is private to this thread, so that signing never writes to the shared key.
        let warmed = CMbedTLS_warm_up_key(pk)
        guard warmed == 0 else {
            mbedtls_pk_free(pk)
            pk.deallocate()
            throw TLSTrustError(.malformedKey, "mbedTLS cannot use the private key's curve: \(MbedTLSLibrary.errorText(warmed))")
        }
        // mbedtls_pk_write_pubkey_der writes at the end of the buffer and returns the length.
        var buffer = [UInt8](repeating: 0, count: 2048)
        let written = buffer.withUnsafeMutableBufferPointer { mbedtls_pk_write_pubkey_der(pk, $0.baseAddress, $0.count) }
        guard written > 0 else {
            mbedtls_pk_free(pk)
            pk.deallocate()
            throw TLSTrustError(.malformedKey, "mbedTLS cannot encode the private key's public half: \(MbedTLSLibrary.errorText(written))")
        }
        do {
            publicKey = try PublicKey(subjectPublicKeyInfoDER: Array(buffer.suffix(Int(written))))
        } catch {
            mbedtls_pk_free(pk)
            pk.deallocate()
            throw error
        }
        self.pk = pk
    }

    deinit {
        mbedtls_pk_free(pk)
        pk.deallocate()
    }
}
