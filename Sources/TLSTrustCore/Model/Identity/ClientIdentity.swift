/// A client identity: a leaf certificate, the chain to present with it, and its private key.
///
/// Made by a backend from a PKCS#12 file (``TrustBackend/importPKCS12(_:password:)``) or from a PEM
/// certificate chain and key (``TrustBackend/importIdentity(certificateChainPEM:privateKeyPEM:password:)``),
/// in the manner of swift-nio-ssl's `NIOSSLPKCS12Bundle`. The password is never kept.
///
/// ```swift
/// let identity = try OpenSSLTrustBackend().importPKCS12(p12Bytes, password: "secret")
/// print(identity.certificate.subject, identity.certificateChain.count)
/// ```
public struct ClientIdentity: Sendable {
    /// The certificate whose key is ``privateKey``.
    public let certificate: Certificate
    /// The certificates to send after the leaf (intermediates, possibly a root), leaf excluded.
    public let certificateChain: [Certificate]
    /// The private key, held by the backend that imported it.
    public let privateKey: any PrivateKeyHandle

    /// Makes an identity, checking that `privateKey` belongs to `certificate`.
    ///
    /// - Throws: `TLSTrustError` `.keyMismatch` when the key's public half is not the certificate's.
    public init(certificate: Certificate, certificateChain: [Certificate], privateKey: any PrivateKeyHandle) throws {
        guard privateKey.publicKey == certificate.publicKey else {
            throw TLSTrustError(.keyMismatch, "the private key does not belong to the certificate \(certificate.subject)")
        }
        self.certificate = certificate
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Makes an identity from a key and an unordered set of certificates: the leaf is the
    /// certificate that carries the key's public half, the others follow it in their given order.
    ///
    /// - Throws: `TLSTrustError` `.noCertificate` when `certificates` is empty, `.keyMismatch` when
    ///   no certificate carries the key.
    public init(privateKey: any PrivateKeyHandle, certificates: [Certificate]) throws {
        guard !certificates.isEmpty else {
            throw TLSTrustError(.noCertificate, "the identity holds a private key but no certificate")
        }
        guard let index = certificates.firstIndex(where: { $0.publicKey == privateKey.publicKey }) else {
            throw TLSTrustError(.keyMismatch, "no certificate of the \(certificates.count) given matches the private key")
        }
        var rest = certificates
        let leaf = rest.remove(at: index)
        try self.init(certificate: leaf, certificateChain: rest, privateKey: privateKey)
    }

    /// The leaf followed by the chain: what a TLS client sends.
    public var certificates: [Certificate] { [certificate] + certificateChain }
}

/// A password as bytes for a C library, wiped as soon as the library is done with them.
public enum IdentityPassword {
    /// Calls `body` with a NUL-terminated copy of `password` and its length (without the NUL),
    /// then overwrites the copy with zeros. Swift's own `String` cannot be wiped; this copy is the
    /// only one TLSTrust makes.
    public static func withWipedCString<R>(_ password: String, _ body: (UnsafeMutablePointer<CChar>, Int) throws -> R) rethrows -> R {
        var bytes = Array(password.utf8CString)
        defer {
            bytes.withUnsafeMutableBytes { raw in
                for i in raw.indices { raw[i] = 0 }
            }
        }
        return try bytes.withUnsafeMutableBufferPointer { buffer in
            try body(buffer.baseAddress!, buffer.count - 1)
        }
    }

    /// Overwrites `bytes` with zeros (for key or password copies a backend made).
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            for i in raw.indices { raw[i] = 0 }
        }
    }
}
