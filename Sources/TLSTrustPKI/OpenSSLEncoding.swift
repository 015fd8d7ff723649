internal import COpenSSL
import Foundation

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
    guard length > 0 else { throw TestPKIError.openSSL(operation) }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return encode(&cursor)
    }
    guard written == length else { throw TestPKIError.openSSL(operation) }
    return bytes
}

/// Gives `body` a fresh memory BIO and returns, as text, whatever it wrote there.
func withMemoryBIO(_ body: (OpaquePointer) throws -> Void) throws -> String {
    ERR_clear_error()
    guard let bio = BIO_new(BIO_s_mem()) else { throw TestPKIError.openSSL("BIO_new") }
    defer { BIO_free(bio) }
    try body(bio)
    var data: UnsafeMutablePointer<CChar>?
    let length = COpenSSL_BIO_get_mem_data(bio, &data)
    guard length > 0, let data else { return "" }
    return data.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
        String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
    }
}

/// Parses one DER certificate into an owned `X509`; the caller must `X509_free` it.
func parseX509(_ der: [UInt8]) throws -> OpaquePointer {
    ERR_clear_error()
    let x509 = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
        var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
        return d2i_X509(nil, &cursor, buffer.count)
    }
    guard let x509 else { throw TestPKIError.openSSL("d2i_X509") }
    return x509
}

/// PEM armour (RFC 7468) for DER bytes, with 64-column lines and LF line endings.
func pemEncode(_ der: [UInt8], label: String) -> String {
    let base64 = Data(der).base64EncodedString()
    var lines = ["-----BEGIN \(label)-----"]
    var index = base64.startIndex
    while index < base64.endIndex {
        let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
        lines.append(String(base64[index..<end]))
        index = end
    }
    lines.append("-----END \(label)-----")
    return lines.joined(separator: "\n") + "\n"
}
