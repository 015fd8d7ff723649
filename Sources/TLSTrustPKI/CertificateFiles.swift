import Foundation

/// Writers for the files that CLI tests and path-based backend APIs consume.
extension TestPKI {
    /// Writes `certificates` as one PEM bundle, in order (a chain file or a CA file).
    public static func writePEM(_ certificates: [TestCertificate], to url: URL) throws {
        try Data(certificates.pem.utf8).write(to: url, options: .atomic)
    }

    /// Writes one certificate as raw DER (a `.der`/`.cer` file holds exactly one certificate).
    public static func writeDER(_ certificate: TestCertificate, to url: URL) throws {
        try Data(certificate.der).write(to: url, options: .atomic)
    }

    /// Writes a private key as unencrypted PKCS#8 PEM, readable only by the owner.
    public static func writePEM(_ key: TestPrivateKey, to url: URL) throws {
        try Data(key.pkcs8PEM.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// Writes a private key as PKCS#8 DER, readable only by the owner.
    public static func writeDER(_ key: TestPrivateKey, to url: URL) throws {
        try Data(key.pkcs8DER).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}
