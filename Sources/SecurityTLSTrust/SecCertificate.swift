import TLSTrust

/// An X.509 certificate, as `SecCertificate` on Apple platforms: a reference type, equal and
/// hashed by its DER bytes, immutable and `Sendable`.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The bytes the certificate was created from, returned unchanged by `SecCertificateCopyData`.
    let der: [UInt8]
    /// The parsed certificate TLSTrust evaluates.
    let certificate: Certificate

    init(der: [UInt8], certificate: Certificate) {
        self.der = der
        self.certificate = certificate
    }

    convenience init(_ certificate: Certificate) {
        self.init(der: certificate.derEncoded, certificate: certificate)
    }

    /// Reads DER with the core's parser, which is as lenient as Apple's where that is harmless (an
    /// RSA signature AlgorithmIdentifier with absent rather than NULL parameters); nil for PEM
    /// text, keys and anything else.
    convenience init?(der: [UInt8]) {
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        self.init(der: der, certificate: certificate)
    }

    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
    public var description: String { "<cert(\(certificate.subject))>" }
}

/// Creates a certificate from DER data; nil when the data is not one DER certificate (PEM text,
/// a key, garbage).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: [UInt8](data as Data))
}

/// The DER bytes the certificate was created from.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    Data(certificate.der) as CFData
}

/// The certificate's public key; nil for a key type Apple's SecKey does not hold (not RSA or EC).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    SecKey(certificate.certificate.publicKey)
}

/// A short human-readable summary: the subject's common name, else its first e-mail address or
/// DNS name, else the whole subject.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    let c = certificate.certificate
    let summary = c.subject.commonName ?? c.emailAddresses.first ?? c.dnsNames.first ?? c.subject.description
    return summary as CFString
}

public func SecCertificateGetTypeID() -> CFTypeID { TypeIdentifiers.certificate }
