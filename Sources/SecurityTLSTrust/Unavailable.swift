// Apple-only parts of the Security framework, declared unavailable so that a port fails at
// compile time, with the replacement named, instead of misbehaving at run time.

private let keychainMessage = "There is no keychain on Linux: keep certificates in files and read them with SecCertificateCreateWithData, or use TLSTrust's SecurityPolicy.certificates(inDirectory:)"

@available(*, unavailable, message: "There is no keychain on Linux: keep certificates in files and read them with SecCertificateCreateWithData, or use TLSTrust's SecurityPolicy.certificates(inDirectory:)")
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError(keychainMessage) }

@available(*, unavailable, message: "There is no keychain on Linux: keep certificates in files and read them with SecCertificateCreateWithData, or use TLSTrust's SecurityPolicy.certificates(inDirectory:)")
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError(keychainMessage) }

@available(*, unavailable, message: "There is no keychain on Linux: keep certificates in files and read them with SecCertificateCreateWithData, or use TLSTrust's SecurityPolicy.certificates(inDirectory:)")
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError(keychainMessage) }

@available(*, unavailable, message: "There is no keychain on Linux: keep certificates in files and read them with SecCertificateCreateWithData, or use TLSTrust's SecurityPolicy.certificates(inDirectory:)")
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError(keychainMessage) }

@available(*, unavailable, message: "Not on Linux: export a certificate with SecCertificateCopyData (DER), or TLSTrust's Certificate.derEncoded; a key with SecKeyCopyExternalRepresentation")
public func SecItemExport(
    _ secItemOrArray: CFTypeRef, _ outputFormat: UInt32, _ flags: UInt32,
    _ keyParams: UnsafeRawPointer?, _ exportedData: UnsafeMutablePointer<CFData?>
) -> OSStatus { fatalError("SecItemExport is unavailable on Linux") }

@available(*, unavailable, message: "Not on Linux: read DER certificates with SecCertificateCreateWithData, PEM with TLSTrust's Certificate.certificates(pemOrDER:)")
public func SecItemImport(
    _ importedData: CFData, _ fileNameOrExtension: CFString?, _ inputFormat: UnsafeMutablePointer<UInt32>?,
    _ itemType: UnsafeMutablePointer<UInt32>?, _ flags: UInt32, _ keyParams: UnsafeRawPointer?,
    _ importKeychain: AnyObject?, _ outItems: UnsafeMutablePointer<CFArray?>?
) -> OSStatus { fatalError("SecItemImport is unavailable on Linux") }

/// Trust-settings domains (macOS). Unavailable: Linux has no per-certificate trust settings.
@available(*, unavailable, message: "No trust settings on Linux: choose anchors with SecTrustSetAnchorCertificates, or the system store through SSL_CERT_FILE / SSL_CERT_DIR")
public enum SecTrustSettingsDomain: UInt32 {
    case user = 0, admin = 1, system = 2
}

@available(*, unavailable, message: "No trust settings on Linux: choose anchors with SecTrustSetAnchorCertificates, or the system store through SSL_CERT_FILE / SSL_CERT_DIR")
public func SecTrustSettingsCopyTrustSettings(_ certRef: SecCertificate, _ domain: UInt32, _ trustSettings: UnsafeMutablePointer<CFArray?>) -> OSStatus { fatalError("unavailable") }

@available(*, unavailable, message: "No trust settings on Linux: choose anchors with SecTrustSetAnchorCertificates, or the system store through SSL_CERT_FILE / SSL_CERT_DIR")
public func SecTrustSettingsSetTrustSettings(_ certRef: SecCertificate, _ domain: UInt32, _ trustSettingsDictOrArray: CFTypeRef?) -> OSStatus { fatalError("unavailable") }

@available(*, unavailable, message: "No trust settings on Linux: choose anchors with SecTrustSetAnchorCertificates, or the system store through SSL_CERT_FILE / SSL_CERT_DIR")
public func SecTrustSettingsRemoveTrustSettings(_ certRef: SecCertificate, _ domain: UInt32) -> OSStatus { fatalError("unavailable") }

@available(*, unavailable, message: "No trust settings on Linux: the system store is the distribution's CA bundle (TLSTrust's SystemTrustStore.current)")
public func SecTrustSettingsCopyCertificates(_ domain: UInt32, _ certArray: UnsafeMutablePointer<CFArray?>?) -> OSStatus { fatalError("unavailable") }

@available(*, unavailable, message: "No trust settings on Linux: set the anchors on each trust with SecTrustSetAnchorCertificates")
public func SecTrustSetExceptions(_ trust: SecTrust, _ exceptions: CFData?) -> Bool { fatalError("unavailable") }

@available(*, unavailable, message: "No trust settings on Linux: set the anchors on each trust with SecTrustSetAnchorCertificates")
public func SecTrustCopyExceptions(_ trust: SecTrust) -> CFData? { fatalError("unavailable") }

@available(*, unavailable, message: "Apple's name normalisation is unpublished, so the bytes would not compare equal to Apple's; compare TLSTrust's Certificate.subject (DistinguishedName) instead")
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? { fatalError("unavailable") }

@available(*, unavailable, message: "Apple's name normalisation is unpublished, so the bytes would not compare equal to Apple's; compare TLSTrust's Certificate.issuer (DistinguishedName) instead")
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? { fatalError("unavailable") }

@available(*, unavailable, message: "macOS only on Apple platforms; read the fields with SecCertificateCopySubjectSummary, SecCertificateCopySerialNumberData, SecCertificateCopyNotValidBeforeDate/AfterDate or TLSTrust's Certificate")
public func SecCertificateCopyValues(_ certificate: SecCertificate, _ keys: CFArray?, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFDictionary? { fatalError("unavailable") }
