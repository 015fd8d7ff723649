internal import CMbedTLS
import TLSTrust

/// mbedTLS's readings for client identities; the core makes the identity (`IdentityImporting`).
extension MbedTLSTrustBackend {
    /// Reads a PEM private key with `mbedtls_pk_parse_key` (PKCS#1, SEC1, PKCS#8; encrypted PKCS#8
    /// with PKCS#12 PBE or PBES2; `Proc-Type: 4,ENCRYPTED` keys with DES/3DES/AES-CBC).
    public func readPrivateKey(_ pem: PrivateKeyPEM, password: String?) throws -> any PrivateKeyHandle {
        guard pem.text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") else {
            return try MbedTLSPrivateKey(parsing: pem.bytes, password: password)
        }
        // Encrypted PKCS#8 is decrypted here: mbedTLS 2.28's own PBES2 accepts only HMAC-SHA-1
        // as PBKDF2's PRF, and OpenSSL 3 writes HMAC-SHA-256.
        guard let password else {
            throw TLSTrustError(.wrongPassword, "the private key is encrypted and no password was given")
        }
        var der = try Self.base64Body(of: pem.text, label: "ENCRYPTED PRIVATE KEY")
        defer { IdentityPassword.wipe(&der) }
        var reader = MbedTLSPKCS12.Reader(der[...])
        var info = MbedTLSPKCS12.Reader(try reader.read(0x30, "EncryptedPrivateKeyInfo"))
        let algorithm = try info.read(0x30, "the key-encryption algorithm")
        let ciphertext = try info.read(0x04, "the encrypted key")
        var pass = Array(password.utf8)
        defer { IdentityPassword.wipe(&pass) }
        var plain = try MbedTLSPKCS12.decrypt(algorithm: algorithm, ciphertext: ciphertext, password: pass)
        defer { IdentityPassword.wipe(&plain) }
        return try MbedTLSPrivateKey(parsing: plain, password: nil)
    }

    /// Reads a PKCS#12 file with the backend's own container reader (`MbedTLSPKCS12`): the MAC
    /// first, then the bags; the key through `mbedtls_pk_parse_key` (the first, when there are several).
    public func readPKCS12(_ data: [UInt8], password: String) throws -> PKCS12Contents {
        if let reason = mbedTLSLibrary.unusableReason { throw TLSTrustError(.backendFailure, reason) }
        var pass = Array(password.utf8)
        defer { IdentityPassword.wipe(&pass) }
        var contents = try MbedTLSPKCS12.parse(data, password: pass)
        defer { for i in contents.keys.indices { IdentityPassword.wipe(&contents.keys[i]) } }
        return PKCS12Contents(privateKey: try contents.keys.first.map { try MbedTLSPrivateKey(parsing: $0, password: nil) },
                              certificates: contents.certificates)
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
