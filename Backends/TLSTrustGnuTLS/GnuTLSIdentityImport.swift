internal import CGnuTLS
import TLSTrust

/// GnuTLS's readings for client identities; the core makes the identity (`IdentityImporting`).
extension GnuTLSTrustBackend {
    /// Reads a PKCS#12 file: `gnutls_pkcs12_import`, then `gnutls_pkcs12_verify_mac` (a failing
    /// MAC is a wrong password), then `gnutls_pkcs12_simple_parse` for the key and its chain.
    public func readPKCS12(_ data: [UInt8], password: String) throws -> PKCS12Contents {
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
        var certificates: [[UInt8]] = []
        func collect(_ list: UnsafeMutablePointer<gnutls_x509_crt_t?>?, _ count: UInt32) {
            guard let list else { return }
            for i in 0..<Int(count) {
                guard let crt = list[i] else { continue }
                var out = gnutls_datum_t(data: nil, size: 0)
                if gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &out) >= 0 { certificates.append(GnuTLSLibrary.takeBytes(&out)) }
                gnutls_x509_crt_deinit(crt)
            }
            CGnuTLS_free(list)
        }
        collect(chain, chainCount)
        collect(extra, extraCount)
        guard parsed >= 0 else {
            if let key { gnutls_x509_privkey_deinit(key) }
            // No key in the file: the core refuses it as `.noPrivateKey`.
            if parsed == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE { return PKCS12Contents(privateKey: nil, certificates: certificates) }
            throw TLSTrustError(.malformedPKCS12, "GnuTLS cannot decode the PKCS#12 contents: \(GnuTLSLibrary.errorText(parsed))")
        }
        return PKCS12Contents(privateKey: try key.map { try GnuTLSPrivateKey(takingOwnership: $0) }, certificates: certificates)
    }

    /// Reads a PEM private key with `gnutls_x509_privkey_import2` (PKCS#8, encrypted PKCS#8,
    /// traditional RSA/EC keys).
    public func readPrivateKey(_ pem: PrivateKeyPEM, password: String?) throws -> any PrivateKeyHandle {
        _ = GnuTLSLibrary.initialized
        guard pem.bytes.count <= Int(UInt32.max) else {
            throw TLSTrustError(.malformedKey, "GnuTLS: the key PEM is too long")
        }
        var made: gnutls_x509_privkey_t?
        guard gnutls_x509_privkey_init(&made) >= 0, let key = made else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_x509_privkey_init failed")
        }
        let status: Int32
        if let password {
            status = IdentityPassword.withWipedCString(password) { pass, _ in
                GnuTLSLibrary.withDatum(pem.bytes) { gnutls_x509_privkey_import2(key, &$0, GNUTLS_X509_FMT_PEM, pass, 0) }
            }
        } else {
            status = GnuTLSLibrary.withDatum(pem.bytes) { gnutls_x509_privkey_import2(key, &$0, GNUTLS_X509_FMT_PEM, nil, 0) }
        }
        guard status >= 0 else {
            gnutls_x509_privkey_deinit(key)
            throw pem.unreadable(by: "GnuTLS", password: password, reason: GnuTLSLibrary.errorText(status))
        }
        return try GnuTLSPrivateKey(takingOwnership: key)
    }
}
