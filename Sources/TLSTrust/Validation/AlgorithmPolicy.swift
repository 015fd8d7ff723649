/// Which keys and signature algorithms the engine accepts (CA/B Forum BR §6.1.5, §7.1.3).
///
/// - RSA: modulus of at least 2048 bits (the exact modulus length, so a 2047-bit key is refused),
///   and a whole number of bytes, as the BRs require.
/// - ECDSA: the named curves P-256, P-384 and P-521; explicit curve parameters are refused.
/// - Ed25519, where the backend can verify it.
/// - Signatures: see ``SignatureScheme``; MD5, SHA-1 and DSA never reach a backend.
enum AlgorithmPolicy {
    static let minimumRSABits = 2048

    /// Why `key` is not acceptable, or nil when it is.
    static func problem(with key: PublicKey) -> String? {
        switch key.algorithm {
        case .rsa(let bits):
            if bits < minimumRSABits { return "RSA key of \(bits) bits (at least \(minimumRSABits) required)" }
            if bits % 8 != 0 { return "RSA modulus of \(bits) bits is not a whole number of bytes" }
            return nil
        case .ec(let curve):
            return ["P-256", "P-384", "P-521"].contains(curve) ? nil : "EC key on curve \(curve) (P-256, P-384 or P-521 required)"
        case .ed25519:
            return nil
        case .ed448:
            return "Ed448 keys are not accepted"
        case .other(let oid):
            return oid == "1.2.840.10040.4.1" ? "DSA keys are not accepted" : "unknown key algorithm \(oid)"
        }
    }
}
