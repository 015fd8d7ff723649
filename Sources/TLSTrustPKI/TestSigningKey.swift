import TLSTrustCore

/// A private key the kit mints with: what a certificate, CRL or OCSP response needs from a key,
/// and nothing of the library that holds it.
///
/// The builders write every byte of the structures they sign in Swift (`DER`, `SignedDER`), so a
/// key's only duties are to say what it is, to hand out its public half and PKCS#8 form, and to
/// sign. A ``TestKeySource`` generates keys of this role; `TLSTrustPKIOpenSSL` (OpenSSL's EVP) and
/// `TLSTrustPKISwiftCrypto` (swift-crypto, no system library) are the two in the package.
public protocol TestSigningKey: AnyObject, Sendable {
    /// The exact key type and size.
    var keyType: TestKeyType { get }
    /// The RSA modulus size or the curve's order size, in bits.
    var bits: Int { get }
    /// The public half as DER `SubjectPublicKeyInfo`, as a certificate carries it.
    var subjectPublicKeyInfoDER: [UInt8] { get }
    /// The private key as unencrypted PKCS#8 `PrivateKeyInfo` DER (RFC 5208, RFC 8410).
    var pkcs8DER: [UInt8] { get }
    /// Signs `message` (the whole message: the key hashes it) with `algorithm`.
    ///
    /// - Throws: ``TestPKIError`` when the algorithm does not fit the key, or when the library
    ///   cannot make this signature (``TestPKIError/unsupported`` then says why).
    func sign(_ message: [UInt8], with algorithm: TestSignatureAlgorithm) throws -> [UInt8]
}

/// The signatures the kit makes: the core's `SignatureScheme`s, SHA-1 for the certificates a
/// validator must refuse as weakly signed, and PSS with any salt length for the vectors that must fail.
public enum TestSignatureAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// RSASSA-PKCS1-v1_5.
    case rsaPKCS1v15(SignatureDigest)
    /// RSASSA-PSS with MGF1 over the same digest and a salt of `saltLength` bytes.
    case rsaPSS(SignatureDigest, saltLength: Int)
    /// ECDSA, the signature a DER `Ecdsa-Sig-Value`.
    case ecdsa(SignatureDigest)
    /// Ed25519 over the message itself.
    case ed25519

    /// The signature an issuer with a key of `keyType` makes with `digest` (PKCS#1 v1.5 for RSA;
    /// Ed25519 ignores the digest): what certificates, CRLs and OCSP responses carry.
    public init(issuing keyType: TestKeyType, digest: SignatureDigest) {
        switch keyType {
        case .rsa: self = .rsaPKCS1v15(digest)
        case .ecdsa: self = .ecdsa(digest)
        case .ed25519: self = .ed25519
        }
    }

    /// The core's `scheme`, with a PSS salt of `saltLength` bytes (default: the digest's length,
    /// the only one the engine accepts).
    public init(_ scheme: SignatureScheme, saltLength: Int? = nil) {
        switch scheme {
        case .rsaPKCS1v15(let digest): self = .rsaPKCS1v15(SignatureDigest(digest))
        case .rsaPSS(let digest): self = .rsaPSS(SignatureDigest(digest), saltLength: saltLength ?? digest.length)
        case .ecdsa(let digest): self = .ecdsa(SignatureDigest(digest))
        case .ed25519: self = .ed25519
        }
    }

    /// The digest, nil for Ed25519.
    public var digest: SignatureDigest? {
        switch self {
        case .rsaPKCS1v15(let digest), .rsaPSS(let digest, _), .ecdsa(let digest): digest
        case .ed25519: nil
        }
    }

    /// Whether a key of `keyType` can make this signature.
    public func fits(_ keyType: TestKeyType) -> Bool {
        switch (self, keyType) {
        case (.rsaPKCS1v15, .rsa), (.rsaPSS, .rsa), (.ecdsa, .ecdsa), (.ed25519, .ed25519): true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .rsaPKCS1v15(let digest): "RSA-PKCS1-\(digest)"
        case .rsaPSS(let digest, let salt): "RSA-PSS-\(digest) salt \(salt)"
        case .ecdsa(let digest): "ECDSA-\(digest)"
        case .ed25519: "Ed25519"
        }
    }
}

extension SignatureDigest {
    /// The kit's name for one of the core's digests.
    public init(_ digest: DigestAlgorithm) {
        switch digest {
        case .sha256: self = .sha256
        case .sha384: self = .sha384
        case .sha512: self = .sha512
        }
    }

    /// The digest's output length in bytes.
    public var length: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// `bytes` hashed with this digest, by the core's own hash functions (no library).
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        switch self {
        case .sha1: SHA1.hash(bytes)
        case .sha256: SHA256.hash(bytes)
        case .sha384: SHA512.hash384(bytes)
        case .sha512: SHA512.hash(bytes)
        }
    }
}
