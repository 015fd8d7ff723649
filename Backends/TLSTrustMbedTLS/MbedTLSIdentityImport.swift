internal import CMbedTLS
import TLSTrust

extension MbedTLSTrustBackend {
    /// Imports a PEM chain (with the core's PEM reader) and a PEM private key with
    /// `mbedtls_pk_parse_key` (PKCS#1, SEC1, PKCS#8; encrypted PKCS#8 with PKCS#12 PBE or PBES2;
    /// `Proc-Type: 4,ENCRYPTED` keys with DES/3DES/AES-CBC).
    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        let certificates = try Certificate.certificates(pemOrDER: certificateChainPEM)
        let text = String(decoding: privateKeyPEM, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw TLSTrustError(.noPrivateKey, "the key PEM holds no PRIVATE KEY block")
        }
        let key = try MbedTLSPrivateKey(parsing: privateKeyPEM, password: password)
        guard let leaf = certificates.first else {
            throw TLSTrustError(.noCertificate, "the certificate PEM holds no certificate")
        }
        return try ClientIdentity(certificate: leaf, certificateChain: Array(certificates.dropFirst()), privateKey: key)
    }
}
