import Foundation

/// Mints X.509 certificates at test time, with the key source in effect (``TestKeySources``).
///
/// Every certificate the test suites use is made here, relative to the current time, so none is
/// committed and none can expire on its own.
public enum TestPKI {
    /// Mints a certificate for `profile`, signed by `issuer`'s key, or self-signed when `issuer`
    /// is `nil`. A fresh key of `profile.keyAlgorithm` is generated for the subject.
    public static func issue(_ profile: CertificateProfile, issuer: TestCertificate? = nil) throws -> TestCertificate {
        try issue(profile, subjectKey: TestPrivateKey(profile.effectiveKeyType), issuer: issuer)
    }

    /// Mints a certificate for `profile` certifying an existing key (to re-certify a key, or to
    /// make two certificates share one). `subjectKey.algorithm` wins over `profile.keyAlgorithm`.
    public static func issue(
        _ profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?
    ) throws -> TestCertificate {
        let profile = adopting(subjectKey, into: profile)
        let der = try X509Builder.build(profile: profile, subjectKey: subjectKey, issuer: issuer)
        return try TestCertificate(der: der, privateKey: subjectKey, profile: profile)
    }

    /// Mints and returns only the DER, without parsing it: for certificates the core's parser
    /// rightly refuses (an iPAddress SAN of 5 bytes…), so that a test can assert that every
    /// backend and the core refuse the bytes. `issuer` signs (self-signed when `nil`).
    public static func mintDER(
        _ profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?
    ) throws -> [UInt8] {
        try X509Builder.build(profile: adopting(subjectKey, into: profile), subjectKey: subjectKey, issuer: issuer)
    }

    /// The profile with its key fields describing `key` (a given key wins over the profile's choice).
    private static func adopting(_ key: TestPrivateKey, into profile: CertificateProfile) -> CertificateProfile {
        var profile = profile
        profile.keyAlgorithm = key.algorithm
        profile.keyType = key.keyType
        return profile
    }
}
