import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Every backend's server against clients from other implementations: curl (HTTP over TLS 1.2 and
/// 1.3, and with a client certificate) and gnutls-cli, over TCP on 127.0.0.1.
@Suite("TLS servers against curl and gnutls-cli")
struct TLSServerInteropTests {
    /// Every backend's server with every TLS version, split by whether the backend supports it.
    static let allCases: [(String, TLSVersion)] = TestBackends.tlsNames.flatMap { name in TLSVersion.allCases.map { (name, $0) } }
    static let supportedCases = allCases.filter { supports($0.0, $0.1) }
    static let unsupportedCases = allCases.filter { !supports($0.0, $0.1) }

    static func supports(_ name: String, _ version: TLSVersion) -> Bool {
        TestBackends.tls(name)?.supportedTLSVersions.contains(version) == true
    }

    static func curlVersionFlags(_ version: TLSVersion) -> [String] {
        version == .tls13 ? ["--tlsv1.3", "--tls-max", "1.3"] : ["--tlsv1.2", "--tls-max", "1.2"]
    }

    /// Runs gnutls-cli, trusting a fresh PKI's root and checking www.example.com, against a
    /// server of backend `name` that serves that PKI's chain; sends one GET.
    static func gnutlsCLI(against name: String, extraArguments: [String] = []) throws -> ExternalTLSClient.Run {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try TestHierarchy.make()
        let server = try origin(backend, pki)
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "tlstrust-gnutls-cli")
        try TestPKI.writePEM([pki.root], to: directory.file("root.pem"))
        return try ExternalTLSClient.run(["gnutls-cli", "--x509cafile", directory.file("root.pem").path] + extraArguments
                                         + ["--verify-hostname", "www.example.com", "--sni-hostname", "www.example.com",
                                            "-p", "\(server.port)", "127.0.0.1"],
                                         input: "GET / HTTP/1.0\r\nHost: www.example.com\r\n\r\n")
    }

    static func origin(_ backend: any TLSBackend, _ pki: TestHierarchy, version: TLSVersion? = nil,
                       clientCA: TestCertificate? = nil) throws -> LocalHTTPSServer {
        let identity = try backend.importIdentity(certificateChainPEM: Array((pki.leaf.pem + pki.intermediate.pem).utf8),
                                                  privateKeyPEM: Array(pki.leaf.privateKey.pkcs8PEM.utf8), password: nil)
        var configuration = TLSServerConfiguration(identity: identity)
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        if let clientCA {
            configuration.clientAuthentication = .required
            configuration.clientAnchors = .only([clientCA.certificate])
        }
        configuration.timeouts = TestDeadlines.tls(read: .seconds(5))
        return try LocalHTTPSServer(configuration: configuration, backend: backend) { request in
            (200, "served by \(backend.name) to \(request.clientCertificates.first?.subject.commonName ?? "anonymous")\n")
        }
    }

    @Test("curl fetches from each backend's server, verifying it, on each TLS version the backend supports",
          arguments: supportedCases)
    func curl(name: String, version: TLSVersion) throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try TestHierarchy.make(keyAlgorithm: version == .tls12 ? .rsa2048 : .ecdsaP256)
        let server = try Self.origin(backend, pki, version: version)
        defer { server.stop() }
        let run = try Self.curl(server, trusting: pki.root, version: version)
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("served by \(name) to anonymous"), "\(run)")
    }

    /// curl fetching `https://www.example.com/` from `server` (resolved to 127.0.0.1), trusting
    /// only `root` and offering only `version`.
    static func curl(_ server: LocalHTTPSServer, trusting root: TestCertificate, version: TLSVersion) throws -> ExternalTLSClient.Run {
        let directory = try TemporaryDirectory(prefix: "tlstrust-curl")
        try TestPKI.writePEM([root], to: directory.file("root.pem"))
        return try ExternalTLSClient.run(["curl", "-sS", "--max-time", "10"] + curlVersionFlags(version)
                                         + ["--cacert", directory.file("root.pem").path,
                                            "--resolve", "www.example.com:\(server.port):127.0.0.1",
                                            "https://www.example.com:\(server.port)/"])
    }

    /// A version the backend cannot negotiate (TLS 1.3 on mbedTLS 2.28): a curl that offers only
    /// that version is refused in the handshake, with protocol_version (RFC 8446 §4.2.1), and
    /// served nothing. The core reads the ClientHello's versions before the library does, so a
    /// library without TLS 1.3 (mbedTLS 2.28) refuses it like every other.
    @Test("curl offering only a TLS version a backend's server does not support is refused",
          .enabled(if: !unsupportedCases.isEmpty, "every backend supports every TLS version"), arguments: unsupportedCases)
    func curlUnsupportedVersion(name: String, version: TLSVersion) throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try TestHierarchy.make()
        let server = try Self.origin(backend, pki)
        defer { server.stop() }
        let run = try Self.curl(server, trusting: pki.root, version: version)
        #expect(run.status == 35, "curl's \"SSL connect error\": \(run)")
        #expect(run.output.contains("alert protocol version"), "\(run)")
        #expect(!run.output.contains("served by"), "\(run)")
    }

    @Test("curl with a client certificate against each backend's server requiring one", arguments: TestBackends.tlsNames)
    func curlMutual(name: String) throws {
        let backend = try TLSMatrixTests.backend(name)
        let pki = try TestHierarchy.make()
        let clients = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        let server = try Self.origin(backend, pki, clientCA: clients.root)
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "tlstrust-curl")
        try TestPKI.writePEM([pki.root], to: directory.file("root.pem"))
        try TestPKI.writePEM([clients.leaf, clients.intermediate], to: directory.file("client.pem"))
        try TestPKI.writePEM(clients.leaf.privateKey, to: directory.file("client-key.pem"))
        let base = ["curl", "-sS", "--max-time", "10", "--cacert", directory.file("root.pem").path,
                    "--resolve", "www.example.com:\(server.port):127.0.0.1", "https://www.example.com:\(server.port)/"]
        let ok = try ExternalTLSClient.run(base + ["--cert", directory.file("client.pem").path, "--key", directory.file("client-key.pem").path])
        #expect(ok.status == 0, "\(ok)")
        #expect(ok.output.contains("served by \(name) to client.example.com"), "\(ok)")
        let without = try ExternalTLSClient.run(base)
        #expect(without.status != 0, "\(without)")
        #expect(!without.output.contains("served by"), "\(without)")
    }

    @Test("gnutls-cli connects to each backend's server and verifies it", arguments: TestBackends.tlsNames)
    func gnutlsCLI(name: String) throws {
        let run = try Self.gnutlsCLI(against: name)
        #expect(run.output.contains("Handshake was completed"), "\(run)")
        #expect(run.output.contains("served by \(name)"), "\(run)")
    }

    /// Downgrade: TLSTrust has no way to configure TLS 1.0 or 1.1 (`TLSVersion` is 1.2 and 1.3),
    /// and no backend's server accepts a client that offers nothing newer. gnutls-cli is told to
    /// offer TLS 1.1 and 1.0 only; each server must end the handshake with a protocol-version
    /// refusal and serve nothing.
    @Test("a client offering only TLS 1.0/1.1 is refused by each backend's server", arguments: TestBackends.tlsNames)
    func noDowngradeBelowTLS12(name: String) throws {
        let run = try Self.gnutlsCLI(against: name, extraArguments: ["--priority", "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0"])
        #expect(!run.output.contains("Handshake was completed"), "\(run)")
        #expect(!run.output.contains("served by"), "\(run)")
        #expect(run.output.contains("Received alert [70]: Error in protocol version"), "a protocol_version alert: \(run)")
    }
}
