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
        var key: gnutls_pubkey_t?
        let created = gnutls_pubkey_init(&key)
        guard created >= 0, let key else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_pubkey_init failed: \(GnuTLSLibrary.errorText(created))")
        }
        defer { gnutls_pubkey_deinit(key) }
        let imported = gnutls_pubkey_import_x509(key, ref, 0)
        guard imported >= 0 else {
            throw TLSTrustError(.malformedKey, "GnuTLS cannot read the certificate's public key: \(GnuTLSLibrary.errorText(imported))")
        }
        var out = gnutls_datum_t(data: nil, size: 0)
        let exported = gnutls_pubkey_export2(key, GNUTLS_X509_FMT_DER, &out)
        guard exported >= 0 else {
            throw TLSTrustError(.malformedKey, "GnuTLS cannot encode the public key: \(GnuTLSLibrary.errorText(exported))")
        }
        return GnuTLSLibrary.takeBytes(&out)
    }

    /// GnuTLS's security estimate for the subject key reaches `level` (`gnutls_pk_bits_to_sec_param`).
    func keyReaches(_ level: gnutls_sec_param_t) -> Bool {
        var bits: UInt32 = 0
        let algorithm = gnutls_x509_crt_get_pk_algorithm(ref, &bits)
        guard algorithm > 0 else { return false }
        let estimate = gnutls_pk_bits_to_sec_param(gnutls_pk_algorithm_t(rawValue: UInt32(algorithm)), bits)
        return estimate.rawValue >= level.rawValue
    }

    // MARK: Signature

    /// The algorithm of this certificate's own signature, or nil when GnuTLS does not know it.
    var signatureAlgorithm: gnutls_sign_algorithm_t? {
        let value = gnutls_x509_crt_get_signature_algorithm(ref)
        guard value > 0 else { return nil }
        return gnutls_sign_algorithm_t(rawValue: UInt32(value))
    }

    /// The security strength of this certificate's signature, in bits: half the digest size, as
    /// both GnuTLS's verification profiles and OpenSSL's security levels count it (so SHA-1 gives
    /// 80 and fails a 112-bit requirement). EdDSA signatures carry their own strength.
    var signatureSecurityBits: Int {
        guard let algorithm = signatureAlgorithm else { return 0 }
        switch gnutls_sign_get_pk_algorithm(algorithm) {
        case GNUTLS_PK_EDDSA_ED25519: return 128
        case GNUTLS_PK_EDDSA_ED448: return 224
        default: return Int(gnutls_hash_get_len(gnutls_sign_get_hash_algorithm(algorithm))) * 4
        }
    }

    /// Flags that make `gnutls_x509_crt_verify` check nothing but the signature itself: dates,
    /// CA status, algorithm strength and critical extensions are judged separately, per certificate.
    private static let signatureOnlyFlags: UInt32 =
        GNUTLS_VERIFY_DISABLE_TIME_CHECKS.rawValue | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS.rawValue
        | GNUTLS_VERIFY_DISABLE_CA_SIGN.rawValue | GNUTLS_VERIFY_ALLOW_SIGN_WITH_SHA1.rawValue
        | GNUTLS_VERIFY_ALLOW_SIGN_RSA_MD2.rawValue | GNUTLS_VERIFY_ALLOW_SIGN_RSA_MD5.rawValue
        | GNUTLS_VERIFY_DISABLE_CRL_CHECKS.rawValue | GNUTLS_VERIFY_IGNORE_UNKNOWN_CRIT_EXTENSIONS.rawValue

    /// Whether `issuer`'s key verifies this certificate's signature, by GnuTLS's own certificate
    /// verification (which also honours RSA-PSS parameters) restricted to the signature.
    ///
    /// - Returns: nil when the signature verifies, otherwise GnuTLS's status or error text.
    func signatureFailure(issuedBy issuer: GnuTLSCertificate) -> (nativeCode: Int, text: String)? {
        var authorities: [gnutls_x509_crt_t?] = [issuer.ref]
        var status: UInt32 = 0
        let result = gnutls_x509_crt_verify(ref, &authorities, 1, Self.signatureOnlyFlags, &status)
        guard result >= 0 else { return (Int(result), GnuTLSLibrary.errorText(result)) }
        // Name constraints of the issuer are still applied by this call; they are judged on their own.
        let unrelated = GnuTLSVerifyErrors.signerConstraintsFailure | GnuTLSVerifyErrors.invalid
        if status & GnuTLSVerifyErrors.signatureFailure != 0 || status & ~unrelated != 0 {
            return (Int(GnuTLSVerifyErrors.signatureFailure), GnuTLSVerifyErrors.text(GnuTLSVerifyErrors.signatureFailure))
        }
        if status == GnuTLSVerifyErrors.invalid {
            // Invalid without a reason: GnuTLS could not check the signature at all (an unsupported
            // algorithm or malformed signature parameters). That is not a verified signature.
            return (Int(status), GnuTLSVerifyErrors.fullText(status) + " (the signature could not be checked)")
        }
        return nil
    }

    // MARK: Issuer relationship

    /// Whether `issuer` plausibly issued this certificate: GnuTLS's `gnutls_x509_crt_check_issuer`
    /// (issuer name equals the candidate's subject, and the authority key identifier, when both are
    /// present, equals the candidate's subject key identifier), and the signature algorithm fits the
    /// candidate's key type. The signature itself is checked later, as OpenSSL's path building does
    /// (`ossl_x509_likely_issued`).
    func isLikelyIssued(by issuer: GnuTLSCertificate) -> Bool {
        guard gnutls_x509_crt_check_issuer(ref, issuer.ref) != 0 else { return false }
        guard let algorithm = signatureAlgorithm else { return true }
        let signatureKey = gnutls_sign_get_pk_algorithm(algorithm)
        var bits: UInt32 = 0
        let issuerKey = gnutls_x509_crt_get_pk_algorithm(issuer.ref, &bits)
        guard signatureKey.rawValue > 0, issuerKey > 0 else { return true }
        if signatureKey.rawValue == UInt32(issuerKey) { return true }
        // An RSA key may sign with RSA-PSS.
        return signatureKey == GNUTLS_PK_RSA_PSS && UInt32(issuerKey) == GNUTLS_PK_RSA.rawValue
    }

    /// Self-signed in OpenSSL's sense (`X509_self_signed(x, 0)`): it is plausibly its own issuer.
    var isSelfSigned: Bool { isLikelyIssued(by: self) }

    // MARK: Validity

    /// notBefore as Unix seconds, as GnuTLS reads it; nil when GnuTLS cannot read it.
    var activationTime: Int64? {
        let t = gnutls_x509_crt_get_activation_time(ref)
        return t == -1 ? nil : Int64(t)
    }

    /// notAfter as Unix seconds, as GnuTLS reads it; nil when GnuTLS cannot read it.
    var expirationTime: Int64? {
        let t = gnutls_x509_crt_get_expiration_time(ref)
        return t == -1 ? nil : Int64(t)
    }

    /// Valid at `time` by OpenSSL's rule (`X509_cmp_time`): notBefore ≤ time < notAfter.
    func isValid(at time: Int64) -> Bool {
        guard let notBefore = activationTime, let notAfter = expirationTime else { return false }
        return notBefore <= time && time < notAfter
    }
}
