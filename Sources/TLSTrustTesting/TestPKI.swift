internal import COpenSSL
import Foundation

/// Mints X.509 certificates at test time with OpenSSL.
///
/// Every certificate the test suites use is made here, relative to the current time, so none is
/// committed and none can expire on its own.
public enum TestPKI {
    /// Mints a certificate for `profile`, signed by `issuer`'s key, or self-signed when `issuer`
    /// is `nil`. A fresh key of `profile.keyAlgorithm` is generated for the subject.
    public static func issue(_ profile: CertificateProfile, issuer: TestCertificate? = nil) throws -> TestCertificate {
        try issue(profile, subjectKey: TestPrivateKey(profile.keyAlgorithm), issuer: issuer)
    }

    /// Mints a certificate for `profile` certifying an existing key (to re-certify a key, or to
    /// make two certificates share one). `subjectKey.algorithm` wins over `profile.keyAlgorithm`.
    public static func issue(
        _ profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?
    ) throws -> TestCertificate {
        var profile = profile
        profile.keyAlgorithm = subjectKey.algorithm
        let der = try X509Builder.build(profile: profile, subjectKey: subjectKey, issuer: issuer)
        return try TestCertificate(der: der, privateKey: subjectKey, profile: profile)
    }
}
