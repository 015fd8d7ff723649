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
            var pub: gnutls_pubkey_t?
            guard gnutls_pubkey_init(&pub) >= 0, let pub else {
                throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_pubkey_init failed")
            }
            defer { gnutls_pubkey_deinit(pub) }
            let derived = gnutls_pubkey_import_privkey(pub, made, 0, 0)
            guard derived >= 0 else {
                throw TLSTrustError(.malformedKey, "GnuTLS cannot derive the public key: \(GnuTLSLibrary.errorText(derived))")
            }
            var out = gnutls_datum_t(data: nil, size: 0)
            let exported = gnutls_pubkey_export2(pub, GNUTLS_X509_FMT_DER, &out)
            guard exported >= 0 else {
                throw TLSTrustError(.malformedKey, "GnuTLS cannot encode the public key: \(GnuTLSLibrary.errorText(exported))")
            }
            publicKey = try PublicKey(subjectPublicKeyInfoDER: GnuTLSLibrary.takeBytes(&out))
        } catch {
            gnutls_privkey_deinit(made)
            throw error
        }
        ref = made
    }

    deinit { gnutls_privkey_deinit(ref) }
}
