/// A freshly generated private key, for minting and for TLS identities in tests.
///
/// It holds a ``TestSigningKey`` of whichever ``TestKeySource`` generated it (by default the one
/// ``TestKeySources/current`` names), so that the builders sign without knowing the library.
public final class TestPrivateKey: Sendable {
    /// The catalogue algorithm the key was generated for, or the catalogue family of `keyType`
    /// (every RSA key reports `.rsa2048`: read `keyType` where the exact size matters).
    public let algorithm: TestKeyAlgorithm
    /// The exact key type and size.
    public let keyType: TestKeyType
    /// The key in its library.
    public let signingKey: any TestSigningKey
    /// The name of the source that generated it (`openssl`, `swift-crypto`).
    public let sourceName: String

    /// Generates a new random key of a catalogue algorithm.
    public convenience init(_ algorithm: TestKeyAlgorithm) throws {
        try self.init(algorithm.keyType)
    }

    /// Generates a new random key of exactly `keyType` (RSA of any size, any NIST curve, Ed25519)
    /// with the key source in effect (``TestKeySources/current``).
    public convenience init(_ keyType: TestKeyType) throws {
        try self.init(keyType, source: TestKeySources.current)
    }

    /// Generates a new random key of exactly `keyType` with `source`.
    public convenience init(_ keyType: TestKeyType, source: any TestKeySource) throws {
        try self.init(source.generateKey(keyType), sourceName: source.name)
    }

    /// Wraps a key generated elsewhere.
    public init(_ signingKey: any TestSigningKey, sourceName: String) {
        self.signingKey = signingKey
        self.keyType = signingKey.keyType
        self.algorithm = signingKey.keyType.catalogueFamily
        self.sourceName = sourceName
    }

    /// The number of bits of the key (the RSA modulus size, the curve's order size).
    public var bits: Int { signingKey.bits }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form every
    /// TLS library and the `openssl` tool load without a passphrase.
    public var pkcs8PEM: String { pemEncode(pkcs8DER, label: "PRIVATE KEY") }

    /// The private key as PKCS#8 `PrivateKeyInfo` DER.
    public var pkcs8DER: [UInt8] { signingKey.pkcs8DER }

    /// The public half as DER `SubjectPublicKeyInfo`, as it appears inside the certificate; handy
    /// for comparing with a backend's public-key extraction or for building pins.
    public var subjectPublicKeyInfoDER: [UInt8] { signingKey.subjectPublicKeyInfoDER }
}
