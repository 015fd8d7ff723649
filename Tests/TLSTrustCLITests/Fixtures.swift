import Foundation
import TLSTrust
import TLSTrustTesting

/// A test's temporary directory, with writers that return the paths the tool is given.
struct Fixtures {
    let url: URL

    init(_ url: URL) { self.url = url }

    /// The path of `name` in the directory (the file is not created).
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `certificates` as one PEM bundle, in order.
    func pem(_ name: String, _ certificates: [TestCertificate]) throws -> String {
        try TestPKI.writePEM(certificates, to: url.appendingPathComponent(name))
        return path(name)
    }

    /// Writes one certificate as DER.
    func der(_ name: String, _ certificate: TestCertificate) throws -> String {
        try TestPKI.writeDER(certificate, to: url.appendingPathComponent(name))
        return path(name)
    }

    /// Writes raw bytes.
    func bytes(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    /// Writes UTF-8 text.
    func text(_ name: String, _ text: String) throws -> String {
        try bytes(name, Array(text.utf8))
    }

    /// Creates a subdirectory.
    func directory(_ name: String) throws -> String {
        try FileManager.default.createDirectory(at: url.appendingPathComponent(name), withIntermediateDirectories: false)
        return path(name)
    }
}

/// The host name the test hierarchies are issued for.
let testHost = "www.example.com"

/// Unix seconds `offset` from now, as `--time` takes them.
func unixTime(fromNow offset: TimeInterval) -> String {
    String(Int64((Date().timeIntervalSince1970 + offset).rounded(.down)))
}

let day: TimeInterval = 86_400

/// Runs `body` with a fresh temporary directory wrapped as `Fixtures`.
func withFixtures<R>(_ body: (Fixtures) throws -> R) throws -> R {
    try TemporaryDirectory.with(prefix: "tlstrust-cli-test") { try body(Fixtures($0)) }
}
