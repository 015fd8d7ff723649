/// The key types the test PKI can mint.
///
/// These are the algorithms the conformance suite exercises across backends. ECDSA P-256 is the
/// cheap default; RSA-2048 key generation costs tens of milliseconds, so ask for it only when the
/// test is about RSA.
public enum TestKeyAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case rsa2048
    case ecdsaP256
    case ecdsaP384
    case ed25519

    public var description: String { rawValue }

    /// Whether signatures with this key hash the message with a separate digest. Ed25519 is a
    /// "pure" signature scheme: the signer hashes nothing first, and `signatureDigest` is ignored.
    public var usesSeparateDigest: Bool { self != .ed25519 }
}
