internal import COpenSSL
import TLSTrust

/// Owns one OpenSSL `X509*`.
///
/// Made from DER with `d2i_X509`, which hands us the only reference; `deinit` drops it. Raw access
/// goes through `ref` only inside this module.
final class OpenSSLCertificate {
    let ref: OpaquePointer

    /// Parses exactly one DER certificate; trailing bytes are refused.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` with OpenSSL's reason.
    init(derEncoded der: [UInt8]) throws {
        _ = OpenSSLLibrary.initialized
        var parsed: OpaquePointer?
        var consumed = 0
        der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            var cursor: UnsafePointer<UInt8>? = base
            parsed = d2i_X509(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - base }
        }
        guard let parsed else {
            let reason = OpenSSLLibrary.drainErrors()
            throw TLSTrustError(.malformedCertificate, "OpenSSL cannot parse the certificate: \(reason.isEmpty ? "empty input" : reason)")
        }
        guard consumed == der.count else {
            X509_free(parsed)
            throw TLSTrustError(.malformedCertificate, "OpenSSL: \(der.count - consumed) trailing bytes after the certificate")
        }
        ref = parsed
    }

    deinit { X509_free(ref) }

    /// The DER SubjectPublicKeyInfo exactly as it appears in the certificate.
    func subjectPublicKeyInfoDER() throws -> [UInt8] {
        guard let spki = X509_get_X509_PUBKEY(ref) else {
            throw TLSTrustError(.malformedKey, "OpenSSL: certificate has no public key")
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_PUBKEY(spki, &out)
        guard length > 0, let out else {
            throw TLSTrustError(.malformedKey, "OpenSSL cannot encode the public key: \(OpenSSLLibrary.drainErrors())")
        }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Re-encodes a certificate OpenSSL found itself (one we did not give it), which is rare.
    static func derEncoding(of x509: OpaquePointer) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
