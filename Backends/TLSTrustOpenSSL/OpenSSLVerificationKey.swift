internal import COpenSSL
import TLSTrust

/// A subject public key imported into OpenSSL once (`d2i_PUBKEY` → `EVP_PKEY`), for the engine's
/// signature checks.
///
/// Thread safety: OpenSSL 3 lets many threads use one `EVP_PKEY` at once as long as none modifies
/// it (openssl-threads(7)); every call here makes its own `EVP_MD_CTX` / `EVP_PKEY_CTX` and only
/// reads the key, so the object is shared read-only.
final class OpenSSLVerificationKey: SignatureVerificationKey, @unchecked Sendable {  // EVP_PKEY is only read after init
    private let pkey: OpaquePointer
    /// The key's type, read once from the `EVP_PKEY` (nil for one no accepted algorithm uses), to
    /// answer `false` for a scheme that does not fit the key without asking OpenSSL.
    let keyType: SignatureKeyType?

    /// Imports a DER SubjectPublicKeyInfo.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when OpenSSL does not know the key's algorithm,
    ///   `.malformedKey` when it cannot decode the key (with OpenSSL's reason).
    init(_ key: PublicKey) throws {
        _ = OpenSSLLibrary.initialized
        let der = key.subjectPublicKeyInfoDER
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let made = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - base }
            return made
        }
        guard let parsed else {
            let reason = OpenSSLLibrary.drainErrors()
            if case .other = key.algorithm {
                throw TLSTrustError(.unsupported, "OpenSSL does not support this key (\(key.algorithm)): \(reason)")
            }
            throw TLSTrustError(.malformedKey, "OpenSSL cannot decode the public key (\(key.algorithm)): \(reason)")
        }
        guard consumed == der.count else {
            EVP_PKEY_free(parsed)
            throw TLSTrustError(.malformedKey, "OpenSSL: \(der.count - consumed) trailing bytes after the public key")
        }
        pkey = parsed
        switch EVP_PKEY_get_base_id(parsed) {
        case EVP_PKEY_RSA: keyType = .rsa
        case EVP_PKEY_RSA_PSS: keyType = .rsaPSS
        case EVP_PKEY_EC: keyType = .ec
        case EVP_PKEY_ED25519: keyType = .ed25519
        default: keyType = nil
        }
    }

    deinit { EVP_PKEY_free(pkey) }

    private static func digest(_ algorithm: DigestAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    /// One `EVP_DigestVerify` over `message`: PKCS#1 v1.5, PSS (MGF1 with the same digest, salt as
    /// long as the digest), ECDSA (DER signature), or Ed25519 (one-shot, no digest).
    ///
    /// - Returns: false for a wrong, empty or undecodable signature and for a scheme that does not
    ///   fit this key.
    /// - Throws: `TLSTrustError` `.backendFailure` when OpenSSL cannot set up the operation (with
    ///   OpenSSL's reason); never for a bad signature.
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
        // Whether the scheme can be computed with this key at all is the engine's list's answer.
        guard let keyType, scheme.fits(keyType), !signature.isEmpty else { return false }
        guard let ctx = EVP_MD_CTX_new() else {
            throw TLSTrustError(.backendFailure, "OpenSSL: EVP_MD_CTX_new failed: \(OpenSSLLibrary.drainErrors())")
        }
        defer { EVP_MD_CTX_free(ctx) }

        let md = scheme.digest.flatMap(Self.digest)  // nil for pure EdDSA: OpenSSL must be given no digest
        var pctx: OpaquePointer?  // owned by ctx
        guard EVP_DigestVerifyInit(ctx, &pctx, md, nil, pkey) == 1 else {
            let reason = OpenSSLLibrary.drainErrors()
            // An id-RSASSA-PSS key restricted to another digest refuses the set-up: no valid signature.
            if keyType == .rsaPSS { return false }
            throw TLSTrustError(.backendFailure, "OpenSSL: EVP_DigestVerifyInit for \(scheme) failed: \(reason)")
        }
        if case .rsaPSS(let d) = scheme {
            guard let pctx,
                  EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, Int32(d.length)) == 1
            else {
                // An RSA-PSS key restricted to other parameters refuses these: no valid signature.
                _ = OpenSSLLibrary.drainErrors()
                return false
            }
        }

        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { tbs in
                // An empty message still gets a valid pointer (OpenSSL reads zero bytes from it).
                withUnsafePointer(to: 0 as UInt8) { empty in
                    EVP_DigestVerify(ctx, sig.baseAddress, sig.count, tbs.baseAddress ?? empty, tbs.count)
                }
            }
        }
        // 0 = wrong signature, < 0 = undecodable signature: both leave errors on this thread's queue.
        _ = OpenSSLLibrary.drainErrors()
        return result == 1
    }
}
