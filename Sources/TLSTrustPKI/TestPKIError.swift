/// An error raised while minting test keys or certificates.
///
/// It carries the library's own error text (OpenSSL's error queue, say), because a failing test
/// fixture is only debuggable when it says which call refused and why.
public struct TestPKIError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, for example `"EVP_DigestSign"` or `"generate rsa2047"`.
    public let operation: String
    /// The library's error strings (for OpenSSL, drained from the thread's error queue, oldest first).
    public let openSSLErrors: [String]
    /// Set when the key source cannot do this at all (a key size swift-crypto does not generate,
    /// a PSS salt length it does not sign with): why. A check that needs it is skipped, not failed.
    public let unsupported: String?

    public init(operation: String, openSSLErrors: [String] = []) {
        self.operation = operation
        self.openSSLErrors = openSSLErrors
        self.unsupported = nil
    }

    /// An error for something the key source cannot do, with the reason.
    public init(operation: String, unsupported reason: String) {
        self.operation = operation
        self.openSSLErrors = []
        self.unsupported = reason
    }

    public var description: String {
        if let unsupported { return "TestPKI: \(operation) is not supported: \(unsupported)" }
        return openSSLErrors.isEmpty
            ? "TestPKI: \(operation) failed"
            : "TestPKI: \(operation) failed: \(openSSLErrors.joined(separator: "; "))"
    }
}
