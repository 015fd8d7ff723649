// The Security framework's result codes, with Apple's values (SecBase.h), and their messages.

public let errSecSuccess: OSStatus = 0
public let errSecUnimplemented: OSStatus = -4
public let errSecParam: OSStatus = -50
public let errSecAllocate: OSStatus = -108
public let errSecUserCanceled: OSStatus = -128
public let errSecBadReq: OSStatus = -909
public let errSecInternalComponent: OSStatus = -2070
public let errSecNotAvailable: OSStatus = -25291
public let errSecAuthFailed: OSStatus = -25293
public let errSecDuplicateItem: OSStatus = -25299
public let errSecItemNotFound: OSStatus = -25300
public let errSecInteractionNotAllowed: OSStatus = -25308
public let errSecCreateChainFailed: OSStatus = -25318
public let errSecUnsupportedFormat: OSStatus = -25256
public let errSecUnknownFormat: OSStatus = -25257
public let errSecPkcs12VerifyFailure: OSStatus = -25264
public let errSecDecode: OSStatus = -26275
public let errSecHostNameMismatch: OSStatus = -67602
public let errSecUnknownCriticalExtensionFlag: OSStatus = -67603
public let errSecNoBasicConstraints: OSStatus = -67604
public let errSecNoBasicConstraintsCA: OSStatus = -67605
public let errSecInvalidKeyUsageForPolicy: OSStatus = -67608
public let errSecInvalidExtendedKeyUsage: OSStatus = -67609
public let errSecSMIMEEmailAddressesNotFound: OSStatus = -67623
public let errSecPathLengthConstraintExceeded: OSStatus = -67611
public let errSecInvalidRoot: OSStatus = -67612
public let errSecIncompleteCertRevocationCheck: OSStatus = -67635
public let errSecInvalidSignature: OSStatus = -67688
public let errSecInvalidName: OSStatus = -67689
public let errSecCertificateValidityPeriodTooLong: OSStatus = -67901
public let errSecInvalidCertificateRef: OSStatus = -67690
public let errSecUnsupportedKeySize: OSStatus = -67735
public let errSecCertificateExpired: OSStatus = -67818
public let errSecCertificateNotValidYet: OSStatus = -67819
public let errSecCertificateRevoked: OSStatus = -67820
public let errSecNotTrusted: OSStatus = -67843
public let errSecVerifyActionFailed: OSStatus = -67825

/// A description of `status`, as `SecCopyErrorMessageString` gives it; "OSStatus <n>" for a code
/// this module does not know.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    (ErrorMessages.text[status] ?? "OSStatus \(status)") as CFString
}

enum ErrorMessages {
    static let text: [OSStatus: String] = [
        errSecSuccess: "No error.",
        errSecUnimplemented: "Function or operation not implemented.",
        errSecParam: "One or more parameters passed to a function were not valid.",
        errSecAllocate: "Failed to allocate memory.",
        errSecUserCanceled: "User canceled the operation.",
        errSecBadReq: "Bad parameter or invalid state for operation.",
        errSecInternalComponent: "An internal component failed.",
        errSecNotAvailable: "No keychain is available. You may need to restart your computer.",
        errSecAuthFailed: "The user name or passphrase you entered is not correct.",
        errSecDuplicateItem: "The specified item already exists in the keychain.",
        errSecItemNotFound: "The specified item could not be found in the keychain.",
        errSecInteractionNotAllowed: "User interaction is not allowed.",
        errSecCreateChainFailed: "One or more certificates required to validate this certificate cannot be found.",
        errSecUnsupportedFormat: "The specified import or export format is not supported.",
        errSecUnknownFormat: "The item you are trying to import has an unknown format.",
        errSecPkcs12VerifyFailure: "MAC verification failed during PKCS12 import (wrong password?)",
        errSecDecode: "Unable to decode the provided data.",
        errSecHostNameMismatch: "A host name mismatch has occurred.",
        errSecUnknownCriticalExtensionFlag: "There is an unknown critical extension flag.",
        errSecNoBasicConstraints: "No basic constraints were found.",
        errSecNoBasicConstraintsCA: "No basic CA constraints were found.",
        errSecInvalidKeyUsageForPolicy: "The key usage is not valid for the specified policy.",
        errSecInvalidExtendedKeyUsage: "The extended key usage is not valid.",
        errSecSMIMEEmailAddressesNotFound: "An email address mismatch was encountered.",
        errSecPathLengthConstraintExceeded: "The path length constraint was exceeded.",
        errSecInvalidRoot: "The root or anchor certificate is not valid.",
        errSecIncompleteCertRevocationCheck: "An incomplete certificate revocation check occurred.",
        errSecInvalidSignature: "An invalid signature was encountered.",
        errSecInvalidName: "An invalid name was encountered.",
        errSecCertificateValidityPeriodTooLong: "The validity period in the certificate exceeds the maximum allowed.",
        errSecInvalidCertificateRef: "An invalid certificate reference was encountered.",
        errSecUnsupportedKeySize: "The key size is not supported.",
        errSecCertificateExpired: "An expired certificate was detected.",
        errSecCertificateNotValidYet: "The certificate is not yet valid.",
        errSecCertificateRevoked: "The certificate was revoked.",
        errSecNotTrusted: "The trust policy was not trusted.",
        errSecVerifyActionFailed: "A verify action has failed.",
    ]
}

/// The error Apple's functions report: a `CFError` in `NSOSStatusErrorDomain` whose code is the status.
func makeStatusError(_ status: OSStatus, _ description: String? = nil, detail: String? = nil) -> CFError {
    var info: [String: Any] = [
        NSLocalizedDescriptionKey: description ?? ErrorMessages.text[status] ?? "OSStatus \(status)",
    ]
    if let detail { info[NSDebugDescriptionErrorKey] = detail }
    return NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: info)
}
