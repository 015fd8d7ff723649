internal import COpenSSL
import Foundation
import TLSTrust

/// A precertificate and the certificate issued after it (RFC 6962 §3.1), for embedded SCTs.
///
/// The precertificate is the profile with the critical poison extension, signed by the issuer or
/// by a precertificate signing certificate (a CA certificate with the Certificate Transparency
/// extended key usage, issued by the final issuer). The log's view of it is computed here with
/// OpenSSL, independently of the core: the poison removed, and for a precertificate signing
/// certificate the issuer name and authority key identifier replaced by the final issuer's.
///
/// ```swift
/// let pre = try TestPrecertificate(profile: leafProfile, issuer: ca)
/// let sct = try log.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash)
/// let leaf = try pre.issueFinal(scts: [sct])
/// ```
public struct TestPrecertificate: Sendable {
    /// The profile both certificates share (its serial number and validity fixed).
    public let profile: CertificateProfile
    /// The final certificate's issuer.
    public let issuer: TestCertificate
    /// The precertificate's DER, poison included.
    public let der: [UInt8]
    /// The subject key both certificates certify.
    public let subjectKey: TestPrivateKey
    /// The TBSCertificate a log signs: the precertificate's, poison removed (and issuer rewritten).
    public let logEntryTBS: [UInt8]

    /// Mints the precertificate for `profile`, signed by `issuer` or by `precertificateSigner`.
    public init(profile: CertificateProfile, issuer: TestCertificate, precertificateSigner: TestCertificate? = nil) throws {
        var fixed = profile
        if fixed.serialNumber == nil { fixed.serialNumber = [0x41] + (0..<15).map { _ in UInt8.random(in: 0...255) } }
        self.profile = fixed
        self.issuer = issuer
        subjectKey = try TestPrivateKey(fixed.effectiveKeyType)
        var pre = fixed
        pre.extensions.append(SCTListEncoding.poisonExtension)
        der = try TestPKI.mintDER(pre, subjectKey: subjectKey, issuer: precertificateSigner ?? issuer)
        logEntryTBS = try Self.logView(of: der, precertificateSigner: precertificateSigner)
    }

    /// SHA-256 of the final issuer's SubjectPublicKeyInfo.
    public var issuerKeyHash: [UInt8] { issuer.certificate.publicKey.sha256 }

    /// The final certificate: the same profile with the SCT list extension in the poison's place.
    public func issueFinal(scts: [[UInt8]]) throws -> TestCertificate {
        try issueFinal(extensionValue: SCTListEncoding.extensionValue(SCTListEncoding.list(scts)))
    }

    /// The final certificate with any bytes as the SCT list extension's value (for malformed lists).
    public func issueFinal(extensionValue: [UInt8]) throws -> TestCertificate {
        var final = profile
        final.extensions.append(RawExtension(oid: TransparencyOID.embeddedSCTList, isCritical: false, valueDER: extensionValue))
        return try TestPKI.issue(final, subjectKey: subjectKey, issuer: issuer)
    }

    /// A precertificate signing certificate for `issuer`: a CA certificate whose only extended
    /// key usage is Certificate Transparency's (1.3.6.1.4.1.11129.2.4.4).
    public static func signingCertificate(issuedBy issuer: TestCertificate) throws -> TestCertificate {
        var profile = CertificateProfile.certificateAuthority(commonName: "Precertificate Signing")
        profile.extensions.append(RawExtension(
            oid: RawExtension.OID.extendedKeyUsage, isCritical: false,
            valueDER: DER.sequence([DER.objectIdentifier(TransparencyOID.precertificateSigning)])))
        return try TestPKI.issue(profile, issuer: issuer)
    }

    /// The TBSCertificate of `precertificate` as a log signs it, re-encoded by OpenSSL.
    static func logView(of precertificate: [UInt8], precertificateSigner: TestCertificate?) throws -> [UInt8] {
        let x509 = try parseX509(precertificate)
        defer { X509_free(x509) }
        guard let poisonOID = OBJ_txt2obj(TransparencyOID.precertificatePoison, 1) else { throw TestPKIError.openSSL("OBJ_txt2obj") }
        defer { ASN1_OBJECT_free(poisonOID) }
        let index = X509_get_ext_by_OBJ(x509, poisonOID, -1)
        guard index >= 0, let removed = X509_delete_ext(x509, index) else { throw TestPKIError(operation: "no poison extension to remove") }
        X509_EXTENSION_free(removed)
        if let signer = precertificateSigner {
            let signerX509 = try parseX509(signer.der)
            defer { X509_free(signerX509) }
            try check(X509_set_issuer_name(x509, X509_get_issuer_name(signerX509)), "X509_set_issuer_name")
            let own = X509_get_ext_by_NID(x509, NID_authority_key_identifier, -1)
            let signers = X509_get_ext_by_NID(signerX509, NID_authority_key_identifier, -1)
            if own >= 0, signers >= 0 {
                // Replaced in place, so the extensions keep their order.
                try check(X509_EXTENSION_set_data(X509_get_ext(x509, own), X509_EXTENSION_get_data(X509_get_ext(signerX509, signers))),
                          "X509_EXTENSION_set_data")
            }
        }
        return try derEncoding("i2d_re_X509_tbs") { i2d_re_X509_tbs(x509, $0) }
    }
}
