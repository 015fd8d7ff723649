import TLSTrustCore

extension TestPrivateKey {
    /// Signs `message` with this key under `scheme`, as a certificate issuer would: PKCS#1 v1.5,
    /// RSA-PSS with MGF1 over the same digest and a salt as long as the digest (the only PSS
    /// parameters the engine accepts), ECDSA as a DER `Ecdsa-Sig-Value`, Ed25519 over the message itself.
    ///
    /// For signature vectors minted at test time (the backend conformance kit), where a certificate
    /// cannot carry the scheme (RSA-PSS) or a bare message is wanted.
    /// - Parameters:
    ///   - message: the bytes signed.
    ///   - scheme: the signature scheme, digest included.
    ///   - saltLength: the PSS salt length, when a test needs a wrong one (default: the digest's length).
    /// - Throws: `TestPKIError` when the key's library refuses (a scheme that does not fit the key, say).
    public func signature(over message: [UInt8], scheme: SignatureScheme, saltLength: Int? = nil) throws -> [UInt8] {
        try sign(message, with: TestSignatureAlgorithm(scheme, saltLength: saltLength))
    }

    /// Signs `message` with `algorithm`, refusing one that does not fit the key.
    public func sign(_ message: [UInt8], with algorithm: TestSignatureAlgorithm) throws -> [UInt8] {
        guard algorithm.fits(keyType) else {
            throw TestPKIError(operation: "sign with \(algorithm) using a \(keyType) key")
        }
        return try signingKey.sign(message, with: algorithm)
    }
}
