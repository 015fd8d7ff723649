internal import COpenSSL
import TLSTrustPKI

/// Runs an OpenSSL `i2d_*` encoder twice — once to size, once to fill — and returns the DER.
///
/// Using a caller-owned buffer (rather than letting OpenSSL allocate) means there is no
/// `OPENSSL_free` to forget.
func derEncoding(
    _ operation: String,
    _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
) throws -> [UInt8] {
    ERR_clear_error()
    let length = encode(nil)
    guard length > 0 else { throw openSSLError(operation) }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return encode(&cursor)
    }
    guard written == length else { throw openSSLError(operation) }
    return bytes
}

/// An error for `operation` from, and emptying, the calling thread's OpenSSL error queue.
func openSSLError(_ operation: String) -> TestPKIError {
    var messages: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return TestPKIError(operation: operation, openSSLErrors: messages)
}

/// Throws a `TestPKIError` for `operation` unless an OpenSSL status code reports success (`1`, or
/// any positive value when `positive` is set).
@inline(__always)
func check(_ status: Int32, _ operation: @autoclosure () -> String, positive: Bool = false) throws {
    if positive ? status <= 0 : status != 1 {
        throw openSSLError(operation())
    }
}
