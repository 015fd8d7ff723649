internal import CGnuTLS
import TLSTrust

/// Owns one GnuTLS `gnutls_privkey_t` (the abstract key TLS credentials take), for a client identity.
///
/// Made from a `gnutls_x509_privkey_t` GnuTLS handed us, imported with
/// `GNUTLS_PRIVKEY_IMPORT_AUTO_RELEASE` so that one `gnutls_privkey_deinit` in `deinit` frees both.
final class GnuTLSPrivateKey: PrivateKeyHandle, @unchecked Sendable {  // only read after init
    let ref: gnutls_privkey_t
    let publicKey: PublicKey

    /// Takes ownership of `x509Key`, which is freed even when this throws.
    init(takingOwnership x509Key: gnutls_x509_privkey_t) throws {
        var made: gnutls_privkey_t?
        guard gnutls_privkey_init(&made) >= 0, let made else {
            gnutls_x509_privkey_deinit(x509Key)
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_privkey_init failed")
        }
        let imported = gnutls_privkey_import_x509(made, x509Key, UInt32(GNUTLS_PRIVKEY_IMPORT_AUTO_RELEASE.rawValue))
        guard imported >= 0 else {
            gnutls_privkey_deinit(made)
            gnutls_x509_privkey_deinit(x509Key)
            throw TLSTrustError(.malformedKey, "GnuTLS cannot use the private key: \(GnuTLSLibrary.errorText(imported))")
        }
        do {
            let spki = try GnuTLSLibrary.subjectPublicKeyInfo(of: "the private key's public key") {
                gnutls_pubkey_import_privkey($0, made, 0, 0)
            }
            publicKey = try PublicKey(subjectPublicKeyInfoDER: spki)
        } catch {
            gnutls_privkey_deinit(made)
            throw error
        }
        ref = made
    }

    deinit { gnutls_privkey_deinit(ref) }
}
