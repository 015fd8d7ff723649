internal import CGnuTLS
import TLSTrust

/// A subject public key imported into GnuTLS once (`gnutls_pubkey_import_rsa_raw` from the numbers
/// the core parsed for rsaEncryption keys, `gnutls_pubkey_import` of the DER for others), for the engine's
/// signature checks with `gnutls_pubkey_verify_data2`.
///
/// Thread safety: GnuTLS only reads a public key while verifying (`gnutls_pubkey_verify_data2`
/// copies the SPKI parameters it adjusts onto its own stack and converts the key into per-call
/// nettle structures), so one imported key is shared read-only by every thread.
final class GnuTLSVerificationKey: SignatureVerificationKey, @unchecked Sendable {  // gnutls_pubkey_t is only read after init
    private let key: gnutls_pubkey_t
    /// The key's algorithm as GnuTLS sees it (`GNUTLS_PK_RSA`, `GNUTLS_PK_RSA_PSS`, `GNUTLS_PK_ECDSA`, …).
    private let algorithm: gnutls_pk_algorithm_t

    /// Imports a DER SubjectPublicKeyInfo.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when GnuTLS does not know the key's algorithm or
    ///   curve, `.malformedKey` when it cannot decode the key (with GnuTLS's reason).
    init(_ publicKey: PublicKey) throws {
        guard GnuTLSLibrary.initialized else {
            throw TLSTrustError(.backendFailure, "GnuTLS failed to initialise (gnutls_global_init)")
        }
        var made: gnutls_pubkey_t?
        let created = gnutls_pubkey_init(&made)
        guard created >= 0, let made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_pubkey_init failed: \(GnuTLSLibrary.errorText(created))")
        }
        let imported: Int32
        if let numbers = publicKey.rsaPublicNumbers {
            // The numbers the core's parser already read: GnuTLS's own DER import (libtasn1 builds
            // and walks a tree of the SPKI) costs about as much again as the rest of a cold
            // evaluation's bookkeeping. gnutls_pubkey_import_rsa_raw makes a GNUTLS_PK_RSA key from
            // the same numbers (the conformance kit's vectors verify with it); the core has already
            // refused zero, negative and padded ones.
            imported = GnuTLSLibrary.withDatum(numbers.modulus) { m in
                GnuTLSLibrary.withDatum(numbers.exponent) { e in gnutls_pubkey_import_rsa_raw(made, &m, &e) }
            }
        } else {
            imported = GnuTLSLibrary.withDatum(publicKey.subjectPublicKeyInfoDER) { gnutls_pubkey_import(made, &$0, GNUTLS_X509_FMT_DER) }
        }
        guard imported >= 0 else {
            gnutls_pubkey_deinit(made)
            let reason = GnuTLSLibrary.errorText(imported)
            switch imported {
            case GNUTLS_E_UNKNOWN_PK_ALGORITHM, GNUTLS_E_UNKNOWN_ALGORITHM, GNUTLS_E_ECC_UNSUPPORTED_CURVE, GNUTLS_E_UNIMPLEMENTED_FEATURE:
                throw TLSTrustError(.unsupported, "GnuTLS does not support this key (\(publicKey.algorithm)): \(reason)")
            default:
                throw TLSTrustError(.malformedKey, "GnuTLS cannot decode the public key (\(publicKey.algorithm)): \(reason)")
            }
        }
        var bits: UInt32 = 0
        let algorithm = gnutls_pubkey_get_pk_algorithm(made, &bits)
        key = made
        self.algorithm = gnutls_pk_algorithm_t(rawValue: UInt32(max(algorithm, 0)))
    }

    deinit { gnutls_pubkey_deinit(key) }

    /// GnuTLS's signature algorithm for `scheme`, which the engine has matched to this key's type.
    /// PSS under an rsaEncryption key is GnuTLS's "RSAE" variant; under an id-RSASSA-PSS key it is
    /// the plain `RSA_PSS` one.
    private func signAlgorithm(_ scheme: SignatureScheme) -> gnutls_sign_algorithm_t {
        // A switch, not a dictionary literal per call: this runs on every signature check.
        switch scheme {
        case .rsaPKCS1v15(let d):
            switch d {
            case .sha256: return GNUTLS_SIGN_RSA_SHA256
            case .sha384: return GNUTLS_SIGN_RSA_SHA384
            case .sha512: return GNUTLS_SIGN_RSA_SHA512
            }
        case .rsaPSS(let d) where algorithm == GNUTLS_PK_RSA_PSS:
            switch d {
            case .sha256: return GNUTLS_SIGN_RSA_PSS_SHA256
            case .sha384: return GNUTLS_SIGN_RSA_PSS_SHA384
            case .sha512: return GNUTLS_SIGN_RSA_PSS_SHA512
            }
        case .rsaPSS(let d):
            switch d {
            case .sha256: return GNUTLS_SIGN_RSA_PSS_RSAE_SHA256
            case .sha384: return GNUTLS_SIGN_RSA_PSS_RSAE_SHA384
            case .sha512: return GNUTLS_SIGN_RSA_PSS_RSAE_SHA512
            }
        case .ecdsa(let d):
            switch d {
            case .sha256: return GNUTLS_SIGN_ECDSA_SHA256
            case .sha384: return GNUTLS_SIGN_ECDSA_SHA384
            case .sha512: return GNUTLS_SIGN_ECDSA_SHA512
            }
        case .ed25519:
            return GNUTLS_SIGN_EDDSA_ED25519
        }
    }

    /// `GNUTLS_VERIFY_RSA_PSS_FIXED_SALT_LENGTH`: a PSS signature must use a salt exactly as long as
    /// the digest, as `SignatureScheme/rsaPSS(_:)` defines. GnuTLS 3.7.9 already derives that salt
    /// length from the digest when it verifies with a sign algorithm (a 20-byte salt failed with and
    /// without the flag); the flag states the requirement instead of relying on that.
    private static let flags = GNUTLS_VERIFY_RSA_PSS_FIXED_SALT_LENGTH.rawValue

    /// One `gnutls_pubkey_verify_data2` over `message`.
    ///
    /// - Returns: false for a wrong, empty or undecodable signature and for a scheme that does not
    ///   fit this key.
    /// - Throws: `TLSTrustError` `.unsupported` when GnuTLS refuses the algorithm itself (not built
    ///   in, or disabled by the system's crypto policy), `.backendFailure` when it runs out of memory.
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
        guard !signature.isEmpty else { return false }
        let sign = signAlgorithm(scheme)
        guard message.count <= Int(UInt32.max), signature.count <= Int(UInt32.max) else {
            throw TLSTrustError(.unsupported, "GnuTLS cannot verify a signature over more than 4 GiB (gnutls_datum_t is 32-bit)")
        }
        let result = GnuTLSLibrary.withDatum(signature) { sig in
            GnuTLSLibrary.withDatum(message) { data in
                gnutls_pubkey_verify_data2(key, sign, Self.flags, &data, &sig)
            }
        }
        if result >= 0 { return true }
        switch result {
        case GNUTLS_E_UNSUPPORTED_SIGNATURE_ALGORITHM, GNUTLS_E_UNIMPLEMENTED_FEATURE, GNUTLS_E_INSUFFICIENT_SECURITY:
            throw TLSTrustError(.unsupported, "GnuTLS cannot verify \(scheme): \(GnuTLSLibrary.errorText(result))")
        case GNUTLS_E_MEMORY_ERROR:
            throw TLSTrustError(.backendFailure, "GnuTLS: \(GnuTLSLibrary.errorText(result))")
        default:
            // GNUTLS_E_PK_SIG_VERIFY_FAILED, an undecodable signature, a key/scheme mismatch.
            return false
        }
    }
}
