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

/// The serial number as big-endian bytes, as encoded in the certificate (a leading zero byte
/// kept when the DER INTEGER has one), which pinning and logging code print or compare.
///
/// - Parameters:
///   - certificate: the certificate.
///   - error: never set; the certificate was parsed when it was created.
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    error?.pointee = nil
    return Data(certificate.certificate.serialNumber) as CFData
}

/// The subject's common name. With several commonName attributes, the last — the most specific,
/// which is the one Apple's implementation returns; nil (and `errSecSuccess`) when the subject
/// has none: a certificate named only by its subjectAltName is normal, not an error.
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    let names = certificate.certificate.subject.attributes.filter { $0.oid == "2.5.4.3" }.map(\.value)
    commonName.pointee = names.last.map { $0 as CFString }
    return errSecSuccess
}

/// The certificate's e-mail addresses: the subject's emailAddress attributes
/// (1.2.840.113549.1.9.1), then the subjectAltName's rfc822Names, without repeats — both places
/// Apple's implementation reads. An empty array when there are none.
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    let c = certificate.certificate
    var seen = Set<String>()
    let all = (c.subject.attributes.filter { $0.oid == "1.2.840.113549.1.9.1" }.map(\.value) + c.emailAddresses).filter { seen.insert($0).inserted }
    emailAddresses.pointee = all.map { $0 as NSString } as NSArray
    return errSecSuccess
}

/// The start of the certificate's validity period (notBefore).
public func SecCertificateCopyNotValidBeforeDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.notValidBefore as NSDate
}

/// The end of the certificate's validity period (notAfter; the certificate is valid at that instant).
public func SecCertificateCopyNotValidAfterDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.notValidAfter as NSDate
}
