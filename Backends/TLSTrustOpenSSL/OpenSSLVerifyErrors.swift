internal import COpenSSL
import TLSTrust

/// Maps OpenSSL's `X509_V_ERR_*` verification errors onto TLSTrust's portable codes.
///
/// Every code OpenSSL 3.0 defines is listed, so that nothing falls through by accident; codes that
/// cannot arise in TLSTrust's use (DANE, OCSP, Suite B) map to `.internalError`, which is
/// fatal — an unexpected error never becomes trust. CRL errors arise only when the request asks
/// for revocation (`OpenSSLNativeRevocation`): a listed certificate is `.revoked`; every error
/// about a CRL that is missing or cannot be used is `.revocationStatusUnknown`, the engine's code
/// for "no usable answer" under hard-fail.
enum OpenSSLVerifyErrors {
    static func portableCode(_ error: Int32) -> TrustFailureCode {
        switch error {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SUBJECT_ISSUER_MISMATCH,
             X509_V_ERR_AKID_SKID_MISMATCH, X509_V_ERR_AKID_ISSUER_SERIAL_MISMATCH, X509_V_ERR_PATH_LOOP:
            return .unknownIssuer
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            return .untrustedRoot
        case X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE, X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY,
             X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_NO_ISSUER_PUBLIC_KEY,
             X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH, X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY:
            return .badSignature
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .notYetValid
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired
        case X509_V_ERR_CERT_CHAIN_TOO_LONG:
            return .chainTooLong
        case X509_V_ERR_CERT_REVOKED:
            return .revoked
        case X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED:
            return .pathLengthExceeded
        case X509_V_ERR_INVALID_PURPOSE:
            return .purposeNotAllowed
        case _ where isRevocationError(error) && error != X509_V_ERR_CERT_REVOKED:
            return .revocationStatusUnknown
        case X509_V_ERR_KEYUSAGE_NO_CERTSIGN, X509_V_ERR_KEYUSAGE_NO_DIGITAL_SIGNATURE:
            return .invalidKeyUsage
        case X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, X509_V_ERR_UNSUPPORTED_EXTENSION_FEATURE:
            return .unhandledCriticalExtension
        case X509_V_ERR_INVALID_NON_CA, X509_V_ERR_INVALID_CA, X509_V_ERR_PROXY_CERTIFICATES_NOT_ALLOWED:
            return .notCertificateAuthority
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION, X509_V_ERR_SUBTREE_MINMAX,
             X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX,
             X509_V_ERR_UNSUPPORTED_NAME_SYNTAX, X509_V_ERR_PROXY_SUBJECT_NAME_VIOLATION:
            return .nameConstraintsViolated
        case X509_V_ERR_HOSTNAME_MISMATCH:
            return .hostnameMismatch
        case X509_V_ERR_EMAIL_MISMATCH:
            return .emailAddressMismatch
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .ipAddressMismatch
        case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL, X509_V_ERR_CA_MD_TOO_WEAK,
             X509_V_ERR_UNSUPPORTED_SIGNATURE_ALGORITHM, X509_V_ERR_EC_KEY_EXPLICIT_PARAMS:
            return .weakAlgorithm
        case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD,
             X509_V_ERR_INVALID_EXTENSION, X509_V_ERR_INVALID_POLICY_EXTENSION,
             X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA, X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN,
             X509_V_ERR_KU_KEY_CERT_SIGN_INVALID_FOR_NON_CA, X509_V_ERR_ISSUER_NAME_EMPTY,
             X509_V_ERR_SUBJECT_NAME_EMPTY, X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER,
             X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER, X509_V_ERR_EMPTY_SUBJECT_ALT_NAME,
             X509_V_ERR_EMPTY_SUBJECT_SAN_NOT_CRITICAL, X509_V_ERR_CA_BCONS_NOT_CRITICAL,
             X509_V_ERR_AUTHORITY_KEY_IDENTIFIER_CRITICAL, X509_V_ERR_SUBJECT_KEY_IDENTIFIER_CRITICAL,
             X509_V_ERR_CA_CERT_MISSING_KEY_USAGE, X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3:
            return .malformedCertificate
        case X509_V_ERR_NO_EXPLICIT_POLICY:
            return .certificatePolicyViolated
        default:
            // X509_V_ERR_UNSPECIFIED, OUT_OF_MEM, INVALID_CALL, STORE_LOOKUP, and DANE / OCSP /
            // SCT / Suite B codes that TLSTrust never enables.
            return .internalError
        }
    }

    /// The errors OpenSSL's CRL checking (`check_revocation` → `check_cert`, `check_crl`,
    /// `cert_crl` in crypto/x509/x509_vfy.c) reports, and only those: raised only under
    /// `X509_V_FLAG_CRL_CHECK`. `KEYUSAGE_NO_CRL_SIGN` and `UNHANDLED_CRITICAL_CRL_EXTENSION` are
    /// about the CRL or its issuer, never about the path. Not listed: `UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY`,
    /// which `check_crl` shares with certificate signatures (it stays `.badSignature`).
    static func isRevocationError(_ error: Int32) -> Bool {
        switch error {
        case X509_V_ERR_CERT_REVOKED, X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER,
             X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE, X509_V_ERR_CRL_SIGNATURE_FAILURE,
             X509_V_ERR_CRL_NOT_YET_VALID, X509_V_ERR_CRL_HAS_EXPIRED,
             X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD, X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD,
             X509_V_ERR_KEYUSAGE_NO_CRL_SIGN, X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION,
             X509_V_ERR_DIFFERENT_CRL_SCOPE, X509_V_ERR_CRL_PATH_VALIDATION_ERROR:
            return true
        default:
            return false
        }
    }

    /// OpenSSL's own text for a verification error.
    static func text(_ error: Int32) -> String {
        String(cString: X509_verify_cert_error_string(Int(error)))
    }
}
