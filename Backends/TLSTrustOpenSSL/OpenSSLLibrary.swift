internal import COpenSSL

/// Process-wide facts about the linked OpenSSL, and its error queue.
enum OpenSSLLibrary {
    /// OpenSSL 3 initialises itself on first use; this forces it once, early, from a lazy global
    /// (the pattern of swift-nio-ssl's `SSLInit.swift`) so that the first evaluation pays nothing.
    static let initialized: Bool = {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_LOAD_CRYPTO_STRINGS), nil) == 1
    }()

    /// The version string of the library actually loaded, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }

    /// Empties this thread's OpenSSL error queue and returns its entries as one line, so a failure
    /// names the library's own reason and no stale error leaks into the next call on this thread.
    static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.joined(separator: "; ")
    }
}
