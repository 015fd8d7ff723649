import TLSTrust

/// A key, as `SecKey` on Apple platforms: a reference type, equal and hashed by its key
/// material, immutable and `Sendable`. Public RSA and EC keys come from certificates; private keys
/// come with client identities (`SecIdentityCopyPrivateKey`) and stay inside the backend's library.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key as TLSTrust holds it: its SubjectPublicKeyInfo.
    let publicKey: PublicKey
    /// The key as `SecKeyCopyExternalRepresentation` returns it: PKCS#1 RSAPublicKey for RSA,
    /// the uncompressed point `04‖X‖Y` (ANSI X9.63) for EC: the subjectPublicKey BIT STRING's bytes.
    let externalRepresentation: [UInt8]
    let keyType: String
    let sizeInBits: Int
    /// The backend's private key, for a private key (`kSecAttrKeyClassPrivate`); nil for a public key.
    let privateKey: (any PrivateKeyHandle)?

    /// A private key: its public half decides type, size and equality.
    convenience init?(privateKey: any PrivateKeyHandle) {
        self.init(privateKey.publicKey, privateKey: privateKey)
    }

    /// nil for key types Apple's `SecKey` does not import from a certificate.
    init?(_ publicKey: PublicKey, privateKey: (any PrivateKeyHandle)? = nil) {
        switch publicKey.algorithm {
        case .rsa(let bits):
            keyType = kSecAttrKeyTypeRSA as String
            sizeInBits = bits
        case .ec(let curve):
            guard let bits = ["P-256": 256, "P-384": 384, "P-521": 521][curve] else { return nil }
            keyType = kSecAttrKeyTypeECSECPrimeRandom as String
            sizeInBits = bits
        default:
            return nil
        }
        self.publicKey = publicKey
        self.privateKey = privateKey
        externalRepresentation = Array(publicKey.subjectPublicKeyBytes)
    }

    var isPrivate: Bool { privateKey != nil }

    public static func == (lhs: SecKey, rhs: SecKey) -> Bool { lhs.publicKey == rhs.publicKey && lhs.isPrivate == rhs.isPrivate }
    public func hash(into hasher: inout Hasher) { hasher.combine(publicKey); hasher.combine(isPrivate) }
    public var description: String { "<SecKey \(publicKey.algorithm), \(isPrivate ? "private" : "public")>" }
}

// `nonisolated(unsafe)`: NSString is not marked Sendable on Linux, but these are immutable literals.
// Attribute keys and values, with Apple's raw values (what `kSecAttrKeyType as String` prints there).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type" as CFString
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz" as CFString
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz" as CFString
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls" as CFString
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0" as CFString
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1" as CFString
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42" as CFString
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73" as CFString
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73" as CFString
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data" as CFString

/// The key in Apple's external format: PKCS#1 RSAPublicKey DER for RSA, `04‖X‖Y` for EC.
/// Pinning code prepends the fixed ASN.1 SPKI header of the key type to hash the whole SPKI.
/// nil (with `errSecUnimplemented`) for a private key: its material stays inside the backend.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    if key.isPrivate {
        error?.pointee = Unmanaged.passRetained(makeStatusError(errSecUnimplemented, detail: "a private key's material is not exported on Linux"))
        return nil
    }
    return Data(key.externalRepresentation) as CFData
}

/// The key's attributes: `kSecAttrKeyType`, `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`,
/// `kSecAttrKeyClass` (public or private) and, for a public key, `kSecValueData` (the external
/// representation).
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var attributes: [String: Any] = [
        kSecAttrKeyType as String: key.keyType,
        kSecAttrKeySizeInBits as String: key.sizeInBits,
        kSecAttrEffectiveKeySize as String: key.sizeInBits,
        kSecAttrKeyClass as String: (key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String,
    ]
    if !key.isPrivate { attributes[kSecValueData as String] = Data(key.externalRepresentation) }
    return attributes as CFDictionary
}

/// The public key of a key; for a public key, the key itself.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { key.isPrivate ? SecKey(key.publicKey) : key }

public func SecKeyGetTypeID() -> CFTypeID { TypeIdentifiers.key }
