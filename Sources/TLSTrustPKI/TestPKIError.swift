internal import COpenSSL

/// An error raised while minting test keys or certificates.
///
/// It carries OpenSSL's own error-queue text, because a failing test fixture is only debuggable
/// when it says which OpenSSL call refused and why.
public struct TestPKIError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, for example `"X509_sign"` or `"extension subjectAltName"`.
    public let operation: String
    /// OpenSSL's error strings drained from the thread's error queue, oldest first.
    public let openSSLErrors: [String]

    public init(operation: String, openSSLErrors: [String] = []) {
        self.operation = operation
        self.openSSLErrors = openSSLErrors
    }

    public var description: String {
        openSSLErrors.isEmpty
            ? "TestPKI: \(operation) failed"
            : "TestPKI: \(operation) failed: \(openSSLErrors.joined(separator: "; "))"
    }

    /// Builds an error for `operation` from, and empties, the calling thread's OpenSSL error queue.
    static func openSSL(_ operation: String) -> TestPKIError {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return TestPKIError(operation: operation, openSSLErrors: messages)
    }
}

/// Throws a `TestPKIError` for `operation` unless an OpenSSL status code reports success (`1`, or
/// any positive value when `positive` is set, as with `X509_sign`).
@inline(__always)
func check(_ status: Int32, _ operation: @autoclosure () -> String, positive: Bool = false) throws {
    if positive ? status <= 0 : status != 1 {
        throw TestPKIError.openSSL(operation())
    }
}
