#if SwiftCrypto
import Crypto
import _CryptoExtras
import TLSTrustCore

/// A TLSTrust backend over swift-crypto: a signature provider for the validation engine, and
/// nothing else (no native verifier, no TLS, no identities), so that TLSTrust decides trust on a
/// machine where no system TLS library is installed.
///
/// Written only against TLSTrust's public API, as a backend from outside the package would be:
/// it is the worked example of the DocC article *Writing a backend*. It verifies every scheme of
/// the engine's one list of accepted algorithms (``SupportedSignatureAlgorithms/all``): RSA PKCS#1
/// v1.5 and PSS (`_CryptoExtras`), ECDSA on P-256, P-384 and P-521, and Ed25519 (`Crypto`).
///
/// Built only with the package trait `SwiftCrypto` (`swift build --traits SwiftCrypto`): without
/// it this module is empty and swift-crypto is not compiled.
public struct SwiftCryptoTrustBackend: TrustBackend {
    public init() {}

    public var name: String { "swift-crypto" }

    /// swift-crypto exposes no version at run time; the package resolves a 3.x release (see
    /// `Package.resolved`), which on Linux carries its own copy of BoringSSL.
    public var libraryVersion: String { "swift-crypto 3 (vendored BoringSSL)" }

    /// A stateless provider: every instance is the same one.
    public var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }

    /// The engine's list, filtered by what ``SwiftCryptoVerificationKey`` implements, so that an
    /// algorithm added to the list is not claimed before it is implemented here.
    public var signatureAlgorithms: SupportedSignatureAlgorithms { Self.algorithms }

    private static let algorithms = SupportedSignatureAlgorithms.all.filter { SwiftCryptoVerificationKey.implements($0.scheme) }

    /// Imports the key with swift-crypto.
    ///
    /// - RSA (rsaEncryption or id-RSASSA-PSS): `_RSA.Signing.PublicKey(n:e:)` from the
    ///   modulus and exponent the core parsed and checked. Keys of every size are imported:
    ///   swift-crypto's `derRepresentation` initializer refuses keys below 2048 bits, but the
    ///   engine's rule is that such keys are still *verified* and then refused by the path
    ///   validator (`weakAlgorithm`, the same verdict on every backend). Refusing them at import
    ///   would make the engine report `badSignature` instead — still untrusted, but a different
    ///   verdict from the other backends. Importing never widens trust: the engine alone decides
    ///   what size is acceptable.
    /// - EC: `P256/P384/P521.Signing.PublicKey(derRepresentation:)` by the SPKI's named curve;
    ///   any other curve is `unsupported` (the engine refuses such keys before asking anyway).
    /// - Ed25519: `Curve25519.Signing.PublicKey(rawRepresentation:)` of the SPKI's key bits.
    /// - Ed448 and anything else: `unsupported`.
    ///
    /// - Throws: `TLSTrustError` `.malformedKey` when swift-crypto cannot read the key,
    ///   `.unsupported` for an algorithm or curve it does not implement.
    public func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        let spki = key.subjectPublicKeyInfoDER
        let bits = key.subjectPublicKeyBytes
        do {
            switch key.algorithm {
            case .rsa:
                // The modulus and exponent as the core read and checked them (one RSAPublicKey,
                // both integers positive and minimally encoded), for rsaEncryption and
                // id-RSASSA-PSS keys alike.
                // Not `_RSA.Signing.PublicKey(derRepresentation:)`: in swift-crypto 3.12.3 a DER
                // it cannot parse makes it free the key twice (an abort, found by the conformance
                // kit's malformed RSA keys), and it refuses keys below 2048 bits, which the engine
                // must see verified and then refuse itself (see above).
                guard let numbers = key.rsaMagnitudes else {
                    throw TLSTrustError(.malformedKey, "swift-crypto: the RSA key has no modulus and exponent")
                }
                let rsa = try _RSA.Signing.PublicKey(n: numbers.modulus, e: numbers.exponent)
                return SwiftCryptoVerificationKey(.rsa(rsa))
            case .ec(let curve):
                switch curve {
                case "P-256": return SwiftCryptoVerificationKey(.p256(try P256.Signing.PublicKey(derRepresentation: spki)))
                case "P-384": return SwiftCryptoVerificationKey(.p384(try P384.Signing.PublicKey(derRepresentation: spki)))
                case "P-521": return SwiftCryptoVerificationKey(.p521(try P521.Signing.PublicKey(derRepresentation: spki)))
                default:
                    throw TLSTrustError(.unsupported, "swift-crypto does not implement ECDSA on curve \(curve) (unsupported)")
                }
            case .ed25519:
                return SwiftCryptoVerificationKey(.ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: Array(bits))))
            case .ed448, .other:
                throw TLSTrustError(.unsupported, "swift-crypto cannot import \(key.algorithm) keys (unsupported)")
            }
        } catch let error as TLSTrustError {
            throw error
        } catch {
            // CryptoKitError and swift-crypto's ASN.1 errors: the library could not read the key.
            throw TLSTrustError(.malformedKey, "swift-crypto cannot import the \(key.algorithm) key: \(error)")
        }
    }
}

/// A public key imported by swift-crypto, verifying from many tasks at once with no lock.
///
/// `@unchecked Sendable`: swift-crypto does not mark its EC and Curve25519 public keys
/// `Sendable` on Linux, but they are immutable values (Curve25519: 32 bytes; P-256/384/521 and
/// RSA: a BoringSSL key created at import and never mutated), and verification only reads them —
/// BoringSSL allows concurrent read-only use of one key. Checked by the conformance kit's
/// concurrent verifications.
final class SwiftCryptoVerificationKey: SignatureVerificationKey, @unchecked Sendable {
    enum Key {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    let key: Key

    init(_ key: Key) { self.key = key }

    /// Whether this module implements `scheme` at all. An exhaustive switch, so that a scheme
    /// added to TLSTrust fails to compile here instead of being claimed untested.
    static func implements(_ scheme: SignatureScheme) -> Bool {
        switch scheme {
        case .rsaPKCS1v15, .rsaPSS, .ecdsa, .ed25519: return true
        }
    }

    /// Asked by the engine only for a scheme its list pairs with the key's type.
    func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool {
        switch (key, scheme) {
        case (.rsa(let rsa), .rsaPKCS1v15(let digest)):
            return Self.verify(digest, message) { rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: $0, padding: .insecurePKCS1v1_5) }
        case (.rsa(let rsa), .rsaPSS(let digest)):
            // swift-crypto's `.PSS` is MGF1 over the message digest with a salt as long as the
            // digest: exactly the engine's only accepted PSS parameters.
            return Self.verify(digest, message) { rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: $0, padding: .PSS) }
        case (.p256(let ec), .ecdsa(let digest)):
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.verify(digest, message) { ec.isValidSignature(sig, for: $0) }
        case (.p384(let ec), .ecdsa(let digest)):
            guard let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.verify(digest, message) { ec.isValidSignature(sig, for: $0) }
        case (.p521(let ec), .ecdsa(let digest)):
            guard let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.verify(digest, message) { ec.isValidSignature(sig, for: $0) }
        case (.ed25519(let ed), .ed25519):
            return ed.isValidSignature(signature, for: message)
        default:
            // A scheme the engine does not pair with this key: never asked, and never true.
            return false
        }
    }

    /// Hashes `message` with `digest` and hands the digest to `check`.
    private static func verify(_ digest: DigestAlgorithm, _ message: ArraySlice<UInt8>, _ check: (any Digest) -> Bool) -> Bool {
        switch digest {
        case .sha256: return check(SHA256.hash(data: message))
        case .sha384: return check(SHA384.hash(data: message))
        case .sha512: return check(SHA512.hash(data: message))
        }
    }
}
#endif
