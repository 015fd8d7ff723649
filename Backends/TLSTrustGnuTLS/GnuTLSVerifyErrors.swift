internal import CGnuTLS
import TLSTrust

/// Maps GnuTLS's `gnutls_certificate_status_t` bits onto TLSTrust's portable codes, with GnuTLS's
/// own text for each bit.
///
/// GnuTLS reports one OR of status bits for a whole chain, and several bits cover more than one
/// problem (`GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` means a path length, name constraint, key
/// usage or depth violation); the mapping names the most likely portable reason and keeps the bit
/// and GnuTLS's text alongside, so nothing GnuTLS said is lost.
enum GnuTLSVerifyErrors {
    static let invalid = GNUTLS_CERT_INVALID.rawValue
    static let revoked = GNUTLS_CERT_REVOKED.rawValue
    static let signerNotFound = GNUTLS_CERT_SIGNER_NOT_FOUND.rawValue
    static let signerNotCA = GNUTLS_CERT_SIGNER_NOT_CA.rawValue
    static let insecureAlgorithm = GNUTLS_CERT_INSECURE_ALGORITHM.rawValue
    static let notActivated = GNUTLS_CERT_NOT_ACTIVATED.rawValue
    static let expired = GNUTLS_CERT_EXPIRED.rawValue
    static let signatureFailure = GNUTLS_CERT_SIGNATURE_FAILURE.rawValue
    static let unexpectedOwner = GNUTLS_CERT_UNEXPECTED_OWNER.rawValue
    static let signerConstraintsFailure = GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE.rawValue
    static let mismatch = GNUTLS_CERT_MISMATCH.rawValue
    static let purposeMismatch = GNUTLS_CERT_PURPOSE_MISMATCH.rawValue
    static let unknownCriticalExtensions = GNUTLS_CERT_UNKNOWN_CRIT_EXTENSIONS.rawValue

    /// The portable code for one status bit.
    ///
    /// The ambiguous `GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE` becomes `nameConstraintsViolated`
    /// (its most specific meaning; the native description keeps GnuTLS's wording); bits that
    /// TLSTrust never asks for (OCSP, CRL freshness, TOFU) and a bare `GNUTLS_CERT_INVALID` become
    /// `internalError`. All of these are fatal.
    static func portableCode(_ bit: UInt32, host: HostIdentity?) -> TrustFailureCode {
        switch bit {
        case signerNotFound: return .unknownIssuer
        case signatureFailure: return .badSignature
        case insecureAlgorithm: return .weakAlgorithm
        case expired: return .expired
        case notActivated: return .notYetValid
        case signerNotCA: return .notCertificateAuthority
        case signerConstraintsFailure: return .nameConstraintsViolated
        case purposeMismatch: return .purposeNotAllowed
        case unknownCriticalExtensions: return .unhandledCriticalExtension
        case revoked: return .revoked
        case unexpectedOwner:
            if case .ipAddress? = host { return .ipAddressMismatch }
            return .hostnameMismatch
        default: return .internalError
        }
    }

    /// Every single bit `status` carries, lowest first.
    static func bits(of status: UInt32) -> [UInt32] {
        (0..<32).map { UInt32(1) << $0 }.filter { status & $0 != 0 }
    }

    /// GnuTLS's own text for one status bit, as `gnutls_certificate_verification_status_print`
    /// words it (without its leading "The certificate is NOT trusted.").
    static func text(_ bit: UInt32) -> String {
        if let cached = texts[bit] { return cached }
        return describe(bit)
    }

    /// GnuTLS's text for a whole status, e.g. `The certificate is NOT trusted. The certificate issuer is unknown.`
    static func fullText(_ status: UInt32) -> String {
        var out = gnutls_datum_t(data: nil, size: 0)
        guard gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) >= 0 else {
            return "GnuTLS verification status 0x\(String(status, radix: 16))"
        }
        let bytes = GnuTLSLibrary.takeBytes(&out)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingTrailingSpaces()
    }

    /// The texts are fixed strings; print each known bit once.
    private static let texts: [UInt32: String] = {
        var table: [UInt32: String] = [:]
        for shift in 0..<23 { table[UInt32(1) << shift] = describe(UInt32(1) << shift) }
        return table
    }()

    private static func describe(_ bit: UInt32) -> String {
        var text = fullText(bit | invalid)
        for prefix in ["The certificate is NOT trusted.", "The certificate is trusted."] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count)).trimmingLeadingSpaces()
        }
        if !text.isEmpty { return text }
        return bit == invalid ? "The certificate is NOT trusted." : "The certificate is NOT trusted (GnuTLS status 0x\(String(bit, radix: 16)))."
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\n" { s = s.dropLast() }
        return String(s)
    }

    fileprivate func trimmingLeadingSpaces() -> String {
        String(drop { $0 == " " })
    }
}
