import TLSTrustCore

/// A minted certificate together with its private key and the profile it was made from.
///
/// It keeps the key so that the certificate can issue others, or serve as a TLS identity, and
/// the profile so that a test can assert against what it asked for.
public struct TestCertificate: Sendable {
    /// The certificate as the core library models it.
    public let certificate: Certificate
    /// The DER encoding of the certificate.
    public let der: [UInt8]
    /// The key whose public half the certificate certifies.
    public let privateKey: TestPrivateKey
    /// The profile the certificate was minted from.
    public let profile: CertificateProfile

    init(der: [UInt8], privateKey: TestPrivateKey, profile: CertificateProfile) throws {
        self.certificate = try Certificate(derEncoded: der)
        self.der = der
        self.privateKey = privateKey
        self.profile = profile
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public var pem: String { pemEncode(der, label: "CERTIFICATE") }

    /// The value of the `subjectKeyIdentifier` extension, or `nil` when it has none.
    public var subjectKeyIdentifier: [UInt8]? { certificate.subjectKeyIdentifier }
}

extension Array where Element == TestCertificate {
    /// The certificates as the core library models them, in the same order.
    public var certificates: [Certificate] { map(\.certificate) }
    /// The certificates concatenated as one PEM bundle, in the same order.
    public var pem: String { map(\.pem).joined() }
}
