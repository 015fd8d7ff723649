internal import CGnuTLS
import TLSTrust

extension GnuTLSTrustBackend {
    /// Imports a PKCS#12 file: `gnutls_pkcs12_import`, then `gnutls_pkcs12_verify_mac` (a failing
    /// MAC is a wrong password), then `gnutls_pkcs12_simple_parse` for the key and its chain.
    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        try KeyDerivationBudget.checkPKCS12(data)
        _ = GnuTLSLibrary.initialized
        guard !data.isEmpty, data.count <= Int(UInt32.max) else {
            throw TLSTrustError(.malformedPKCS12, "GnuTLS cannot read the PKCS#12 file: \(data.isEmpty ? "empty input" : "too long")")
        }
        var made: gnutls_pkcs12_t?
        guard gnutls_pkcs12_init(&made) >= 0, let p12 = made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_pkcs12_init failed")
        }
        defer { gnutls_pkcs12_deinit(p12) }
        let imported = GnuTLSLibrary.withDatum(data) { gnutls_pkcs12_import(p12, &$0, GNUTLS_X509_FMT_DER, 0) }
        guard imported >= 0 else {
            throw TLSTrustError(.malformedPKCS12, "GnuTLS cannot read the PKCS#12 file: \(GnuTLSLibrary.errorText(imported))")
        }

        var key: gnutls_x509_privkey_t?
        var chain: UnsafeMutablePointer<gnutls_x509_crt_t?>?
        var chainCount: UInt32 = 0
        var extra: UnsafeMutablePointer<gnutls_x509_crt_t?>?
        var extraCount: UInt32 = 0
        let parsed: Int32 = try IdentityPassword.withWipedCString(password) { pass, _ in
            let mac = gnutls_pkcs12_verify_mac(p12, pass)
            if mac == GNUTLS_E_MAC_VERIFY_FAILED {
                throw TLSTrustError(.wrongPassword, "GnuTLS: the PKCS#12 MAC does not verify with this password (\(GnuTLSLibrary.errorText(mac)))")
            } else if mac < 0 {
                throw TLSTrustError(.malformedPKCS12, "GnuTLS cannot verify the PKCS#12 MAC: \(GnuTLSLibrary.errorText(mac))")
            }
            return gnutls_pkcs12_simple_parse(p12, pass, &key, &chain, &chainCount, &extra, &extraCount, nil, 0)
        }
        var certificates: [Certificate] = []
        var conversionError: Error?
        func collect(_ list: UnsafeMutablePointer<gnutls_x509_crt_t?>?, _ count: UInt32) {
            guard let list else { return }
            for i in 0..<Int(count) {
                guard let crt = list[i] else { continue }
                var out = gnutls_datum_t(data: nil, size: 0)
                if gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &out) >= 0 {
                    do { certificates.append(try Certificate(derEncoded: GnuTLSLibrary.takeBytes(&out))) } catch { conversionError = error }
                }
                gnutls_x509_crt_deinit(crt)
            }
            CGnuTLS_free(list)
        }
        collect(chain, chainCount)
        collect(extra, extraCount)
        if parsed == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE {
            if let key { gnutls_x509_privkey_deinit(key) }
            throw TLSTrustError(.noPrivateKey, "the PKCS#12 file holds no private key (GnuTLS: \(GnuTLSLibrary.errorText(parsed)))")
        }
        guard parsed >= 0 else {
            if let key { gnutls_x509_privkey_deinit(key) }
            throw TLSTrustError(.malformedPKCS12, "GnuTLS cannot decode the PKCS#12 contents: \(GnuTLSLibrary.errorText(parsed))")
        }
        if let conversionError {
            if let key { gnutls_x509_privkey_deinit(key) }
            throw conversionError
        }
        guard let key else {
            throw TLSTrustError(.noPrivateKey, "the PKCS#12 file holds no private key (\(certificates.count) certificates)")
        }
        return try ClientIdentity(privateKey: try GnuTLSPrivateKey(takingOwnership: key), certificates: certificates)
    }

    /// Imports a PEM chain (with the core's PEM reader) and a PEM private key with
    /// `gnutls_x509_privkey_import2` (PKCS#8, encrypted PKCS#8, traditional RSA/EC keys).
    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        try KeyDerivationBudget.checkEncryptedPrivateKeyPEM(privateKeyPEM)
        _ = GnuTLSLibrary.initialized
        let certificates = try Certificate.certificates(pemOrDER: certificateChainPEM)
        let text = String(decoding: privateKeyPEM, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw TLSTrustError(.noPrivateKey, "the key PEM holds no PRIVATE KEY block")
        }
        guard privateKeyPEM.count <= Int(UInt32.max) else {
            throw TLSTrustError(.malformedKey, "GnuTLS: the key PEM is too long")
        }
        var made: gnutls_x509_privkey_t?
        guard gnutls_x509_privkey_init(&made) >= 0, let key = made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_x509_privkey_init failed")
        }
        let status: Int32
        if let password {
            status = IdentityPassword.withWipedCString(password) { pass, _ in
                GnuTLSLibrary.withDatum(privateKeyPEM) { gnutls_x509_privkey_import2(key, &$0, GNUTLS_X509_FMT_PEM, pass, 0) }
            }
        } else {
            status = GnuTLSLibrary.withDatum(privateKeyPEM) { gnutls_x509_privkey_import2(key, &$0, GNUTLS_X509_FMT_PEM, nil, 0) }
        }
        guard status >= 0 else {
            gnutls_x509_privkey_deinit(key)
            if text.contains("ENCRYPTED") {
                throw TLSTrustError(.wrongPassword, "GnuTLS cannot decrypt the private key with \(password == nil ? "no password" : "this password"): \(GnuTLSLibrary.errorText(status))")
            }
            throw TLSTrustError(.malformedKey, "GnuTLS cannot read the private key: \(GnuTLSLibrary.errorText(status))")
        }
        let handle = try GnuTLSPrivateKey(takingOwnership: key)
        guard let leaf = certificates.first else {
            throw TLSTrustError(.noCertificate, "the certificate PEM holds no certificate")
        }
        return try ClientIdentity(certificate: leaf, certificateChain: Array(certificates.dropFirst()), privateKey: handle)
    }
}
