/// Client identities (a certificate chain with its private key) in the library's own form.
///
/// A backend writes only what its library must read: the PKCS#12 container
/// (``readPKCS12(_:password:)``) and one PEM private key (``readPrivateKey(_:password:)``). The
/// rest is the same for every library and is the core's, in the defaults of
/// ``importPKCS12(_:password:)`` and ``importIdentity(certificateChainPEM:privateKeyPEM:password:)``:
/// the key-derivation budget before any library sees a password (``KeyDerivationBudget``), the
/// certificates read by the core's parser, "no key" and "no certificate" refusals, and the check
/// that the key is the leaf's (``ClientIdentity``). So a backend cannot forget one of them.
public protocol IdentityImporting: TrustBackend {
    /// The library's reading of a PKCS#12 file: its private key (nil when it holds none) and the
    /// DER of its certificates, in the file's order. Called after the core's budget check.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword` (the MAC does not verify), `.malformedPKCS12`,
    ///   or `.unsupported` (an algorithm the library cannot decrypt).
    func readPKCS12(_ data: [UInt8], password: String) throws -> PKCS12Contents

    /// The library's reading of a PEM private key (PKCS#8, encrypted PKCS#8, traditional RSA/EC),
    /// encrypted when `password` is given. Called after the core's budget check and only when the
    /// PEM holds a `PRIVATE KEY` block.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword` or `.malformedKey`
    ///   (``PrivateKeyPEM/unreadable(by:password:reason:)`` picks between them the same way everywhere).
    func readPrivateKey(_ pem: PrivateKeyPEM, password: String?) throws -> any PrivateKeyHandle

    /// Imports a client identity from a PKCS#12 (`.p12`, `.pfx`) file; the password is not kept.
    /// Defaulted (budget, ``readPKCS12(_:password:)``, the core's certificate parser, the identity's checks).
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.malformedPKCS12`, `.noPrivateKey`,
    ///   `.keyMismatch`, or `.unsupported`.
    func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity

    /// Imports a client identity from a PEM certificate chain (leaf first) and a PEM private key,
    /// encrypted when `password` is given. Defaulted (budget, the core's PEM reader,
    /// ``readPrivateKey(_:password:)``, the identity's checks).
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.noPrivateKey`, `.noCertificate`,
    ///   `.keyMismatch`, `.malformedKey`, or `.unsupported`.
    func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity
}

extension IdentityImporting {
    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        try KeyDerivationBudget.checkPKCS12(data)
        let contents = try readPKCS12(data, password: password)
        let certificates = try contents.certificates.map { try Certificate(derEncoded: $0) }
        guard let key = contents.privateKey else {
            throw TLSTrustError(.noPrivateKey, "the PKCS#12 file holds no private key (\(certificates.count) certificates)")
        }
        return try ClientIdentity(privateKey: key, certificates: certificates)
    }

    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        try KeyDerivationBudget.checkEncryptedPrivateKeyPEM(privateKeyPEM)
        let certificates = try Certificate.certificates(pemOrDER: certificateChainPEM)
        let pem = PrivateKeyPEM(privateKeyPEM)
        guard pem.text.contains("PRIVATE KEY-----") else {
            throw TLSTrustError(.noPrivateKey, "the key PEM holds no PRIVATE KEY block")
        }
        let key = try readPrivateKey(pem, password: password)
        guard let leaf = certificates.first else {
            throw TLSTrustError(.noCertificate, "the certificate PEM holds no certificate")
        }
        return try ClientIdentity(certificate: leaf, certificateChain: Array(certificates.dropFirst()), privateKey: key)
    }
}

/// What a library read from a PKCS#12 file, for the core to make an identity of.
public struct PKCS12Contents {
    /// The file's private key, owned by the backend's handle; nil when the file holds none.
    public var privateKey: (any PrivateKeyHandle)?
    /// The DER of every certificate in the file, leaf or not, in the file's order.
    public var certificates: [[UInt8]]

    public init(privateKey: (any PrivateKeyHandle)?, certificates: [[UInt8]]) {
        self.privateKey = privateKey
        self.certificates = certificates
    }
}

/// A PEM private key as a backend is handed it: the bytes for the library, the text to look at.
public struct PrivateKeyPEM {
    /// The PEM as given.
    public let bytes: [UInt8]
    /// The same, as text (invalid UTF-8 repaired), for finding block labels.
    public let text: String

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the key is encrypted (encrypted PKCS#8, or a `Proc-Type: 4,ENCRYPTED` header).
    public var isEncrypted: Bool { text.contains("ENCRYPTED") }

    /// The error for a key `library` could not read: a wrong (or missing) password when the key is
    /// encrypted, since a library cannot tell a wrong password from damage under encryption; else
    /// a malformed key.
    public func unreadable(by library: String, password: String?, reason: String) -> TLSTrustError {
        if isEncrypted {
            return TLSTrustError(.wrongPassword, "\(library) cannot decrypt the private key with \(password == nil ? "no password" : "this password"): \(reason)")
        }
        return TLSTrustError(.malformedKey, "\(library) cannot read the private key: \(reason)")
    }
}
