internal import COpenSSL
import Foundation

/// The OpenSSL calls that turn a `CertificateProfile` into a signed DER certificate.
///
/// Ownership rule: every object allocated here is released by a `defer` placed directly under
/// its allocation; objects handed to OpenSSL setters (`X509_set_subject_name`, `X509_add_ext`,
/// `X509_set_pubkey`) are copied or reference-counted by OpenSSL, so ours are still freed.
enum X509Builder {
    static func build(profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?) throws -> [UInt8] {
        ERR_clear_error()
        guard let x509 = X509_new() else { throw TestPKIError.openSSL("X509_new") }
        defer { X509_free(x509) }

        let issuerX509 = try issuer.map { try parseX509($0.der) }
        defer { if let issuerX509 { X509_free(issuerX509) } }

        try check(X509_set_version(x509, 2), "X509_set_version")  // 2 means v3
        try setSerialNumber(of: x509, to: profile.serialNumber)
        try setSubjectName(of: x509, profile: profile)
        try check(
            X509_set_issuer_name(x509, X509_get_subject_name(issuerX509 ?? x509)), "X509_set_issuer_name")
        try setTime(X509_getm_notBefore(x509), to: profile.notBefore, "notBefore")
        try setTime(X509_getm_notAfter(x509), to: profile.notAfter, "notAfter")
        try check(X509_set_pubkey(x509, subjectKey.pkey), "X509_set_pubkey")

        let signer = issuer?.privateKey ?? subjectKey
        try addExtensions(to: x509, issuer: issuerX509, signer: signer, profile: profile)

        let digest = signer.algorithm.usesSeparateDigest ? messageDigest(profile.signatureDigest) : nil
        try check(X509_sign(x509, signer.pkey, digest), "X509_sign", positive: true)
        return try derEncoding("i2d_X509") { i2d_X509(x509, $0) }
    }

    /// Sets the serial from `bytes` (big-endian), or from 16 random bytes: positive (top bit
    /// clear) and non-zero, within RFC 5280's 20-octet limit.
    private static func setSerialNumber(of x509: OpaquePointer, to bytes: [UInt8]?) throws {
        // Swift's system generator, not RAND_bytes: shim.h does not include <openssl/rand.h>,
        // and a serial only needs to be unpredictable enough never to collide.
        var serial = bytes ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        if bytes == nil { serial[0] = serial[0] & 0x7F | 0x40 }
        guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else {
            throw TestPKIError.openSSL("BN_bin2bn")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil else {
            throw TestPKIError.openSSL("BN_to_ASN1_INTEGER")
        }
    }

    private static func setSubjectName(of x509: OpaquePointer, profile: CertificateProfile) throws {
        guard let name = X509_NAME_new() else { throw TestPKIError.openSSL("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        let entries = [("O", profile.organization), ("CN", profile.commonName)]
        for case let (field, value?) in entries where !value.isEmpty {
            let bytes = Array(value.utf8)
            try check(
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0),
                "subject \(field)=\(value)")
        }
        try check(X509_set_subject_name(x509, name), "X509_set_subject_name")  // copies `name`
    }

    /// Writes any `Date` (UTCTime for 1950–2049, GeneralizedTime outside, as RFC 5280 requires).
    private static func setTime(_ field: UnsafeMutablePointer<ASN1_TIME>?, to date: Date, _ label: String) throws {
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        guard let field, ASN1_TIME_set(field, seconds) != nil else { throw TestPKIError.openSSL("set \(label)") }
    }

    private static func messageDigest(_ digest: SignatureDigest) -> OpaquePointer? {
        switch digest {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// Adds the v3 extensions, written in OpenSSL's configuration syntax (the one `openssl x509
    /// -extfile` reads) so that each line is easy to compare with the `openssl` documentation.
    private static func addExtensions(
        to x509: OpaquePointer, issuer: OpaquePointer?, signer: TestPrivateKey, profile: CertificateProfile
    ) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer ?? x509, x509, nil, nil, 0)
        try check(X509V3_set_issuer_pkey(&context, signer.pkey), "X509V3_set_issuer_pkey")

        func add(_ name: String, _ value: String) throws {
            guard let extensionValue = X509V3_EXT_nconf(nil, &context, name, value) else {
                throw TestPKIError.openSSL("extension \(name) = \(value)")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            try check(X509_add_ext(x509, extensionValue, -1), "X509_add_ext \(name)")  // copies it
        }

        if let isCA = profile.isCA {
            var value = isCA ? "critical,CA:TRUE" : "critical,CA:FALSE"
            if isCA, let pathLength = profile.pathLengthConstraint { value += ",pathlen:\(pathLength)" }
            try add("basicConstraints", value)
        }
        let keyUsage = profile.effectiveKeyUsage
        if !keyUsage.isEmpty {
            try add("keyUsage", "critical," + keyUsage.openSSLNames.joined(separator: ","))
        }
        if let extendedKeyUsage = profile.extendedKeyUsage, !extendedKeyUsage.isEmpty {
            try add("extendedKeyUsage", extendedKeyUsage.map(\.rawValue).joined(separator: ","))
        }
        let alternativeNames = profile.dnsNames.map { "DNS:\($0)" } + profile.ipAddresses.map { "IP:\($0)" }
        if !alternativeNames.isEmpty {
            try add("subjectAltName", alternativeNames.joined(separator: ","))
        }
        let subtrees = profile.permittedDNSSubtrees.map { "permitted;DNS:\($0)" }
            + profile.excludedDNSSubtrees.map { "excluded;DNS:\($0)" }
        if !subtrees.isEmpty {
            try add("nameConstraints", "critical," + subtrees.joined(separator: ","))
        }
        if profile.includesKeyIdentifiers {
            let identifier = profile.subjectKeyIdentifierOverride.map {
                $0.map { String(format: "%02X", $0) }.joined(separator: ":")
            }
            try add("subjectKeyIdentifier", identifier ?? "hash")
            // "keyid" copies the issuer's subjectKeyIdentifier and is silently left out when the
            // issuer has none; a self-signed certificate needs no authorityKeyIdentifier.
            if issuer != nil { try add("authorityKeyIdentifier", "keyid") }
        }
    }
}
