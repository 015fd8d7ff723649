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

    /// The start of most `evaluate` runs: `evaluate --backend BACKEND --leaf chain.pem --anchors
    /// anchors.pem`, with `pki`'s chain (leaf first) and its root written here; options follow.
    func evaluate(_ backend: String, _ pki: TestHierarchy) throws -> [String] {
        ["evaluate", "--backend", backend, "--leaf", try pem("chain.pem", pki.chain), "--anchors", try pem("anchors.pem", [pki.root])]
    }

    /// Creates a subdirectory.
    func directory(_ name: String) throws -> String {
        try FileManager.default.createDirectory(at: url.appendingPathComponent(name), withIntermediateDirectories: false)
        return path(name)
    }
}

/// A file a command cannot read, each kind written by ``write(in:about:)``: the bad inputs of the
/// commands that read certificates (`inspect`, `pin`), which must each exit 2 naming the path.
enum UnreadableInput: String, Sendable, CaseIterable {
    case missing, empty, directory
    /// Text that is no PEM, or bytes that are no DER.
    case garbageText, garbageBytes
    /// A PEM key where a certificate is wanted.
    case publicKey, privateKey
    /// A certificate cut short, as DER or as PEM.
    case truncatedDER, truncatedPEM

    /// Writes this kind of input about `cert` into `files`; returns its path.
    func write(in files: Fixtures, about cert: TestCertificate) throws -> String {
        switch self {
        case .missing: files.path("missing.pem")
        case .empty: try files.bytes("empty.pem", [])
        case .directory: try files.directory("dir")
        case .garbageText: try files.text("garbage.txt", "definitely not a certificate\n")
        case .garbageBytes: try files.bytes("garbage.bin", (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) })
        case .publicKey: try files.text("pub.pem", cert.certificate.publicKey.pemEncoded)
        case .privateKey: try files.text("key.pem", cert.privateKey.pkcs8PEM)
        case .truncatedDER: try files.bytes("cut.der", Array(cert.der.prefix(cert.der.count - 10)))
        case .truncatedPEM: try files.bytes("truncated.pem", Array(cert.pem.utf8.prefix(100)))
        }
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
