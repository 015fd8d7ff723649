import TLSTrustCommonCrypto
import TLSTrust

/// A certificate with its private key, as `SecIdentity` on Apple platforms: a reference type,
/// equal and hashed by its certificate and key, immutable and `Sendable`. Made by `SecPKCS12Import`.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The identity as TLSTrust holds it (leaf, chain, the backend's private key).
    let identity: ClientIdentity
    let certificate: SecCertificate
    let privateKey: SecKey

    /// nil when the key type is not one Apple's `SecKey` holds (not RSA or EC).
    init?(_ identity: ClientIdentity) {
        guard let key = SecKey(privateKey: identity.privateKey) else { return nil }
        self.identity = identity
        certificate = SecCertificate(identity.certificate)
        privateKey = key
    }

    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }
    public var description: String { "<SecIdentity \(certificate)>" }
}

/// The identity's certificate.
@discardableResult
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key: a `SecKey` of class `kSecAttrKeyClassPrivate` whose material stays
/// in the backend's library (`SecKeyCopyExternalRepresentation` refuses it; `SecKeyCopyPublicKey`
/// gives its public half).
@discardableResult
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

public func SecIdentityGetTypeID() -> CFTypeID { TypeIdentifiers.identity }

// Option and item keys, with Apple's raw values (SecImportExport.c).
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase" as CFString
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label" as CFString
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid" as CFString
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust" as CFString
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain" as CFString
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity" as CFString

/// Imports the identity in a PKCS#12 file with the current backend (see `SecTrustEnvironment`).
///
/// `items` receives one dictionary with `kSecImportItemIdentity` (a `SecIdentity`),
/// `kSecImportItemCertChain` (leaf first, then the file's other certificates),
/// `kSecImportItemTrust` (a `SecTrust` over that chain with the basic X.509 policy, not yet
/// evaluated), `kSecImportItemLabel` (the leaf's subject summary) and `kSecImportItemKeyID` (the
/// SHA-1 of the public key's external representation).
///
/// - Returns: `errSecAuthFailed` for a wrong password, `errSecDecode` for damaged data or a file
///   without a private key, `errSecParam` without a passphrase, `errSecUnimplemented` when the
///   backend cannot import PKCS#12.
@discardableResult
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    guard let password = (options as NSDictionary)[kSecImportExportPassphrase as String] as? String else { return errSecParam }
    let identity: ClientIdentity
    do {
        identity = try SecBackend.current.importPKCS12([UInt8](pkcs12_data as Data), password: password)
    } catch let error as TLSTrustError {
        switch error.code {
        case .wrongPassword: return errSecAuthFailed
        case .unsupported: return errSecUnimplemented
        default: return errSecDecode
        }
    } catch {
        return errSecDecode
    }
    guard let secIdentity = SecIdentity(identity) else { return errSecUnsupportedFormat }
    let chain = identity.certificates.map { SecCertificate($0) }
    let trust = SecTrust(certificates: chain, policies: [SecPolicyCreateBasicX509()])
    var keyID = [UInt8](repeating: 0, count: Int(CC_SHA1_DIGEST_LENGTH))
    let external = secIdentity.privateKey.externalRepresentation
    _ = external.withUnsafeBytes { CC_SHA1($0.baseAddress, CC_LONG(external.count), &keyID) }
    let label = SecCertificateCopySubjectSummary(secIdentity.certificate).map { $0 as String } ?? ""
    let item: [String: Any] = [
        kSecImportItemIdentity as String: secIdentity,
        kSecImportItemCertChain as String: chain as NSArray,
        kSecImportItemTrust as String: trust,
        kSecImportItemLabel as String: label,
        kSecImportItemKeyID as String: Data(keyID),
    ]
    items.pointee = [item as NSDictionary] as NSArray
    return errSecSuccess
}
