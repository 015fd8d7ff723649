#if SwiftCrypto
import Crypto
import _CryptoExtras
import Foundation
import TLSTrustPKI

/// The kit's keys in swift-crypto: no system library, so a backend author can mint and run the
/// conformance kit on a machine without libssl.
///
/// What it generates: the NIST curves P-256, P-384 and P-521, Ed25519, and RSA of 1024 bits and
/// more in whole bytes (swift-crypto's `_RSA.Signing.PrivateKey(unsafeKeySize:)`; BoringSSL may
/// refuse other odd sizes). It signs PKCS#1 v1.5, PSS with a salt as long as the digest, ECDSA and
/// Ed25519. Anything else — RSA of 2047 bits, RSA below 1024, a PSS salt of another length —
/// throws ``TestPKIError`` with ``TestPKIError/unsupported`` set, so that a check needing it is
/// reported as skipped with that reason, never passed.
///
/// Linked alone (without `TLSTrustPKIOpenSSL`), it is the kit's default key source.
public struct SwiftCryptoKeySource: LinkedTestKeySource {
    public init() {}

    public var name: String { "swift-crypto" }

    public func generateKey(_ keyType: TestKeyType) throws -> any TestSigningKey {
        switch keyType {
        case .rsa(let bits):
            // `KeySize(bitCount:)` traps unless the size is a positive multiple of 8.
            guard bits >= 1024, bits % 8 == 0 else {
                throw TestPKIError(operation: "generate \(keyType) with swift-crypto",
                                   unsupported: "swift-crypto generates RSA keys of 1024 bits or more in whole bytes only")
            }
            do {
                return SwiftCryptoSigningKey(.rsa(try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))), keyType)
            } catch {
                throw TestPKIError(operation: "generate \(keyType) with swift-crypto", unsupported: "swift-crypto refused: \(error)")
            }
        case .ecdsa(.p256): return SwiftCryptoSigningKey(.p256(P256.Signing.PrivateKey()), keyType)
        case .ecdsa(.p384): return SwiftCryptoSigningKey(.p384(P384.Signing.PrivateKey()), keyType)
        case .ecdsa(.p521): return SwiftCryptoSigningKey(.p521(P521.Signing.PrivateKey()), keyType)
        case .ed25519: return SwiftCryptoSigningKey(.ed25519(Curve25519.Signing.PrivateKey()), keyType)
        }
    }
}

/// One swift-crypto private key.
///
/// `@unchecked Sendable`: it holds one immutable swift-crypto key value, which swift-crypto's
/// signing functions only read.
final class SwiftCryptoSigningKey: TestSigningKey, @unchecked Sendable {
    enum Backing {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    let backing: Backing
    let keyType: TestKeyType

    init(_ backing: Backing, _ keyType: TestKeyType) {
        self.backing = backing
        self.keyType = keyType
    }

    var bits: Int {
        switch backing {
        case .rsa(let key): key.keySizeInBits
        case .p256: 256
        case .p384: 384
        case .p521: 521
        case .ed25519: 253
        }
    }

    var subjectPublicKeyInfoDER: [UInt8] {
        switch backing {
        case .rsa(let key): Array(key.publicKey.derRepresentation)
        case .p256(let key): Array(key.publicKey.derRepresentation)
        case .p384(let key): Array(key.publicKey.derRepresentation)
        case .p521(let key): Array(key.publicKey.derRepresentation)
        case .ed25519(let key):
            // RFC 8410 §4: AlgorithmIdentifier id-Ed25519 (no parameters), the 32 raw bytes.
            DER.sequence([DER.sequence([DER.objectIdentifier(Self.ed25519OID)]), DER.bitString(Array(key.publicKey.rawRepresentation))])
        }
    }

    var pkcs8DER: [UInt8] {
        switch backing {
        case .rsa(let key):
            // swift-crypto writes PKCS#1 `RSAPrivateKey`; PKCS#8 wraps it under rsaEncryption.
            DER.sequence([DER.integer(0), DER.sequence([DER.objectIdentifier("1.2.840.113549.1.1.1"), DER.null]),
                          DER.octetString(Array(key.derRepresentation))])
        case .p256(let key): Array(key.derRepresentation)
        case .p384(let key): Array(key.derRepresentation)
        case .p521(let key): Array(key.derRepresentation)
        case .ed25519(let key):
            // RFC 8410 §7: the private key is an OCTET STRING inside the privateKey OCTET STRING.
            DER.sequence([DER.integer(0), DER.sequence([DER.objectIdentifier(Self.ed25519OID)]),
                          DER.octetString(DER.octetString(Array(key.rawRepresentation)))])
        }
    }

    static let ed25519OID = "1.3.101.112"

    func sign(_ message: [UInt8], with algorithm: TestSignatureAlgorithm) throws -> [UInt8] {
        switch (backing, algorithm) {
        case (.rsa(let key), .rsaPKCS1v15(let digest)):
            return Array(try key.signature(for: Self.digest(message, digest), padding: .insecurePKCS1v1_5).rawRepresentation)
        case (.rsa(let key), .rsaPSS(let digest, let saltLength)):
            guard saltLength == digest.length else {
                throw TestPKIError(operation: "sign \(algorithm) with swift-crypto",
                                   unsupported: "swift-crypto signs PSS only with a salt as long as the digest (\(digest.length) bytes)")
            }
            return Array(try key.signature(for: Self.digest(message, digest), padding: .PSS).rawRepresentation)
        case (.p256(let key), .ecdsa(let digest)):
            return Array(try key.signature(for: Self.digest(message, digest)).derRepresentation)
        case (.p384(let key), .ecdsa(let digest)):
            return Array(try key.signature(for: Self.digest(message, digest)).derRepresentation)
        case (.p521(let key), .ecdsa(let digest)):
            return Array(try key.signature(for: Self.digest(message, digest)).derRepresentation)
        case (.ed25519(let key), .ed25519):
            return Array(try key.signature(for: message))
        default:
            throw TestPKIError(operation: "sign \(algorithm) with a \(keyType) key")
        }
    }

    /// `message` hashed with `digest` by swift-crypto.
    private static func digest(_ message: [UInt8], _ digest: SignatureDigest) -> any Digest {
        switch digest {
        case .sha1: Insecure.SHA1.hash(data: message)
        case .sha256: SHA256.hash(data: message)
        case .sha384: SHA384.hash(data: message)
        case .sha512: SHA512.hash(data: message)
        }
    }
}
#endif
