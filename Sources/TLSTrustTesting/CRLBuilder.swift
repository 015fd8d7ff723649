internal import COpenSSL
import Foundation

extension TestPKI {
    /// Mints a v2 certificate revocation list for `issuer`, listing `revoked`, at test time.
    ///
    /// - Parameters:
    ///   - issuer: the CA whose CRL this is (its subject becomes the CRL's issuer).
    ///   - revoked: certificates to list as revoked, by serial number (default none).
    ///   - thisUpdate: default one hour ago.
    ///   - nextUpdate: default in seven days; nil omits the field.
    ///   - signer: the key that signs (default the issuer's): another key makes a CRL whose
    ///     signature does not verify.
    /// - Returns: the DER of the CRL.
    public static func issueCRL(
        issuer: TestCertificate, revoking revoked: [TestCertificate] = [],
        thisUpdate: Date = Date(timeIntervalSinceNow: -3600), nextUpdate: Date? = Date(timeIntervalSinceNow: 7 * 86400),
        signer: TestPrivateKey? = nil
    ) throws -> [UInt8] {
        ERR_clear_error()
        guard let crl = X509_CRL_new() else { throw TestPKIError.openSSL("X509_CRL_new") }
        defer { X509_CRL_free(crl) }
        let issuerX509 = try parseX509(issuer.der)
        defer { X509_free(issuerX509) }
        try check(X509_CRL_set_version(crl, 1), "X509_CRL_set_version")  // 1 means v2
        try check(X509_CRL_set_issuer_name(crl, X509_get_subject_name(issuerX509)), "X509_CRL_set_issuer_name")
        try withTime(thisUpdate) { try check(X509_CRL_set1_lastUpdate(crl, $0), "X509_CRL_set1_lastUpdate") }
        if let nextUpdate {
            try withTime(nextUpdate) { try check(X509_CRL_set1_nextUpdate(crl, $0), "X509_CRL_set1_nextUpdate") }
        }
        for certificate in revoked {
            guard let entry = X509_REVOKED_new() else { throw TestPKIError.openSSL("X509_REVOKED_new") }
            var owned = true
            defer { if owned { X509_REVOKED_free(entry) } }
            let serial = certificate.certificate.serialNumber
            guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else { throw TestPKIError.openSSL("BN_bin2bn") }
            defer { BN_free(number) }
            guard let integer = BN_to_ASN1_INTEGER(number, nil) else { throw TestPKIError.openSSL("BN_to_ASN1_INTEGER") }
            defer { ASN1_INTEGER_free(integer) }
            try check(X509_REVOKED_set_serialNumber(entry, integer), "X509_REVOKED_set_serialNumber")
            try withTime(thisUpdate) { try check(X509_REVOKED_set_revocationDate(entry, $0), "X509_REVOKED_set_revocationDate") }
            try check(X509_CRL_add0_revoked(crl, entry), "X509_CRL_add0_revoked")
            owned = false  // the CRL owns the entry now
        }
        try check(X509_CRL_sort(crl), "X509_CRL_sort")
        let key = signer ?? issuer.privateKey
        let digest = key.keyType.usesSeparateDigest ? EVP_sha256() : nil
        try check(X509_CRL_sign(crl, key.pkey, digest), "X509_CRL_sign", positive: true)
        return try derEncoding("i2d_X509_CRL") { i2d_X509_CRL(crl, $0) }
    }

    private static func withTime(_ date: Date, _ body: (UnsafeMutablePointer<ASN1_TIME>) throws -> Void) throws {
        guard let time = ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970.rounded(.down))) else {
            throw TestPKIError.openSSL("ASN1_TIME_set")
        }
        defer { ASN1_TIME_free(time) }
        try body(time)
    }
}
