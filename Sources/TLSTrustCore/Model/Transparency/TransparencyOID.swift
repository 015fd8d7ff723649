/// The object identifiers of Certificate Transparency (RFC 6962 §3.1, §3.3), named once.
public enum TransparencyOID {
    /// The X.509 extension that carries a SignedCertificateTimestampList embedded in a certificate.
    public static let embeddedSCTList = "1.3.6.1.4.1.11129.2.4.2"
    /// The critical "poison" extension that makes a precertificate unusable as a certificate.
    public static let precertificatePoison = "1.3.6.1.4.1.11129.2.4.3"
    /// The extended key usage of a precertificate signing certificate.
    public static let precertificateSigning = "1.3.6.1.4.1.11129.2.4.4"
    /// The OCSP singleResponse extension that carries a SignedCertificateTimestampList.
    public static let ocspSCTList = "1.3.6.1.4.1.11129.2.4.5"
}
