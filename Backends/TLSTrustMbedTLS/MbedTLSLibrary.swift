internal import CMbedTLS

/// Process-wide facts about the linked mbedTLS, established once (the lazy global below).
///
/// mbedTLS 2.28 needs no global initialisation for X.509 work (PSA is not used by its X.509 code
/// in Debian's build), but this backend reads `mbedtls_x509_crt` fields directly, so it checks once
/// that the library loaded at run time has the major.minor version of the headers it was compiled
/// against, and fails closed (every evaluation untrusted) if not.
struct MbedTLSLibrary: Sendable {
    /// `mbedtls_version_get_string_full()`, e.g. `mbed TLS 2.28.3`.
    let versionString: String
    /// Nil when usable; otherwise why not.
    let unusableReason: String?

    init() {
        var buffer = [CChar](repeating: 0, count: 64)
        mbedtls_version_get_string_full(&buffer)
        versionString = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let runtime = mbedtls_version_get_number()
        let headers = CMbedTLS_header_version_number()
        if runtime >> 16 != headers >> 16 {
            unusableReason = "mbedTLS at run time (\(versionString)) is not the 2.28 series this backend was built for"
        } else {
            unusableReason = nil
        }
    }

    /// `mbedtls_strerror` text for an error code, e.g. `X509 - The CRT/CRL/CSR has an invalid version number`.
    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        mbedtls_strerror(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(text) (-0x\(String(-Int(code), radix: 16, uppercase: true)))"
    }
}

/// Initialised on first use, thread-safely (Swift globals are lazy and `dispatch_once`d).
let mbedTLSLibrary = MbedTLSLibrary()
