internal import CGnuTLS
import TLSTrust

/// Owns one GnuTLS `gnutls_x509_crt_t`.
///
/// Made from DER with `gnutls_x509_crt_import`; `deinit` releases it with `gnutls_x509_crt_deinit`.
/// GnuTLS only reads a certificate once it is imported, so one instance may be read from several
/// threads at once (the anchors are, by concurrent evaluations). Raw access goes through `ref`, and
/// only inside this module.
final class GnuTLSCertificate {
    let ref: gnutls_x509_crt_t

    /// Parses exactly one DER certificate with GnuTLS (which refuses trailing bytes itself).
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` with GnuTLS's reason, or `.backendFailure`
    ///   when GnuTLS cannot even allocate the object.
    init(derEncoded der: [UInt8]) throws {
        _ = GnuTLSLibrary.initialized
        guard !der.isEmpty else {
            throw TLSTrustError(.malformedCertificate, "GnuTLS cannot parse the certificate: empty input")
        }
        guard der.count <= Int(UInt32.max) else {
            throw TLSTrustError(.malformedCertificate, "GnuTLS cannot parse the certificate: \(der.count) bytes is too long")
        }
        var made: gnutls_x509_crt_t?
        let created = gnutls_x509_crt_init(&made)
        guard created >= 0, let made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_x509_crt_init failed: \(GnuTLSLibrary.errorText(created))")
        }
        let imported = GnuTLSLibrary.withDatum(der) { gnutls_x509_crt_import(made, &$0, GNUTLS_X509_FMT_DER) }
        guard imported >= 0 else {
            gnutls_x509_crt_deinit(made)
            throw TLSTrustError(.malformedCertificate, "GnuTLS cannot parse the certificate: \(GnuTLSLibrary.errorText(imported))")
        }
        ref = made
    }

    deinit { gnutls_x509_crt_deinit(ref) }

    // MARK: Key

    /// The SubjectPublicKeyInfo as GnuTLS encodes the certificate's key (`gnutls_pubkey_export2`).
    ///
    /// GnuTLS re-encodes the key from its parameters rather than copying the certificate's bytes;
    /// for RSA, EC and EdDSA keys the encoding is canonical DER and therefore identical.
    func subjectPublicKeyInfoDER() throws -> [UInt8] {
        try GnuTLSLibrary.subjectPublicKeyInfo(of: "the certificate's public key") { gnutls_pubkey_import_x509($0, ref, 0) }
    }
}
