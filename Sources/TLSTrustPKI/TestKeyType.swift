/// The exact kind and size of a key, beyond the four algorithms of the scenario catalogue.
///
/// `TestKeyAlgorithm` is the catalogue's closed list (every backend must handle each of them).
/// Attack tests need keys that are almost right — RSA of 2047 or 2041 bits, one bit or a few
/// short of the 2048-bit minimum — and curves the catalogue leaves out (P-521).
public enum TestKeyType: Sendable, Hashable, CustomStringConvertible {
    /// RSA with a modulus of exactly `bits` bits (public exponent 65537).
    case rsa(bits: Int)
    case ecdsa(Curve)
    case ed25519

    /// The NIST curves, by their OpenSSL group names.
    public enum Curve: String, Sendable, Hashable, CaseIterable {
        case p256 = "P-256"
        case p384 = "P-384"
        case p521 = "P-521"
    }

    public var description: String {
        switch self {
        case .rsa(let bits): "rsa\(bits)"
        case .ecdsa(let curve): "ecdsa\(curve.rawValue)"
        case .ed25519: "ed25519"
        }
    }

    public var isRSA: Bool { if case .rsa = self { true } else { false } }

    /// Whether signatures hash with a separate digest (false only for Ed25519, a "pure" scheme).
    public var usesSeparateDigest: Bool { self != .ed25519 }

    /// The catalogue algorithm this key type is, or belongs to: RSA of any size is reported as
    /// `.rsa2048` and P-521 as `.ecdsaP384`, the nearest catalogue member. Use `keyType` where the
    /// exact size matters.
    public var catalogueFamily: TestKeyAlgorithm {
        switch self {
        case .rsa: .rsa2048
        case .ecdsa(.p256): .ecdsaP256
        case .ecdsa: .ecdsaP384
        case .ed25519: .ed25519
        }
    }
}

extension TestKeyAlgorithm {
    /// The exact key type of a catalogue algorithm.
    public var keyType: TestKeyType {
        switch self {
        case .rsa2048: .rsa(bits: 2048)
        case .ecdsaP256: .ecdsa(.p256)
        case .ecdsaP384: .ecdsa(.p384)
        case .ed25519: .ed25519
        }
    }
}
