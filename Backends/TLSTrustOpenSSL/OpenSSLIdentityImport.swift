internal import COpenSSL
import TLSTrust

extension OpenSSLTrustBackend {
    /// Imports a PKCS#12 file with `PKCS12_parse`, after `PKCS12_verify_mac` so that a wrong
    /// password is told apart from a damaged file. Reads PBES2/AES (OpenSSL 3's default) and the
    /// PKCS#12 PBE schemes of the default provider (3DES); RC2-40 needs OpenSSL's legacy provider.
    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        try KeyDerivationBudget.checkPKCS12(data)
        _ = OpenSSLLibrary.initialized
        var p12: OpaquePointer?
        data.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            var cursor: UnsafePointer<UInt8>? = base
            p12 = d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 else {
            throw TLSTrustError(.malformedPKCS12, "OpenSSL cannot read the PKCS#12 file: \(OpenSSLLibrary.drainErrors())")
        }
        defer { PKCS12_free(p12) }

        var pkey: OpaquePointer?
        var leaf: OpaquePointer?
        var others: OpaquePointer?
        try IdentityPassword.withWipedCString(password) { pass, length in
            if PKCS12_mac_present(p12) == 1 {
                // An empty password may have been applied as "no password" (NULL) or as "".
                let ok = PKCS12_verify_mac(p12, pass, Int32(length)) == 1
                    || (length == 0 && PKCS12_verify_mac(p12, nil, 0) == 1)
                guard ok else {
                    let reason = OpenSSLLibrary.drainErrors()
                    throw TLSTrustError(.wrongPassword, "OpenSSL: the PKCS#12 MAC does not verify with this password (\(reason))")
                }
            }
            guard PKCS12_parse(p12, pass, &pkey, &leaf, &others) == 1 else {
                // An algorithm outside the loaded providers (RC2-40 without the legacy provider).
                let unsupported = ERR_GET_REASON(ERR_peek_last_error()) == ERR_R_UNSUPPORTED
                let reason = OpenSSLLibrary.drainErrors()
                if unsupported {
                    throw TLSTrustError(.unsupported, "OpenSSL cannot decrypt the PKCS#12 contents with the loaded providers (RC2 needs the legacy provider): \(reason)")
                }
                throw TLSTrustError(.malformedPKCS12, "OpenSSL cannot decode the PKCS#12 contents: \(reason)")
            }
        }
        // Every object PKCS12_parse handed us is ours to free on every path out, the key too until
        // OpenSSLPrivateKey takes it: a certificate the core refuses below must not leak the key.
        var unownedKey = pkey
        defer {
            if let leaf { X509_free(leaf) }
            if let others { COpenSSL_sk_X509_pop_free(others) }
            if let unownedKey { EVP_PKEY_free(unownedKey) }
        }
        var certificates: [Certificate] = []
        if let leaf, let der = OpenSSLCertificate.derEncoding(of: leaf) { certificates.append(try Certificate(derEncoded: der)) }
        if let others {
            for i in 0..<COpenSSL_sk_X509_num(others) {
                if let x = COpenSSL_sk_X509_value(others, i), let der = OpenSSLCertificate.derEncoding(of: x) {
                    certificates.append(try Certificate(derEncoded: der))
                }
            }
        }
        guard let pkey else {
            throw TLSTrustError(.noPrivateKey, "the PKCS#12 file holds no private key (\(certificates.count) certificates)")
        }
        unownedKey = nil  // OpenSSLPrivateKey frees it from here on, also when it throws
        let key = try OpenSSLPrivateKey(takingOwnership: pkey)
        return try ClientIdentity(privateKey: key, certificates: certificates)
    }

    /// Imports a PEM chain (with the core's PEM reader) and a PEM private key with
    /// `PEM_read_bio_PrivateKey` (PKCS#8, encrypted PKCS#8, traditional RSA/EC, with `Proc-Type`
    /// encryption). Never prompts: an encrypted key without a password is `.wrongPassword`.
    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        try KeyDerivationBudget.checkEncryptedPrivateKeyPEM(privateKeyPEM)
        _ = OpenSSLLibrary.initialized
        let certificates = try Certificate.certificates(pemOrDER: certificateChainPEM)
        let text = String(decoding: privateKeyPEM, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw TLSTrustError(.noPrivateKey, "the key PEM holds no PRIVATE KEY block")
        }
        let encrypted = text.contains("ENCRYPTED")
        let pkey: OpaquePointer? = privateKeyPEM.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            if let password {
                return IdentityPassword.withWipedCString(password) { pass, _ in
                    PEM_read_bio_PrivateKey(bio, nil, openSSLPasswordCallback, UnsafeMutableRawPointer(pass))
                }
            }
            return PEM_read_bio_PrivateKey(bio, nil, openSSLPasswordCallback, nil)
        }
        guard let pkey else {
            let reason = OpenSSLLibrary.drainErrors()
            if encrypted {
                throw TLSTrustError(.wrongPassword, "OpenSSL cannot decrypt the private key with \(password == nil ? "no password" : "this password"): \(reason)")
            }
            throw TLSTrustError(.malformedKey, "OpenSSL cannot read the private key: \(reason)")
        }
        let key = try OpenSSLPrivateKey(takingOwnership: pkey)
        guard let leaf = certificates.first else {
            throw TLSTrustError(.noCertificate, "the certificate PEM holds no certificate")
        }
        return try ClientIdentity(certificate: leaf, certificateChain: Array(certificates.dropFirst()), privateKey: key)
    }
}

/// OpenSSL's password callback: copies the NUL-terminated password passed as `user`; with none,
/// fails, so that OpenSSL never prompts on the terminal.
private func openSSLPasswordCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ rwflag: Int32, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let buffer, let user else { return 0 }
    let pass = user.assumingMemoryBound(to: CChar.self)
    let length = strlen(pass)
    guard length <= Int(size) else { return 0 }
    memcpy(buffer, pass, length)
    return Int32(length)
}
