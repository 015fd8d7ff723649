import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustTesting
import Testing

/// Live TLS on the GnuTLS backend against real peers on 127.0.0.1 (openssl s_server and s_client,
/// gnutls-serv, nginx), with mutual TLS and without resumption, and what it declares. What every
/// backend does (its client against its server, the trust decision in the handshake, hostile
/// servers) is in `TLSBackendTests` and `TLSHostilePeerTests`.
@Suite("TLS on GnuTLS: real peers", .serialized)
struct TLSGnuTLSTests {
    static let backend = GnuTLSTrustBackend()
    static let host = "www.example.com"
    static let password = "correct horse"
    static let timeouts = TestDeadlines.tls(read: .seconds(5))

    // MARK: Helpers

    /// The leaf and intermediate with the leaf's key, imported by GnuTLS from PEM.
    static func identity(_ pki: TestHierarchy) throws -> ClientIdentity {
        try backend.importIdentity(certificateChainPEM: Array([pki.leaf, pki.intermediate].pem.utf8),
                                   privateKeyPEM: try TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
    }

    /// The leaf and intermediate with the leaf's key, from a PKCS#12 file imported by GnuTLS.
    static func pkcs12Identity(_ pki: TestHierarchy) throws -> ClientIdentity {
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: password)
        return try backend.importPKCS12(p12, password: password)
    }

    static func clientConfiguration(anchors: [TestCertificate], version: TLSVersion? = nil,
                                    serverName: String? = host) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        configuration.anchors = .only(anchors.certificates)
        configuration.timeouts = timeouts
        if let version {
            configuration.minimumVersion = version
            configuration.maximumVersion = version
        }
        return configuration
    }

    static func serverConfiguration(_ identity: ClientIdentity, version: TLSVersion? = nil) -> TLSServerConfiguration {
        var configuration = TLSServerConfiguration(identity: identity)
        configuration.timeouts = timeouts
        if let version {
            configuration.minimumVersion = version
            configuration.maximumVersion = version
        }
        return configuration
    }

    static func capture<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Reads until `marker` has arrived or the peer closes.
    static func read(_ connection: TLSConnection, until marker: String, limit: Int = 1 << 20) async throws -> String {
        var all: [UInt8] = []
        while all.count < limit {
            let chunk = try await connection.read()
            if chunk.isEmpty { break }
            all += chunk
            if String(decoding: all, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: all, as: UTF8.self)
    }

    /// Writes a request and reads the whole answer (the servers close after an HTTP/1.0 reply).
    static func httpGet(_ connection: TLSConnection) async throws -> String {
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        return String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
    }

    /// The client either fails its handshake or (TLS 1.3: the server judges the client's
    /// certificate after the client has finished) fails on its first read, with
    /// `.clientCertificateRejected` either way.
    static func expectClientFails(_ result: Result<TLSConnection, any Error>) async throws {
        switch result {
        case .failure(let error):
            #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
        case .success(let connection):
            // The server's alert is waiting; a write first could instead meet the closed transport.
            do {
                let data = try await connection.read()
                Issue.record("the refused client read \(data.count) bytes")
            } catch {
                #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
            }
            await connection.close()
        }
    }

    // MARK: Interoperability

    @Test("GnuTLS client against openssl s_server", arguments: [TLSVersion.tls12, .tls13])
    func againstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: [Self.host])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version)
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors),
                                                         backend: Self.backend)
        #expect(connection.negotiatedVersion == version)
        #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        await connection.close()
    }

    @Test("GnuTLS client against gnutls-serv, with an IP-address certificate and no SNI")
    func againstGnuTLSServer() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["127.0.0.1"])
        let server = try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate])
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors, serverName: nil),
                                                         backend: Self.backend)
        #expect(connection.negotiatedVersion == .tls13)
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        let reply = try await Self.read(connection, until: "</HTML>")
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        await connection.close()
    }

    @Test("GnuTLS client against nginx, and nginx with ssl_verify_client on")
    func againstNginx() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let server = try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello from nginx\n")
        defer { server.stop() }
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                                         configuration: Self.clientConfiguration(anchors: pki.anchors),
                                                         backend: Self.backend)
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
        #expect(reply.hasSuffix("hello from nginx\n"))
        await connection.close()

        let mutual = try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello, client\n",
                                               requireClientCertificate: true, clientCAs: [clientPKI.root])
        defer { mutual.stop() }
        var client = Self.clientConfiguration(anchors: pki.anchors)
        client.identity = try Self.pkcs12Identity(clientPKI)
        let authenticated = try await TLSConnection.connect(host: "127.0.0.1", port: mutual.port, configuration: client, backend: Self.backend)
        let answer = try await Self.httpGet(authenticated)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(answer.hasSuffix("hello, client\n"))
        await authenticated.close()
    }

    @Test("Mutual TLS against openssl s_server -Verify", arguments: [TLSVersion.tls12, .tls13])
    func mutualTLSAgainstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let clientPKI = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: ["client.example.com"])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version,
                                                       requireClientCertificate: true, clientCAs: [clientPKI.root])
        defer { server.stop() }
        let recorder = TLSBackendTests.Recorder()
        var client = Self.clientConfiguration(anchors: pki.anchors)
        client.identity = try Self.pkcs12Identity(clientPKI)
        client.challengeHandler = recorder
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port, configuration: client, backend: Self.backend)
        let reply = try await Self.httpGet(connection)
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
        let names = recorder.clientCertificateSpace?.distinguishedNames
        #expect(names == [clientPKI.root.certificate.subject])
        await connection.close()

        // Without an identity, s_server refuses the client.
        let bare = await Self.capture {
            try await TLSConnection.connect(host: "127.0.0.1", port: server.port,
                                            configuration: Self.clientConfiguration(anchors: pki.anchors), backend: Self.backend)
        }
        if case .failure(let error) = bare {
            #expect((error as? TLSError)?.code == .clientCertificateRejected, "\(error)")
        } else {
            try await Self.expectClientFails(bare)
        }
    }

    @Test("GnuTLS server against openssl s_client", arguments: [TLSVersion.tls12, .tls13])
    func serverAgainstOpenSSLClient(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let directory = try TemporaryDirectory(prefix: "tlstrust-s_client")
        let caFile = directory.file("ca.pem")
        try TestPKI.writePEM(pki.anchors, to: caFile)
        let listener = try TCPListener()
        defer { listener.close() }

        let client = try ExternalTLSClient.Child(["openssl", "s_client", "-connect", "127.0.0.1:\(listener.port)", "-servername", Self.host,
                                                  "-CAfile", caFile.path, "-verify_return_error", "-verify_hostname", Self.host])

        let transport = try listener.accept(timeout: .seconds(30))  // returns once s_client connects
        let connection = try await TLSConnection.accept(over: transport, configuration: Self.serverConfiguration(try Self.identity(pki), version: version),
                                                        port: listener.port, backend: Self.backend)
        #expect(connection.negotiatedVersion == version)
        client.write(Data("hello from s_client\n".utf8))
        let received = try await Self.read(connection, until: "\n")
        #expect(received == "hello from s_client\n")
        try await connection.write(Array("echo: \(received)".utf8))
        await connection.close()
        client.closeInput()

        let run = try await TLSOpenSSLTests.blocking { client.finish(timeout: 10) }
        #expect(run.status == 0, "s_client did not end by itself: \(run)")
        #expect(run.output.contains("Verify return code: 0 (ok)"), "\(run)")
        #expect(run.output.contains("echo: hello from s_client"), "\(run)")
    }

    // MARK: No resumption

    @Test("A second connection to the same s_server is not resumed and is judged again", arguments: [TLSVersion.tls12, .tls13])
    func noResumption(version: TLSVersion) async throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host])
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version)
        defer { server.stop() }
        for _ in 0..<2 {
            let recorder = TLSBackendTests.Recorder()
            var configuration = Self.clientConfiguration(anchors: pki.anchors)
            configuration.challengeHandler = recorder
            let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port, configuration: configuration, backend: Self.backend)
            #expect(!connection.isResumed)
            #expect(recorder.methods == [.serverTrust])
            _ = try await Self.httpGet(connection)
            await connection.close()
        }
    }

    // MARK: Configuration

    @Test("Versions and capabilities are reported truthfully")
    func capabilities() throws {
        #expect(Self.backend.supportedTLSVersions == [.tls12, .tls13])
        #expect(Self.backend.reportsAcceptableCANames)
        #expect(throws: TLSError.self) { _ = try Self.backend.checkVersions(minimum: .tls13, maximum: .tls12) }
    }
}
