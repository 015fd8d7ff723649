internal import COpenSSL
import TLSTrust

/// OpenSSL's readings for client identities; the core makes the identity (`IdentityImporting`).
extension OpenSSLTrustBackend {
    /// Reads a PKCS#12 file with `PKCS12_parse`, after `PKCS12_verify_mac` so that a wrong
    /// password is told apart from a damaged file. Reads PBES2/AES (OpenSSL 3's default) and the
    /// PKCS#12 PBE schemes of the default provider (3DES); RC2-40 needs OpenSSL's legacy provider.
    public func readPKCS12(_ data: [UInt8], password: String) throws -> PKCS12Contents {
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
        // OpenSSLPrivateKey takes it.
        defer {
            if let leaf { X509_free(leaf) }
            if let others { COpenSSL_sk_X509_pop_free(others) }
        }
        var certificates: [[UInt8]] = []
        if let leaf, let der = OpenSSLCertificate.derEncoding(of: leaf) { certificates.append(der) }
        if let others {
            for i in 0..<COpenSSL_sk_X509_num(others) {
                if let x = COpenSSL_sk_X509_value(others, i), let der = OpenSSLCertificate.derEncoding(of: x) {
                    certificates.append(der)
                }
            }
        }
        // OpenSSLPrivateKey frees the key from here on, also when it throws.
        return PKCS12Contents(privateKey: try pkey.map { try OpenSSLPrivateKey(takingOwnership: $0) }, certificates: certificates)
    }

    /// Reads a PEM private key with `PEM_read_bio_PrivateKey` (PKCS#8, encrypted PKCS#8,
    /// traditional RSA/EC, with `Proc-Type` encryption). Never prompts: an encrypted key without a
    /// password is `.wrongPassword`.
    public func readPrivateKey(_ pem: PrivateKeyPEM, password: String?) throws -> any PrivateKeyHandle {
        _ = OpenSSLLibrary.initialized
        let pkey: OpaquePointer? = pem.bytes.withUnsafeBytes { raw -> OpaquePointer? in
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
            throw pem.unreadable(by: "OpenSSL", password: password, reason: OpenSSLLibrary.drainErrors())
        }
        return try OpenSSLPrivateKey(takingOwnership: pkey)
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
