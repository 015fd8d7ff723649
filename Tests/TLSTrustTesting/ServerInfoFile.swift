import Foundation

/// A serverinfo file for `openssl s_server -serverinfo`: TLS extensions the server returns, as
/// given, to a client that sent the same extension type.
///
/// The `SERVERINFOV2` form carries the OpenSSL extension contexts, so that one file serves the
/// extension in a TLS 1.2 ServerHello and in the leaf's TLS 1.3 certificate entry.
public enum ServerInfoFile {
    /// The `signed_certificate_timestamp` extension (type 18, RFC 6962 §3.3.1) with `list` as its
    /// extension_data (a SignedCertificateTimestampList, or any bytes a test means to serve).
    public static func signedCertificateTimestamps(_ list: [UInt8]) -> String {
        // SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_CERTIFICATE.
        let context: [UInt8] = [0x00, 0x00, 0x11, 0x80]
        let body = context + [0x00, 18, UInt8((list.count >> 8) & 0xFF), UInt8(list.count & 0xFF)] + list
        return "-----BEGIN SERVERINFOV2 FOR signed_certificate_timestamp-----\n"
            + Data(body).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            + "\n-----END SERVERINFOV2 FOR signed_certificate_timestamp-----\n"
    }

    /// Writes ``signedCertificateTimestamps(_:)`` to `url`.
    public static func writeSignedCertificateTimestamps(_ list: [UInt8], to url: URL) throws {
        try Data(signedCertificateTimestamps(list).utf8).write(to: url)
    }
}
