import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// Live TLS on the OpenSSL 3 backend against real peers over TCP: openssl s_server and s_client,
/// gnutls-serv and nginx, with mutual TLS and without resumption. What every backend does (its
/// client against its server, the trust decision in the handshake, hostile servers) is in
/// `TLSBackendTests` and `TLSHostilePeerTests`.
@Suite("TLS on OpenSSL: real peers")
struct TLSOpenSSLTests {
    let backend = OpenSSLTrustBackend()
    static let timeouts = TestDeadlines.tls(read: .seconds(5))
    static let password = "correct horse"

    // MARK: Helpers

    /// A fresh hierarchy, minted off Swift's cooperative pool: key generation is CPU work that
    /// would otherwise hold up the handshakes of tests running in parallel.
    static func pki(keyAlgorithm: TestKeyAlgorithm = .ecdsaP256, leafDNSNames: [String] = ["www.example.com"]) async throws -> TestHierarchy {
        try await blocking { try TestHierarchy.make(keyAlgorithm: keyAlgorithm, leafDNSNames: leafDNSNames) }
    }

    func serverConfiguration(_ pki: TestHierarchy, version: TLSVersion? = nil) async throws -> TLSServerConfiguration {
        let backend = backend
        let identity = try await Self.blocking {
            try backend.importIdentity(certificateChainPEM: Array([pki.leaf, pki.intermediate].pem.utf8),
                                       privateKeyPEM: TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
        }
        var configuration = TLSServerConfiguration(identity: identity)
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        configuration.timeouts = Self.timeouts
        return configuration
    }

    func clientConfiguration(_ pki: TestHierarchy, serverName: String = "www.example.com", version: TLSVersion? = nil) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        configuration.anchors = .only([pki.root.certificate])
        if let version { configuration.minimumVersion = version; configuration.maximumVersion = version }
        configuration.timeouts = Self.timeouts
        return configuration
    }

    /// The leaf and intermediate of `pki` as a PKCS#12 file (made by `openssl pkcs12`), imported.
    func clientIdentity(_ pki: TestHierarchy) async throws -> ClientIdentity {
        let backend = backend
        return try await Self.blocking {
            let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password)
            return try backend.importPKCS12(p12, password: Self.password)
        }
    }

    static func capture(_ body: () async throws -> TLSConnection) async -> Result<TLSConnection, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Runs blocking work (key generation, accept, waiting for a process) on a thread of its own,
    /// off Swift's cooperative pool, which the connections' challenge handlers need.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs `body` with a started peer and stops the peer afterwards, whatever happens; starting
    /// and stopping (which waits for the process) happen off the cooperative pool.
    static func withPeer(_ start: @escaping @Sendable () throws -> ExternalTLSPeer,
                         _ body: (ExternalTLSPeer) async throws -> Void) async throws {
        let peer = try await blocking(start)
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await body(peer)) } catch { outcome = .failure(error) }
        if case .failure(let error) = outcome { print("\(error)\n  with \(peer.diagnosis)") }
        _ = try? await blocking { peer.stop() }
        try outcome.get()
    }

    // MARK: Real peers over TCP

    func get(_ port: Int, _ client: TLSClientConfiguration) async throws -> (TLSConnection, String) {
        let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, configuration: client, backend: backend)
        try await connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
        let reply = String(decoding: try await connection.readToEnd(limit: 1 << 20), as: UTF8.self)
        await connection.close()
        return (connection, reply)
    }

    @Test("Our client against openssl s_server", arguments: [TLSVersion.tls12, .tls13])
    func clientAgainstOpenSSLServer(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        try await Self.withPeer({ try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: version) }) { peer in
            let (connection, reply) = try await get(peer.port, clientConfiguration(pki))
            #expect(connection.negotiatedVersion == version)
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
            #expect(connection.peerCertificates == [pki.leaf.certificate, pki.intermediate.certificate])
        }
    }

    @Test("Our client against gnutls-serv and nginx")
    func clientAgainstGnuTLSAndNginx() async throws {
        let pki = try await Self.pki(keyAlgorithm: .rsa2048)
        try await Self.withPeer({ try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate]) }) { gnutls in
            let (g, reply) = try await get(gnutls.port, clientConfiguration(pki))
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
            #expect(g.negotiatedVersion == .tls13)
        }
        try await Self.withPeer({ try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello from nginx\n") }) { nginx in
            let (n, reply) = try await get(nginx.port, clientConfiguration(pki))
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
            #expect(reply.hasSuffix("hello from nginx\n"))
            #expect(n.peerCertificates.count == 2)
        }
    }

    @Test("Mutual TLS against openssl s_server -Verify and nginx ssl_verify_client on")
    func mutualTLSAgainstRealServers() async throws {
        let pki = try await Self.pki()
        let clientPKI = try await Self.pki(leafDNSNames: ["client.example.com"])
        let identity = try await clientIdentity(clientPKI)

        try await Self.withPeer({
            try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], requireClientCertificate: true, clientCAs: [clientPKI.root])
        }) { sServer in
            var client = clientConfiguration(pki)
            let handler = TLSBackendTests.Recorder(identity: identity)
            client.challengeHandler = handler
            let (_, reply) = try await get(sServer.port, client)
            #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(300))")
            #expect(handler.methods == [.serverTrust, .clientCertificate])
            #expect(handler.clientCertificateSpace?.distinguishedNames == [clientPKI.root.certificate.subject])

            // Without an identity s_server ends the handshake.
            let backend = backend
            let error = await TLSBackendTests.failureOnUse(await Self.capture {
                try await TLSConnection.connect(host: "127.0.0.1", port: sServer.port, configuration: clientConfiguration(pki), backend: backend)
            })
            #expect(error?.code == .clientCertificateRejected, "\(String(describing: error))")
        }
        try await Self.withPeer({
            try ExternalTLSPeer.nginx(leaf: pki.leaf, chain: [pki.intermediate], body: "hello, client\n", requireClientCertificate: true, clientCAs: [clientPKI.root])
        }) { nginx in
            var withIdentity = clientConfiguration(pki)
            withIdentity.identity = identity
            let (_, reply) = try await get(nginx.port, withIdentity)
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(300))")
            #expect(reply.hasSuffix("hello, client\n"))
        }
    }

    @Test("Our server against openssl s_client", arguments: [TLSVersion.tls12, .tls13])
    func serverAgainstOpenSSLClient(version: TLSVersion) async throws {
        let pki = try await Self.pki()
        let directory = try TemporaryDirectory(prefix: "tlstrust-s_client")
        try TestPKI.writePEM([pki.root], to: directory.file("root.pem"))
        let listener = try TCPListener()
        defer { listener.close() }
        let configuration = try await serverConfiguration(pki)
        let backend = backend

        // The server on a thread of its own, with the blocking calls: it never waits for the
        // cooperative pool (busy with every other suite) while s_client's clock runs.
        let server = ThreadFuture { () -> Result<TLSVersion?, any Error> in
            Result {
                let transport = try listener.accept(timeout: .seconds(30))
                let connection = try TLSConnection.acceptBlocking(over: transport, configuration: configuration, port: listener.port, backend: backend)
                defer { connection.closeBlocking() }
                var line: [UInt8] = []
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = try connection.readBlocking()
                    if chunk.isEmpty { break }
                    line += chunk
                }
                try connection.writeBlocking(Array("echo: ".utf8) + line)
                return connection.negotiatedVersion
            }
        }

        let run = try await Self.blocking { () throws -> ExternalTLSClient.Run in
            let client = try ExternalTLSClient.Child(["openssl", "s_client", "-connect", "127.0.0.1:\(listener.port)", "-servername", "www.example.com",
                                                      "-CAfile", directory.file("root.pem").path, "-verify_return_error", "-ign_eof",
                                                      version == .tls13 ? "-tls1_3" : "-tls1_2"])
            client.write(Data("hello from s_client\n".utf8))
            client.closeInput()
            // s_client ends by itself once the server closes; the deadline only bounds a failure,
            // so it is generous for a loaded machine.
            return client.finish(timeout: 30)
        }
        let output = run.output
        #expect(output.contains("Verify return code: 0 (ok)"), "\(output)")
        #expect(output.contains("echo: hello from s_client"), "\(output)")
        #expect(try await server.value.get() == version)
    }

    // MARK: No resumption

    @Test("A second connection to the same openssl s_server is not resumed and is judged again")
    func noResumption() async throws {
        let pki = try await Self.pki()
        var client = clientConfiguration(pki)
        let handler = TLSBackendTests.Recorder()
        client.challengeHandler = handler
        try await Self.withPeer({ try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12) }) { peer in
            for _ in 0..<2 {
                let (connection, reply) = try await get(peer.port, client)
                #expect(connection.isResumed == false)
                #expect(!reply.contains("Reused, "), "\(reply.prefix(600))")
            }
        }
        #expect(handler.methods == [.serverTrust, .serverTrust])
    }
}
