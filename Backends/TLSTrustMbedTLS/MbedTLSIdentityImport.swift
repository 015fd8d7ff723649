internal import CMbedTLS
import TLSTrust

extension MbedTLSTrustBackend {
    /// Imports a PEM chain (with the core's PEM reader) and a PEM private key with
    /// `mbedtls_pk_parse_key` (PKCS#1, SEC1, PKCS#8; encrypted PKCS#8 with PKCS#12 PBE or PBES2;
    /// `Proc-Type: 4,ENCRYPTED` keys with DES/3DES/AES-CBC).
    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        try KeyDerivationBudget.checkEncryptedPrivateKeyPEM(privateKeyPEM)
        let certificates = try Certificate.certificates(pemOrDER: certificateChainPEM)
        let text = String(decoding: privateKeyPEM, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw TLSTrustError(.noPrivateKey, "the key PEM holds no PRIVATE KEY block")
        }
        let key: MbedTLSPrivateKey
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            // Encrypted PKCS#8 is decrypted here: mbedTLS 2.28's own PBES2 accepts only HMAC-SHA-1
            // as PBKDF2's PRF, and OpenSSL 3 writes HMAC-SHA-256.
            guard let password else {
                throw TLSTrustError(.wrongPassword, "the private key is encrypted and no password was given")
            }
            var der = try Self.base64Body(of: text, label: "ENCRYPTED PRIVATE KEY")
            defer { IdentityPassword.wipe(&der) }
            var reader = MbedTLSPKCS12.Reader(der[...])
            var info = MbedTLSPKCS12.Reader(try reader.read(0x30, "EncryptedPrivateKeyInfo"))
            let algorithm = try info.read(0x30, "the key-encryption algorithm")
            let ciphertext = try info.read(0x04, "the encrypted key")
            var pass = Array(password.utf8)
            defer { IdentityPassword.wipe(&pass) }
            var plain = try MbedTLSPKCS12.decrypt(algorithm: algorithm, ciphertext: ciphertext, password: pass)
            defer { IdentityPassword.wipe(&plain) }
            key = try MbedTLSPrivateKey(parsing: plain, password: nil)
        } else {
            key = try MbedTLSPrivateKey(parsing: privateKeyPEM, password: password)
        }
        guard let leaf = certificates.first else {
            throw TLSTrustError(.noCertificate, "the certificate PEM holds no certificate")
        }
        return try ClientIdentity(certificate: leaf, certificateChain: Array(certificates.dropFirst()), privateKey: key)
    }

    /// Imports a PKCS#12 file with the backend's own container reader (``MbedTLSPKCS12``): the MAC
    /// first, then the bags; keys through `mbedtls_pk_parse_key`, certificates through the core.
    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        try KeyDerivationBudget.checkPKCS12(data)
        if let reason = mbedTLSLibrary.unusableReason { throw TLSTrustError(.backendFailure, reason) }
        var pass = Array(password.utf8)
        defer { IdentityPassword.wipe(&pass) }
        var contents = try MbedTLSPKCS12.parse(data, password: pass)
        defer { for i in contents.keys.indices { IdentityPassword.wipe(&contents.keys[i]) } }
        let certificates = try contents.certificates.map { try Certificate(derEncoded: $0) }
        guard let keyDER = contents.keys.first else {
            throw TLSTrustError(.noPrivateKey, "the PKCS#12 file holds no private key (\(certificates.count) certificates)")
        }
        let key = try MbedTLSPrivateKey(parsing: keyDER, password: nil)
        return try ClientIdentity(privateKey: key, certificates: certificates)
    }

    /// The bytes of the first PEM block labelled `label`, decoded with `mbedtls_base64_decode`.
    static func base64Body(of text: String, label: String) throws -> [UInt8] {
        guard let begin = text.range(of: "-----BEGIN \(label)-----"),
              let end = text.range(of: "-----END \(label)-----", range: begin.upperBound..<text.endIndex) else {
            throw TLSTrustError(.malformedPEM, "no complete \(label) PEM block")
        }
        let body = Array(text[begin.upperBound..<end.lowerBound].utf8.filter { $0 > 0x20 })
        var out = [UInt8](repeating: 0, count: body.count)
        var length = 0
        let status = mbedtls_base64_decode(&out, out.count, &length, body, body.count)
        guard status == 0 else { throw TLSTrustError(.malformedPEM, "bad base64 in the \(label) block: \(MbedTLSLibrary.errorText(status))") }
        return Array(out.prefix(length))
    }
}
