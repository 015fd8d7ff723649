internal import CGnuTLS
import TLSTrust

/// Process-wide facts about the linked GnuTLS, and its error texts.
enum GnuTLSLibrary {
    /// GnuTLS 3.3+ initialises itself from a library constructor; `gnutls_global_init` is
    /// reference-counted and cheap to call again. Calling it once from a lazy global (the pattern of
    /// swift-nio-ssl's `SSLInit.swift`) makes the dependency explicit and surfaces a failed
    /// initialisation (no random source, FIPS self-test failure) instead of failing later.
    static let initialized: Bool = gnutls_global_init() >= 0

    /// The version string of the library actually loaded, e.g. `GnuTLS 3.7.9`.
    static var version: String {
        guard let text = gnutls_check_version(nil) else { return "GnuTLS (unknown version)" }
        return "GnuTLS \(String(cString: text))"
    }

    /// GnuTLS's own text for a negative `GNUTLS_E_*` return value.
    static func errorText(_ code: Int32) -> String {
        guard let text = gnutls_strerror(code) else { return "GnuTLS error \(code)" }
        return String(cString: text)
    }

    /// The SubjectPublicKeyInfo DER of a public key GnuTLS fills in (`fill` imports it from a
    /// certificate or derives it from a private key, returning GnuTLS's status), encoded by
    /// `gnutls_pubkey_export2`; `what` names the source in the error.
    static func subjectPublicKeyInfo(of what: String, _ fill: (gnutls_pubkey_t) -> Int32) throws -> [UInt8] {
        var key: gnutls_pubkey_t?
        let created = gnutls_pubkey_init(&key)
        guard created >= 0, let key else {
            throw TLSTrustError(.backendFailure, "GnuTLS: gnutls_pubkey_init failed: \(errorText(created))")
        }
        defer { gnutls_pubkey_deinit(key) }
        let filled = fill(key)
        guard filled >= 0 else {
            throw TLSTrustError(.malformedKey, "GnuTLS cannot read \(what): \(errorText(filled))")
        }
        var out = gnutls_datum_t(data: nil, size: 0)
        let exported = gnutls_pubkey_export2(key, GNUTLS_X509_FMT_DER, &out)
        guard exported >= 0 else {
            throw TLSTrustError(.malformedKey, "GnuTLS cannot encode the public key: \(errorText(exported))")
        }
        return takeBytes(&out)
    }

    /// Copies and frees a `gnutls_datum_t` that GnuTLS allocated for us.
    static func takeBytes(_ datum: inout gnutls_datum_t) -> [UInt8] {
        defer {
            CGnuTLS_free(datum.data)
            datum.data = nil
            datum.size = 0
        }
        guard let data = datum.data, datum.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(datum.size)))
    }

    /// Calls `body` with a `gnutls_datum_t` viewing `bytes` (GnuTLS only reads through it), without
    /// copying when the bytes are contiguous. Empty bytes still get a valid pointer, so GnuTLS never
    /// sees NULL data. Sizes beyond `UInt32.max` are clamped: callers refuse such inputs first.
    static func withDatum<R>(_ bytes: some Collection<UInt8>, _ body: (inout gnutls_datum_t) -> R) -> R {
        if !bytes.isEmpty, let result = bytes.withContiguousStorageIfAvailable({ buffer in
            var datum = gnutls_datum_t(data: UnsafeMutablePointer(mutating: buffer.baseAddress), size: UInt32(clamping: buffer.count))
            return body(&datum)
        }) {
            return result
        }
        let storage: [UInt8] = bytes.isEmpty ? [0] : Array(bytes)
        return storage.withUnsafeBufferPointer { buffer in
            var datum = gnutls_datum_t(
                data: UnsafeMutablePointer(mutating: buffer.baseAddress), size: UInt32(clamping: bytes.count))
            return body(&datum)
        }
    }
}
