internal import CMbedTLS
import TLSTrust

/// The `MBEDTLS_X509_BADCERT_*` flags `mbedtls_x509_crt_verify_with_profile` sets per certificate,
/// what each means as a portable `TrustFailureCode`, and mbedTLS's own text for it
/// (`mbedtls_x509_crt_verify_info`).
///
/// | flag | value | portable code | note |
/// |---|---|---|---|
/// | EXPIRED | 0x01 | expired | judged against the real clock |
/// | REVOKED | 0x02 | revoked | never set: no CRLs are passed |
/// | CN_MISMATCH | 0x04 | hostnameMismatch | |
/// | NOT_TRUSTED | 0x08 | unknownIssuer | mbedTLS's one flag for "no issuer found", "issuer refused" and "signature does not verify" |
/// | MISSING | 0x40 | malformedCertificate | |
/// | SKIP_VERIFY | 0x80 | internalError | |
/// | OTHER | 0x100 | internalError | |
/// | FUTURE | 0x200 | notYetValid | judged against the real clock |
/// | KEY_USAGE | 0x800 | invalidKeyUsage | |
/// | EXT_KEY_USAGE | 0x1000 | purposeNotAllowed | |
/// | NS_CERT_TYPE | 0x2000 | purposeNotAllowed | |
/// | BAD_MD | 0x4000 | weakAlgorithm | digest outside the profile |
/// | BAD_PK | 0x8000 | weakAlgorithm | key algorithm outside the profile |
/// | BAD_KEY | 0x10000 | weakAlgorithm | key too small for the profile (set on the certificate it signed) |
/// | any other | | internalError | |
enum MbedTLSVerifyFlag {
    static let mapping: [UInt32: TrustFailureCode] = [
        UInt32(MBEDTLS_X509_BADCERT_EXPIRED): .expired,
        UInt32(MBEDTLS_X509_BADCERT_REVOKED): .revoked,
        UInt32(MBEDTLS_X509_BADCERT_CN_MISMATCH): .hostnameMismatch,
        UInt32(MBEDTLS_X509_BADCERT_NOT_TRUSTED): .unknownIssuer,
        UInt32(MBEDTLS_X509_BADCERT_MISSING): .malformedCertificate,
        UInt32(MBEDTLS_X509_BADCERT_SKIP_VERIFY): .internalError,
        UInt32(MBEDTLS_X509_BADCERT_OTHER): .internalError,
        UInt32(MBEDTLS_X509_BADCERT_FUTURE): .notYetValid,
        UInt32(MBEDTLS_X509_BADCERT_KEY_USAGE): .invalidKeyUsage,
        UInt32(MBEDTLS_X509_BADCERT_EXT_KEY_USAGE): .purposeNotAllowed,
        UInt32(MBEDTLS_X509_BADCERT_NS_CERT_TYPE): .purposeNotAllowed,
        UInt32(MBEDTLS_X509_BADCERT_BAD_MD): .weakAlgorithm,
        UInt32(MBEDTLS_X509_BADCERT_BAD_PK): .weakAlgorithm,
        UInt32(MBEDTLS_X509_BADCERT_BAD_KEY): .weakAlgorithm,
    ]

    /// The portable code for one flag; unknown flags are fatal (`internalError`), never trust.
    static func portableCode(_ flag: UInt32) -> TrustFailureCode { mapping[flag] ?? .internalError }

    /// Every single flag `flags` carries, lowest first.
    static func bits(of flags: UInt32) -> [UInt32] {
        var bits: [UInt32] = []
        var rest = flags
        while rest != 0 {
            let lowest = rest & (~rest &+ 1)
            bits.append(lowest)
            rest &= ~lowest
        }
        return bits
    }

    /// A failure for `flag` at `index`, carrying mbedTLS's code and text.
    static func failure(_ flag: UInt32, at index: Int?) -> TrustFailure {
        TrustFailure(portableCode(flag), certificateIndex: index, libraryCode: Int(flag), detail: text(flag))
    }

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
}
