internal import CMbedTLS
import TLSTrust

/// The `MBEDTLS_X509_BADCERT_*` flags `mbedtls_x509_crt_verify_with_profile` sets per certificate,
/// what each means as a portable ``TrustFailureCode``, and mbedTLS's own text for it
/// (`mbedtls_x509_crt_verify_info`).
///
/// | flag | value | portable code | note |
/// |---|---|---|---|
/// | EXPIRED | 0x01 | expired | cleared: mbedTLS reads the real clock; the backend re-judges at the request's date |
/// | REVOKED | 0x02 | revoked | never set: no CRLs are passed |
/// | CN_MISMATCH | 0x04 | hostnameMismatch | cleared: the verdict is the core's RFC 6125 matcher (see `MbedTLSHostCheck`) |
/// | NOT_TRUSTED | 0x08 | unknownIssuer / untrustedRoot / badSignature / notCertificateAuthority / … | mbedTLS uses one flag for "no issuer", "issuer refused" and "signature does not verify"; the backend tells them apart from the chain it built |
/// | MISSING | 0x40 | malformedCertificate | |
/// | SKIP_VERIFY | 0x80 | internalError | |
/// | OTHER | 0x100 | internalError | |
/// | FUTURE | 0x200 | notYetValid | cleared, as EXPIRED |
/// | KEY_USAGE | 0x800 | invalidKeyUsage | never set by verification; the backend uses it for a leaf whose keyUsage allows no TLS use (→ purposeNotAllowed, as OpenSSL) |
/// | EXT_KEY_USAGE | 0x1000 | purposeNotAllowed | set by the backend from `mbedtls_x509_crt_check_extended_key_usage`, for the leaf and (as OpenSSL) every CA |
/// | NS_CERT_TYPE | 0x2000 | purposeNotAllowed | |
/// | BAD_MD | 0x4000 | weakAlgorithm | SHA-1/MD5 signature; not reported on the last certificate of the chain (OpenSSL does not check the anchor's own signature) |
/// | BAD_PK | 0x8000 | weakAlgorithm | |
/// | BAD_KEY | 0x10000 | weakAlgorithm | reported on the certificate whose key is too small (mbedTLS flags the certificate it signed) |
enum MbedTLSVerifyFlag {
    static let expired = UInt32(MBEDTLS_X509_BADCERT_EXPIRED)
    static let revoked = UInt32(MBEDTLS_X509_BADCERT_REVOKED)
    static let cnMismatch = UInt32(MBEDTLS_X509_BADCERT_CN_MISMATCH)
    static let notTrusted = UInt32(MBEDTLS_X509_BADCERT_NOT_TRUSTED)
    static let missing = UInt32(MBEDTLS_X509_BADCERT_MISSING)
    static let skipVerify = UInt32(MBEDTLS_X509_BADCERT_SKIP_VERIFY)
    static let other = UInt32(MBEDTLS_X509_BADCERT_OTHER)
    static let future = UInt32(MBEDTLS_X509_BADCERT_FUTURE)
    static let keyUsage = UInt32(MBEDTLS_X509_BADCERT_KEY_USAGE)
    static let extKeyUsage = UInt32(MBEDTLS_X509_BADCERT_EXT_KEY_USAGE)
    static let nsCertType = UInt32(MBEDTLS_X509_BADCERT_NS_CERT_TYPE)
    static let badMD = UInt32(MBEDTLS_X509_BADCERT_BAD_MD)
    static let badPK = UInt32(MBEDTLS_X509_BADCERT_BAD_PK)
    static let badKey = UInt32(MBEDTLS_X509_BADCERT_BAD_KEY)

    /// Flags the verify callback clears before mbedTLS merges them: the backend judges them itself
    /// (dates against the request's date, host names by RFC 6125), so mbedTLS's overall status
    /// reflects the chain alone.
    static let judgedByBackend = expired | future | cnMismatch

    /// Flags that map to one portable code whatever the context (NOT_TRUSTED, BAD_KEY and the
    /// cleared ones are interpreted by the evaluation).
    static let directMapping: [(flag: UInt32, code: TrustFailureCode)] = [
        (revoked, .revoked), (missing, .malformedCertificate), (skipVerify, .internalError),
        (other, .internalError), (keyUsage, .invalidKeyUsage), (extKeyUsage, .purposeNotAllowed),
        (nsCertType, .purposeNotAllowed), (badMD, .weakAlgorithm), (badPK, .weakAlgorithm),
    ]

    static let known: UInt32 = expired | revoked | cnMismatch | notTrusted | missing | skipVerify | other | future
        | keyUsage | extKeyUsage | nsCertType | badMD | badPK | badKey

    /// mbedTLS's text for one flag, e.g. `The certificate validity has expired`.
    static func text(_ flag: UInt32) -> String {
        if let cached = texts[flag] { return cached }
        return describe(flag)
    }

    private static let texts: [UInt32: String] = {
        var table: [UInt32: String] = [:]
        for bit in 0..<32 { let f = UInt32(1) << UInt32(bit); table[f] = describe(f) }
        return table
    }()

    private static func describe(_ flags: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let written = mbedtls_x509_crt_verify_info(&buffer, buffer.count, "", flags)
        guard written > 0 else { return "mbedTLS verification flags 0x\(String(flags, radix: 16))" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").joined(separator: "; ")
    }

    /// A failure for `flag` at `index`, carrying mbedTLS's code and text plus the backend's note.
    static func failure(_ code: TrustFailureCode, _ flag: UInt32, at index: Int?, note: String? = nil) -> TrustFailure {
        let text = flag == 0 ? (note ?? "") : (note.map { "\(self.text(flag)) (\($0))" } ?? self.text(flag))
        return TrustFailure(code, certificateIndex: index, nativeCode: Int(flag), nativeDescription: text)
    }
}
